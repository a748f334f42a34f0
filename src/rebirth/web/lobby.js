// The lobby: a new game (board, seats, variants, language, hot-seat), its invitations (the
// creator's own seat claimed in this browser), my games.
import { api, fillLangMenu, h, loadCatalogs, loadLanguages, pickLang, setLang, t, translateDom, txt } from "./common.js";
import { forgetGame, myGames, rememberGame } from "./kit.js";
import { claimInvite, claimsOf, seatPath } from "./seat.js";
import { clockMenu, clockOf, fmt } from "./clock.js";
import { currentAccount } from "./account-kit.js";
import "./app.js";

let lang = "en"; // chosen in main(), once the served languages are known
let account = null; // the signed-in account (GET /api/account), or null: a guest
let variants = [];
let kinds = ["human"]; // the seat kinds the server offers (GET /api/variants)
const DEFAULT_NAMES = ["Ailsa", "Brodie", "Catriona", "Duncan"];

function seatRows() {
  const n = Number(document.getElementById("players").value);
  const box = document.getElementById("seats");
  const old = [...box.querySelectorAll(".seat")].map((el) => ({
    kind: el.querySelector("select").value, name: el.querySelector("input").value }));
  box.replaceChildren();
  for (let i = 0; i < n; i++) {
    const prev = old[i] || { kind: i === 0 ? "human" : "normal", name: DEFAULT_NAMES[i] };
    const kind = h("select", { id: `kind${i}`, name: `kind${i}` },
      ...kinds.map((k) =>
        h("option", { value: k, selected: k === prev.kind }, t(lang, `kind.${k}`))));
    box.append(h("fieldset", { class: "seat" }, h("legend", {}, t(lang, "lobby.seat", { n: i + 1 })),
      h("label", {}, t(lang, "lobby.name"), " ",
        h("input", { id: `name${i}`, name: `name${i}`, value: prev.name, maxlength: 40, autocomplete: "off" })),
      h("label", {}, t(lang, "lobby.kind"), " ", kind)));
  }
}

function variantRows() {
  const board = new FormData(document.getElementById("new")).get("board");
  const box = document.getElementById("variants");
  const checked = new Set([...box.querySelectorAll("input:checked")].map((x) => x.value));
  box.replaceChildren();
  for (const v of variants.filter((v) => !v.boards || v.boards.includes(board))) {
    box.append(h("label", { class: "variant" },
      h("input", { type: "checkbox", name: "variant", value: v.name, checked: checked.has(v.name) }),
      " ", h("code", {}, v.name), " — ", txt(v.text, lang)));
  }
}

function linkItem(label, url, game) {
  const abs = new URL(url, location.origin).href;
  const copy = h("button", { type: "button", class: "copy" }, t(lang, "lobby.copy"));
  copy.addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(abs); } catch { /* no clipboard: the link is still shown */ }
    copy.textContent = t(lang, "lobby.copied");
  });
  return h("li", {}, h("span", { class: "lbl" }, label), " ",
    h("input", { class: "url", readonly: true, value: abs, "aria-label": label, "data-game": game }), " ", copy, " ",
    h("a", { href: abs, target: "_blank", rel: "noreferrer" }, t(lang, "lobby.open")));
}

/** The creator's own seat (hot-seat: the device) is claimed here, in this browser: the page
 * then opens it from local storage. Every other seat is shown as its invitation. */
async function showLinks(res, board, playMe) {
  const ul = document.getElementById("links");
  ul.replaceChildren();
  const L = res.links;
  const warn = document.getElementById("links-local");
  warn.hidden = !(res.base && res.base.loopback);
  let mine = null;
  if (L.table) mine = { invite: L.table, label: t(lang, "lobby.link.table") };
  else if (playMe) {
    const first = L.seats.find((s) => s.url);
    if (first) mine = { invite: first.url, seat: first, label: t(lang, "lobby.link.mine", { name: first.name }) };
  }
  if (mine && new URL(mine.invite).origin === location.origin) {
    const claimed = await claimInvite(res.game, new URL(mine.invite).hash.slice(3));
    const path = seatPath(res.game, claimed.slot);
    ul.append(linkItem(mine.label, new URL(path, location.origin).href, res.game));
    rememberGame({ game: res.game, url: path, role: L.table ? "table" : "seat", name: mine.seat?.name, board });
  } else if (mine) {
    // The links use another address (the public URL) whose browser storage this page cannot
    // write: the creator's own invitation is claimed when opened there.
    ul.append(linkItem(mine.label, mine.invite, res.game));
  }
  for (const s of L.seats) {
    if (!s.url || s === mine?.seat) continue; // a bot's seat has no invitation
    ul.append(linkItem(t(lang, "lobby.link.seat", { name: s.name }), s.url, res.game));
  }
  ul.append(linkItem(t(lang, "lobby.link.spectator"), L.spectator, res.game));
  if (L.admin) ul.append(linkItem(t(lang, "lobby.link.admin"), L.admin, res.game));
  const sec = document.getElementById("links-sec");
  sec.hidden = false;
  showMine();
  // The links are what the creator came for: bring them into view (below the fold otherwise).
  sec.scrollIntoView({ block: "start" });
  document.getElementById("links-h").focus({ preventScroll: true });
}

/** Who a remembered link plays: the seat's name, or the link's role (hot-seat, spectator, admin). */
function mineWho(g) {
  if (g.name) return g.name;
  if (g.role && g.role !== "seat") return t(lang, `lobby.mine.${g.role}`);
  // Entries saved before roles were kept: a label that is not just the board's id.
  return g.label && g.label !== g.board ? g.label : "";
}

/** The token a remembered link holds: a spectator's or admin's in its fragment (`#t=`), a
 * claimed seat's or device's in this browser's claims (`#s=SLOT`, seat.js). */
function tokenOf(g) {
  const frag = new URLSearchParams(String(g.url).split("#")[1] || "");
  if (frag.get("t")) return frag.get("t");
  const slot = frag.get("s");
  return claimsOf(g.game).find((c) => c.slot === slot)?.token || "";
}

/** One game of "my games": whose turn, the last move, the seat (what the server said of it). */
function mineItem(g, s) {
  const forget = h("button", { type: "button" }, t(lang, "lobby.forget"));
  forget.addEventListener("click", () => { forgetGame(g.game); showMine(); });
  const board = t(lang, `board.${s?.board || g.board}`);
  const who = s && !s.gone && s.seat !== null && s.seat !== undefined ? s.names[s.seat] : mineWho(g);
  const label = [board, who, new Date(g.when).toLocaleString(lang)].filter(Boolean).join(" · ");
  // undefined: not asked yet (the list is shown at once, the server's answer fills it in).
  let status = s === undefined ? "" : t(lang, "lobby.gone");
  if (s && !s.gone) {
    status = s.status === "over" ? t(lang, "lobby.over")
      : s.your_turn ? t(lang, "mine.your_turn") : t(lang, "mine.turn_of", { name: s.names[s.to_move] ?? "" });
  }
  const when = s?.last_move ? t(lang, "mine.last", { when: new Date(s.last_move * 1000).toLocaleString(lang) }) : "";
  return h("li", { class: s?.your_turn ? "mine-turn" : "", "data-game": g.game },
    h("a", { href: g.url }, label), " ", h("b", { class: "mine-status" }, status), " ",
    h("span", { class: "mine-clock" }, timeLeft(s)), " ", h("span", { class: "small" }, when), " ", forget);
}

/** The time the seat to move has left, as the server's clock said (its frame is public). */
function timeLeft(s) {
  const c = s && !s.gone && s.status !== "over" ? s.clock : null;
  if (!c || !c.enabled || c.running === null || c.running === undefined) return "";
  // The server's figure is of its own time; the list was asked a moment ago.
  return t(lang, "clock.left", { time: fmt(lang, c.left[c.running]) });
}

async function showMine() {
  const ul = document.getElementById("mine");
  const list = myGames();
  if (!list.length) { ul.replaceChildren(h("li", {}, t(lang, "lobby.mine.none"))); return; }
  ul.replaceChildren(...list.map((g) => mineItem(g, undefined)));
  // The server keeps no list of a browser's games: it is asked about the links this browser
  // holds, their tokens in the request body (never in a URL), and answers newest move first.
  let answer = [];
  try {
    answer = (await api("/api/my-games", { method: "POST", body: { tokens: list.map((g) => tokenOf(g)) } })).games;
  } catch { return; } // the server is away: the list stays as this browser knows it
  const seen = new Set();
  const items = [];
  for (const s of answer) { seen.add(s.i); items.push(mineItem(list[s.i], s)); }
  list.forEach((g, i) => { if (!seen.has(i)) items.push(mineItem(g, null)); });
  ul.replaceChildren(...items);
}

async function create(ev) {
  ev.preventDefault();
  const f = new FormData(ev.target);
  const n = Number(f.get("players"));
  const seats = [];
  for (let i = 0; i < n; i++) seats.push({ kind: f.get(`kind${i}`), name: (f.get(`name${i}`) || "").trim() || null });
  const hotseat = f.get("hotseat") === "on";
  if (account && !hotseat && f.get("playme") === "on") {
    // Signed in: the creator's own seat is the account's (every device of it opens the seat).
    const first = seats.find((s) => s.kind === "human");
    if (first) { first.account = "me"; if (first.name === DEFAULT_NAMES[seats.indexOf(first)]) first.name = null; }
  }
  const body = { board: f.get("board"), players: n, seats, variants: f.getAll("variant"), lang,
    hotseat: f.get("hotseat") === "on", chat_in_record: f.get("chat_in_record") === "on",
    clock: clockOf(f.get("clock")),
    // Who may add time or turn the clock off (issue 26): every human seat by agreement, or the creator.
    clock_changes: f.get("clock_creator") === "on" && clockOf(f.get("clock")) ? "creator" : "agreement" };
  const err = document.getElementById("error");
  err.textContent = "";
  try {
    const res = await api("/api/games", { method: "POST", body });
    await showLinks(res, body.board, f.get("playme") === "on");
  } catch (e) {
    err.textContent = t(lang, "lobby.error", { why: e.data?.error?.message?.[lang] || e.message });
  }
}

/** The header's account link: the signed-in name (the account page), else "Sign in". */
async function showAccount() {
  account = await currentAccount();
  const a = document.getElementById("account-link");
  if (account) {
    a.removeAttribute("data-t");
    a.textContent = account.name;
    a.href = "/account";
  }
}

async function init() {
  await loadLanguages();
  lang = pickLang();
  setLang(lang, false);
  await loadCatalogs(lang);
  translateDom(lang);
  const sel = document.getElementById("lang");
  fillLangMenu(sel, lang);
  sel.addEventListener("change", async () => {
    lang = sel.value; await loadCatalogs(lang); translateDom(lang); seatRows(); variantRows(); showMine();
    clockMenu(document.getElementById("clock"), lang);
    setLang(lang);
  });
  try {
    const offer = await api("/api/variants");
    variants = offer.variants || [];
    kinds = offer.kinds || kinds;
  } catch { variants = []; }
  document.getElementById("players").addEventListener("change", seatRows);
  for (const r of document.querySelectorAll("input[name=board]")) r.addEventListener("change", variantRows);
  document.getElementById("new").addEventListener("submit", create);
  seatRows(); variantRows(); showMine();
  const clockSel = document.getElementById("clock");
  clockMenu(clockSel, lang);
  // The choice of who may change the clock only means something when there is a clock.
  const creatorRow = () => { document.getElementById("clock-creator-row").hidden = !clockOf(clockSel.value); };
  clockSel.addEventListener("change", creatorRow);
  creatorRow();
  await showAccount();
  document.body.dataset.ready = "1";
}

init();
