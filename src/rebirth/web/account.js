// The account page (issue 25): the display name, "My games" (each seat opens on this device
// with no secret: /game/<id>?seat=<n>), ratings, passkeys, the signed-in browsers (each can be
// signed out) and deleting the account. Not signed in: the sign-in page, then back here.
import { api, botBadge, fillLangMenu, h, loadCatalogs, loadLanguages, pickLang, setLang, t, tn, translateDom } from "./common.js";
import { creationOptions, credentialJson, forgetSignedIn, signinPath } from "./account-kit.js";
import { ratingChart } from "./ratingchart.js";
import { fmt } from "./clock.js";

const $ = (id) => document.getElementById(id);
let lang = "en";

const why = (e) => e?.data?.error?.message?.[lang] || e?.message || String(e);
const when = (s) => new Date(s * 1000).toLocaleString(lang);
const fail = (e) => { $("error").textContent = t(lang, "account.error", { why: why(e) }); };

function gameItem(g) {
  const state = g.status === "over" ? t(lang, "account.over")
    : g.your_turn ? t(lang, "account.your_turn") : t(lang, "account.waiting");
  const label = t(lang, "account.seat", { board: t(lang, `board.${g.board}`), players: g.players, n: g.seat + 1 });
  return h("li", { class: g.your_turn ? "mine-turn" : "", "data-game": g.game },
    h("a", { href: `/game/${encodeURIComponent(g.game)}?seat=${g.seat}`, class: "big-link" }, label), " ",
    h("b", { class: "mine-status" }, state), " ", h("span", { class: "small" }, when(g.created)));
}

/** The account's own record (the public profile's answer): per board and player count the
 * games, win share, average score and rating, and the rating history of the most played rated
 * series as a chart. */
async function showHistory(name) {
  let p;
  try { p = await api(`/api/players/${encodeURIComponent(name)}`); } catch { return; }
  const where = (s) => `${t(lang, `board.${s.board}`)} · ${s.players}`;
  $("stats").replaceChildren(...p.stats.map((s) => h("li", {}, t(lang, "account.stat", {
    where: where(s), games: s.games, share: Math.round(100 * s.win_share),
    score: s.average_score.toFixed(1), rating: s.rating === null ? "–" : s.rating }))));
  const rated = p.stats.filter((s) => s.history.length);
  $("chart-box").hidden = rated.length === 0;
  if (rated.length) {
    const s = rated.reduce((a, b) => (b.history.length > a.history.length ? b : a));
    $("chart").replaceChildren(ratingChart(s.history, {
      label: t(lang, "ratings.chart_label", { where: where(s), rating: s.rating }),
      xLabel: t(lang, "ratings.rated_games"), width: $("chart").clientWidth || 360 }));
  }
  $("profile").href = `/players/${encodeURIComponent(name)}`;
}

async function showSessions() {
  const { sessions } = await api("/api/account/sessions");
  $("sessions").replaceChildren(...sessions.map((s) => {
    const out = h("button", { type: "button" }, t(lang, "account.session.revoke"));
    out.addEventListener("click", async () => {
      try { await api("/api/account/sessions/revoke", { method: "POST", body: { ids: [s.id] } }); } catch (e) { fail(e); }
      if (s.current) { forgetSignedIn(); location.replace("/"); } else showSessions();
    });
    return h("li", { "data-session": s.id }, h("span", {}, s.agent || "?"), " ",
      h("span", { class: "small" }, s.current ? t(lang, "account.session.current")
        : t(lang, "account.session.seen", { when: when(s.seen) })), " ", out);
  }));
}

async function showPasskeys() {
  const { passkeys } = await api("/api/account/passkeys");
  if (!passkeys.length) { $("passkeys").replaceChildren(h("li", {}, t(lang, "account.passkeys.none"))); return; }
  $("passkeys").replaceChildren(...passkeys.map((p) => {
    const rm = h("button", { type: "button" }, t(lang, "account.passkey.remove"));
    rm.addEventListener("click", async () => {
      try { await api(`/api/account/passkeys/${encodeURIComponent(p.id)}`, { method: "DELETE" }); } catch (e) { fail(e); }
      showPasskeys();
    });
    return h("li", { "data-passkey": p.id }, h("span", {}, p.label), " ",
      h("span", { class: "small" }, t(lang, "account.passkey.label", { when: when(p.created) })), " ", rm);
  }));
}

async function addPasskey() {
  $("error").textContent = "";
  try {
    const { handle, options } = await api("/api/account/passkeys/options", { method: "POST" });
    const cred = await navigator.credentials.create({ publicKey: creationOptions(options) });
    await api("/api/account/passkeys", { method: "POST",
      body: { handle, credential: credentialJson(cred), label: navigator.platform || "passkey" } });
    $("status").textContent = t(lang, "account.passkey.added");
    await showPasskeys();
  } catch (e) { fail(e); }
}

/** The bot account section (docs/bot-api.md): upgrade (irreversible), the API token shown once,
 * a new one, revoke. */
function showBot(me) {
  $("bot-help").textContent = t(lang, me.bot ? "account.bot.help_bot" : "account.bot.help");
  $("bot-state").replaceChildren(...(me.bot ? [botBadge(lang), " ",
    t(lang, me.bot_token ? "account.bot.has_token" : "account.bot.no_token")] : []));
  $("bot-upgrade").hidden = me.bot;
  $("bot-renew").hidden = $("bot-revoke").hidden = !me.bot;
  $("bot-revoke").disabled = !me.bot_token;
}

function showToken(answer) {
  $("bot-token").textContent = answer.token;
  $("bot-token-box").hidden = false;
}

async function botAction(ev) {
  const id = ev.currentTarget.id;
  $("error").textContent = "";
  try {
    let token = null;
    if (id === "bot-upgrade") {
      if (!confirm(t(lang, "account.bot.confirm"))) return;
      token = await api("/api/account/bot", { method: "POST" });
    } else if (id === "bot-renew") {
      token = await api("/api/account/bot/token", { method: "POST" });
    } else {
      await api("/api/account/bot/token", { method: "DELETE" });
    }
    // The account's new state is read before anything is drawn, so the token, the badge and
    // the buttons change together (never a token shown beside a "not a bot" section).
    const me = await api("/api/account");
    if (token) showToken(token);
    else {
      $("bot-token-box").hidden = true;
      $("status").textContent = t(lang, "account.bot.revoked");
    }
    showBot(me);
  } catch (e) { fail(e); }
}

/** Away in every turn-clock game at once, or back in all (one period, its days counted once). */
function showVacation(away) {
  const b = $("vacation-all");
  b.dataset.away = away ? "1" : "";
  b.textContent = t(lang, away ? "account.vacation.back" : "account.vacation.go");
  $("vacation-state").textContent = away ? t(lang, "account.vacation.away") : "";
}

async function vacationAll() {
  $("error").textContent = "";
  const on = !$("vacation-all").dataset.away;
  try {
    const r = await api("/api/account/vacation", { method: "POST", body: { on } });
    const me = await api("/api/account");
    $("vacation-year").textContent = t(lang, "account.vacation", { year: me.vacation.year, time: fmt(lang, me.vacation.left_s) });
    showVacation(r.away);
    $("status").textContent = tn(lang, on ? "account.vacation.went" : "account.vacation.came", r.games.length);
  } catch (e) { fail(e); }
}

async function show() {
  let me;
  try { me = await api("/api/account"); } catch (e) {
    if (e?.data?.error?.code === "signin_required") { forgetSignedIn(); location.replace(signinPath("/account")); return; }
    fail(e); return;
  }
  localStorage.setItem("rebirth.account", "1");
  $("name").value = me.name;
  $("email").textContent = me.email ? t(lang, "account.email", { email: me.email }) : "";
  // Vacation per account per year (issue 26 item 3): what is left, shared by all its games.
  $("vacation-year").textContent = t(lang, "account.vacation", { year: me.vacation.year, time: fmt(lang, me.vacation.left_s) });
  showVacation(me.vacation.away);
  $("games").replaceChildren(...(me.games.length ? me.games.map(gameItem) : [h("li", {}, t(lang, "account.games.none"))]));
  $("ratings").replaceChildren(...(me.ratings.length ? me.ratings.map((r) => h("li", {},
    t(lang, "account.rating", { board: t(lang, `board.${r.board}`), players: r.players,
      rating: r.rating, games: r.games }))) : [h("li", {}, t(lang, "account.ratings.none"))]));
  showBot(me);
  $("body").hidden = false;
  await showHistory(me.name);
  await Promise.all([showSessions(), showPasskeys()]);
  document.body.dataset.ready = "1";
}

async function init() {
  await loadLanguages();
  lang = pickLang();
  setLang(lang, false);
  await loadCatalogs(lang);
  translateDom(lang);
  const sel = $("lang");
  fillLangMenu(sel, lang);
  sel.addEventListener("change", async () => { lang = sel.value; await loadCatalogs(lang); translateDom(lang); setLang(lang); show(); });
  $("rename").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("error").textContent = "";
    try { await api("/api/account/name", { method: "POST", body: { name: $("name").value.trim() } });
      $("status").textContent = t(lang, "account.renamed"); } catch (e) { fail(e); }
  });
  $("add-passkey").addEventListener("click", addPasskey);
  $("vacation-all").addEventListener("click", vacationAll);
  for (const id of ["bot-upgrade", "bot-renew", "bot-revoke"]) $(id).addEventListener("click", botAction);
  if (!window.PublicKeyCredential) $("add-passkey").hidden = true;
  $("signout").addEventListener("click", async () => {
    try { await api("/api/account/signout", { method: "POST" }); } catch { /* gone already */ }
    forgetSignedIn(); location.replace("/");
  });
  $("revoke-all").addEventListener("click", async () => {
    try { await api("/api/account/sessions/revoke", { method: "POST" }); } catch { /* gone already */ }
    forgetSignedIn(); location.replace("/");
  });
  $("delete").addEventListener("click", async () => {
    if (!confirm(t(lang, "account.delete.confirm"))) return;
    try { await api("/api/account", { method: "DELETE" }); forgetSignedIn(); location.replace("/"); } catch (e) { fail(e); }
  });
  await show();
}

init();
