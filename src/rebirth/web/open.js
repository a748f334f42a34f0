// Open games and "Play now" in the lobby (issue 25 item 5): the listed games with a seat open
// (join one), and a request to be paired with players who want the same board, player count
// and clock. Both need an account: signed out, the section says so and links to sign-in.
import { api, botBadge, h, loadCatalogs, loadLanguages, pickLang, t } from "./common.js";
import { clockMenu, clockOf } from "./clock.js";
import { keepSeat, seatPath } from "./seat.js";
import { rememberGame } from "./kit.js";

const POLL_MS = 2000; // the server drops a request whose page stopped asking (15 s)
let lang = "en";
let ticket = null;
let timer = null;

const $ = (id) => document.getElementById(id);
const why = (e) => e.data?.error?.message?.[lang] || e.message;

function clockText(c) {
  if (!c) return t(lang, "open.noclock");
  return c.kind === "realtime" ? t(lang, "open.clock.realtime", { min: Math.round(c.initial_s / 60), inc: c.increment_s || 0 })
    : t(lang, "open.clock.turn", { hours: Math.round(c.per_move_s / 3600) });
}

async function enter(game, seat, token, board) {
  const claimed = keepSeat(game, seat, token);
  const path = seatPath(game, claimed.slot);
  rememberGame({ game, url: path, role: "seat", board });
  location.assign(path);
}

function gameItem(g) {
  const join = h("button", { type: "button", class: "primary", "data-game": g.game }, t(lang, "open.join"));
  join.addEventListener("click", async () => {
    join.disabled = true;
    $("open-error").textContent = "";
    try {
      const res = await api(`/api/games/${encodeURIComponent(g.game)}/join`, { method: "POST" });
      await enter(g.game, res.seat, res.token, g.board);
    } catch (e) {
      $("open-error").textContent = t(lang, "lobby.error", { why: why(e) });
      join.disabled = false;
      list();
    }
  });
  const facts = [t(lang, `board.${g.board}`), t(lang, "open.players", { n: g.players }),
    t(lang, "open.left", { n: g.open_seats }), clockText(g.clock),
    g.rated ? t(lang, "open.rated") : t(lang, "open.casual"), t(lang, "open.by", { name: g.creator })];
  return h("li", { class: "open-game" }, h("span", {}, facts.join(" · ")),
    g.creator_bot ? [" ", botBadge(lang)] : "", " ", join);
}

async function list() {
  const ul = $("open-list");
  let games = [];
  try { games = (await api("/api/open-games")).games; } catch { return; }
  ul.replaceChildren(...(games.length ? games.map(gameItem) : [h("li", {}, t(lang, "open.none"))]));
}

function waiting(res) {
  $("pn-status").textContent = t(lang, "open.playnow.waiting", { s: Math.round(res.waited_s), range: res.range });
}

async function poll() {
  if (!ticket) return;
  try {
    const res = await api(`/api/play-now/${encodeURIComponent(ticket)}`);
    await follow(res);
  } catch (e) { $("pn-status").textContent = t(lang, "lobby.error", { why: why(e) }); stop(false); }
}

async function follow(res) {
  if (res.status === "paired") {
    stop(false);
    $("pn-status").textContent = t(lang, "open.playnow.paired");
    await enter(res.game, res.seat, res.token, res.board);
  } else if (res.status === "waiting") {
    waiting(res);
    timer = setTimeout(poll, POLL_MS);
  } else {
    stop(false);
    $("pn-status").textContent = t(lang, "open.playnow.cancelled");
  }
}

function stop(cancel = true) {
  if (timer) clearTimeout(timer);
  timer = null;
  if (cancel && ticket) api(`/api/play-now/${encodeURIComponent(ticket)}`, { method: "DELETE" }).catch(() => {});
  ticket = null;
  $("pn-go").hidden = false;
  $("pn-stop").hidden = true;
}

async function playNow(ev) {
  ev.preventDefault();
  const f = new FormData(ev.target);
  const body = { board: f.get("board"), players: Number(f.get("players")), clock: clockOf(f.get("clock")) };
  try {
    const res = await api("/api/play-now", { method: "POST", body });
    ticket = res.ticket;
    $("pn-go").hidden = true;
    $("pn-stop").hidden = false;
    await follow(res);
  } catch (e) { $("pn-status").textContent = t(lang, "lobby.error", { why: why(e) }); }
}

async function init() {
  await loadLanguages();
  lang = pickLang();
  await loadCatalogs(lang);
  let signedIn = true;
  try { await api("/api/account"); } catch { signedIn = false; }
  $("open-signin").hidden = signedIn;
  $("playnow").hidden = !signedIn;
  if (signedIn) {
    clockMenu($("pn-clock"), lang);
    $("playnow").addEventListener("submit", playNow);
    $("pn-stop").addEventListener("click", () => { stop(true); $("pn-status").textContent = ""; });
  }
  $("lang").addEventListener("change", async () => {
    lang = $("lang").value; await loadCatalogs(lang);
    if (signedIn) clockMenu($("pn-clock"), lang);
    list();
  });
  await list();
  document.getElementById("open-sec").dataset.ready = "1";
}

init();
