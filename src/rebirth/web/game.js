// The game page: renders what the server sends for this seat (docs/protocol.md).
import { BoardView, MapModel } from "./board.js";
import { SEAT_LETTERS, api, botBadge, chosenLang, fillLangMenu, h, isLang, loadCatalogs, loadLanguages, pickLang, render, scoreChart, setLang, t, translateDom, txt } from "./common.js";
import { announce, cardOf, endScreen, errorText, presenceMark, publicMission, rememberGame, turnStatus } from "./kit.js";
import { GameSocket } from "./net.js";
import { notifyPanel, turnSignal } from "./notify.js";
import { pushPanel } from "./push.js";
import "./app.js";
import { fitAtEnd, frameTurn, labelsToggle, scoreStrip } from "./phone.js";
import { askedSeat, pageToken, settleLink } from "./seat.js";
import { forfeitNotices, seatTools } from "./seattools.js";
import { Chat } from "./chat.js";
import { framesOf, markSeen, openRecap, seenVersion, stepsSince } from "./recap.js";
import { clockBox, clockCell, handoverLabel, handoverWait, noticesAt, renderBigClock, setClock, setHandover, startTicker } from "./clock.js";

const $ = (id) => document.getElementById(id);

/** Everything the page holds. Exposed as `window.rebirthState` so tests can check what is in memory. */
const S = {
  gameId: decodeURIComponent(location.pathname.split("/").pop() || ""),
  lang: "en", // chosen in init(), once the served languages are known
  role: null,
  seat: null,          // the seat whose view is shown (null: spectator, or hot-seat between players)
  seats: [],           // hot-seat: the seats this device controls
  version: -1,
  view: null,
  log: [],             // steps {version, seat, events} as sent for `seat`
  names: [], kinds: [], online: [], bots: [],
  forfeits: [],        // [{seat, reason}]: who resigned or ran out of time for good
  next: null,          // hot-seat: who plays next while everything private is hidden
  newLinks: {},        // admin: links made by revoking, shown once to be passed on
  sent: false,         // an action is on its way: no second one until the server answers
  selected: null, cursor: null, hover: null, preview: null,
  prefs: { confirm: localStorage.getItem("rebirth.confirm") !== "off" },
  board: null,         // the board's id (scotland, ireland)
  refused: null,       // a refused invitation's code: the page shows the spectators' view
  refusedGone: false,  // … and that view could not be read
  boardData: null, model: null, error: "",
  analysis: { status: "none" },  // after the end: none / running {done, total} / done {data} / failed {why}
};
window.rebirthState = S;
// The token lives only in this closure and the socket: never in the shared state or a URL sent out.
// A seat's token comes from its claimed invitation, kept in this browser only (seat.js).
let token = null;
let board = null;
let sock = null;
let previewTimer = null;
let chat = null;  // the chat panel and the rematch box (chat.js)

const hotseat = () => S.seats.length > 0;
const myTurn = () => !S.sent && S.view && S.seat !== null && S.view.current_player === S.seat && S.view.phase !== "end";
const legal = () => (myTurn() ? S.view.legal_actions : []);
const placeable = () => new Set(legal().filter((a) => !a.startsWith("mark ")));

/** A seat's colour (the board's facts from the server). */
const colour = (q) => S.model?.colours[q];

// ------------------------------------------------------------------ messages

function onMessage(msg) {
  if (chat?.onMessage(msg)) return;
  if (msg.type === "sync") {
    // A sync replaces everything (docs/protocol.md). Only a reconnect of the same seat keeps
    // the log it had, since the server then sends just the steps after our version.
    const resume = msg.seat === S.seat && S.view !== null && S.role === msg.role;
    const kept = resume ? S.log : [];
    dropPrivate();
    S.sent = false; S.error = "";
    S.role = msg.role ?? null;
    S.seats = msg.role === "table" ? msg.seats || [] : [];
    S.names = msg.names || S.names;
    S.kinds = msg.kinds || S.kinds;
    S.online = msg.online || S.online;
    S.forfeits = msg.forfeits || [];
    S.seat = msg.seat ?? null;
    S.log = kept;
    appendSteps(msg.events || []);
    S.version = msg.version;
    S.view = msg.view;
    S.next = S.view?.current_player ?? null;
    setClock(msg.clock, msg.handover_at);
    if (!resume) recapCheck();
    settleLink(S.gameId, token, S.role, S.seat);
    // "My games" names this game by who this link plays: the seat's name, or its role.
    rememberGame({ game: S.gameId, url: location.pathname + location.hash, role: S.role, board: S.board,
      name: S.role === "seat" ? S.names[S.seat] : undefined });
  } else if (msg.type === "update") {
    S.sent = false; S.error = "";
    S.version = msg.version;
    S.online = msg.online || S.online;
    S.view = msg.view;
    S.next = S.view?.current_player ?? null;
    setClock(msg.clock);
    const fresh = appendSteps(msg.events || []);
    announceSteps(fresh);
    if (S.seat !== null && !recapOpen) markSeen(S.gameId, S.seat, S.version);
    // Hot-seat: the server follows with a seat-less sync; drop the private view at once anyway.
    if (hotseat() && S.seat !== null && S.view && S.view.phase !== "end" && S.view.current_player !== S.seat) {
      handOver();
    }
    S.selected = null; S.preview = null;
  } else if (msg.type === "preview") {
    // Only the preview of the hex being placed (the selected one, else the hovered one) is
    // shown: the mouse crossing other hexes on its way to "Place" must not replace it.
    if (msg.action === previewLabel()) S.preview = msg;
  } else if (msg.type === "presence") {
    S.online = msg.online;
    setHandover(msg.handover_at);
  } else if (msg.type === "clock") {  // a time-out, a take-back or an adjustment (clock.js)
    setClock(msg.clock, msg.handover_at);
    S.kinds = msg.kinds || S.kinds;
    if (msg.forfeits) {
      const known = new Set(S.forfeits.map((f) => f.seat));
      const fresh = msg.forfeits.filter((f) => !known.has(f.seat));
      S.forfeits = msg.forfeits;
      if (fresh.length) announce(forfeitNotices(S.lang, fresh, S.names).map((li) => li.textContent).join(" "));
    }
    if (msg.seats) S.seats = msg.seats;
  } else if (msg.type === "error") {
    S.sent = false;
    S.error = msg.message?.[S.lang] || msg.message?.en || msg.code;
    announce(t(S.lang, "error.prefix", { why: S.error }), true);
    if (msg.code === "bad_token" || msg.code === "revoked" || msg.code === "unknown_game") sock?.close();
  }
  renderAll();
}

function appendSteps(steps) {
  const last = S.log.length ? S.log[S.log.length - 1].version : -1;
  const fresh = steps.filter((s) => s.version > last);
  S.log.push(...fresh);
  return fresh;
}

/** Hot-seat: forget the seat that just played before anyone else sees the screen. */
function handOver() {
  const next = S.view.current_player;
  dropPrivate();
  S.seat = null;
  S.next = next;
}

function dropPrivate() {
  S.view = null; S.log = []; S.preview = null; S.selected = null; S.cursor = null; S.hover = null;
  for (const id of ["hand", "setaside", "missions", "preview", "confirm", "log", "public", "players"]) $(id).replaceChildren();
  $("confirm").dataset.key = "";
}

/** The `resign` frame: a hot-seat device resigns for the seat that holds it now. */
const resignFrame = () => (hotseat() ? { type: "resign", seat: S.seat } : { type: "resign" });

function claim(seat) {
  sock.send({ type: "claim", seat });
}

function announceSteps(steps) {
  const lines = [];
  for (const st of steps) for (const e of st.events) if (e.kind === "place" || e.points) lines.push(eventText(e));
  if (lines.length) announce(lines.join(" "));
}

function eventText(e) {
  let s = render(e.key, e.args, S.lang, S.names);
  if (e.private_key) s += ` ${render(e.private_key, e.private_args, S.lang, S.names)}`;
  return s;
}

// ------------------------------------------------------------------ acting

function act(action) {
  if (!myTurn()) return;
  clearTimeout(previewTimer);
  const msg = { type: "act", action, version: S.version };
  if (hotseat()) msg.seat = S.seat;
  S.error = "";
  // Until the server answers, the page offers no further action or preview for this turn.
  if (sock.send(msg)) S.sent = true;
  S.selected = null; S.hover = null; S.preview = null;
  renderAll();
}

function askPreview(label) {
  clearTimeout(previewTimer);
  previewTimer = setTimeout(() => {
    if (!myTurn()) return;
    const msg = { type: "preview", action: label };
    if (hotseat()) msg.seat = S.seat;
    sock.send(msg);
  }, 80);
}

/** The hex whose preview is shown: the one chosen for "Place", else the one under the pointer. */
const previewLabel = () => S.selected || S.hover || S.cursor;

function hoverSpace(label) {
  if (!placeable().has(label)) return;
  S.hover = label;
  if (!S.selected) askPreview(label);
  renderBoard();
}

function pickSpace(label) {
  if (!placeable().has(label)) return;
  if (S.prefs.confirm) {
    S.selected = label; S.cursor = label;
    askPreview(label);
    renderAll();
    $("confirm-yes")?.focus();
  } else act(label);
}

function moveCursor(dx, dy) {
  const spaces = [...placeable()];
  if (!spaces.length) return;
  const cur = S.cursor && board.centre(S.cursor);
  if (!cur) { S.cursor = spaces[0]; } else {
    let best = null; let bestScore = Infinity;
    for (const l of spaces) {
      if (l === S.cursor) continue;
      const [x, y] = board.centre(l);
      const vx = x - cur[0]; const vy = y - cur[1];
      const along = vx * dx + vy * dy;
      if (along <= 0) continue;
      const across = Math.abs(vx * dy - vy * dx);
      const score = along + across * 2;
      if (score < bestScore) { bestScore = score; best = l; }
    }
    if (best) S.cursor = best;
  }
  S.hover = S.cursor;
  if (!S.selected) askPreview(S.cursor);
  announce(S.cursor);
  renderBoard();
}

function onBoardKey(e) {
  const dirs = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  if (dirs[e.key]) { e.preventDefault(); moveCursor(...dirs[e.key]); } else if (e.key === "Enter" || e.key === " ") {
    e.preventDefault();
    if (S.selected && S.selected === S.cursor) act(S.selected);
    else if (S.cursor) pickSpace(S.cursor);
  } else if (e.key === "Escape") { S.selected = null; renderAll(); } else if (e.key === "+") board.zoom(1.25);
  else if (e.key === "-") board.zoom(0.8);
}

// ------------------------------------------------------------------ rendering

function lastPlacements() {
  const last = new Map();
  for (const st of S.log) for (const e of st.events) if (e.kind === "place" && e.seat !== null) last.set(e.seat, e.data.hex);
  return last;
}

function renderBoard() {
  if (!board) return;
  const v = S.view;
  if (!v) { board.update({ spaces: S.model.spaces.map(() => [-1, null]) }, {}); return; }
  const ghostLabel = S.selected || S.hover;
  const code = v.phase === "extra" ? v.extra_tile : v.hand;
  board.update(v, { legal: placeable(), last: lastPlacements(), cursor: S.cursor, names: S.names,
    ghost: myTurn() && ghostLabel && code ? { label: ghostLabel, seat: S.seat, code } : null });
}

function statusText() {
  const v = S.view;
  if (!v) return S.next !== null ? t(S.lang, "status.waiting", { name: S.names[S.next] }) : t(S.lang, "game.loading");
  if (v.phase === "end") return t(S.lang, "status.over");
  const p = v.current_player;
  const name = S.names[p];
  if (p === S.seat) {
    if (v.phase === "extra") return t(S.lang, "status.extra.you", { tile: t(S.lang, `tile.${v.extra_tile}`) });
    if (v.phase === "mark") return t(S.lang, "status.mark.you");
    return t(S.lang, "status.you");
  }
  const watching = S.role === "spectator" || S.role === "admin" ? ` — ${t(S.lang, "spectator")}` : "";
  return turnStatus(S.lang, v.phase, name) + watching;
}

function tileBadge(code, seat) {
  return h("span", { class: "tile-badge", style: `--c:${colour(seat) ?? "#999"}` },
    h("b", {}, SEAT_LETTERS[seat] ?? ""), " ", code, " · ", t(S.lang, `tile.${code}`));
}

function renderHand() {
  const el = $("hand");
  el.replaceChildren();
  const v = S.view;
  $("hand-sec").hidden = S.seat === null;
  if (!v || S.seat === null) return;
  const code = v.phase === "extra" && v.current_player === S.seat ? v.extra_tile : v.hand;
  el.append(code ? tileBadge(code, S.seat) : h("p", {}, t(S.lang, "hand.none")));
  // What the set-aside tiles are, in words (issue 26 item 6): out of the game (S-3), or face
  // down until a tower's extra tile brings one back (S-4, I-7). Below the Place button and the
  // placement's points, which a phone keeps in view.
  const tiles = (v.set_aside || []).map((c) => `${t(S.lang, `tile.${c}`)} (${c})`).join(", ");
  $("setaside").replaceChildren(...(tiles ? [h("p", { class: "small setaside" }, t(S.lang, v.rules === "ireland"
    ? "hand.setaside.ireland" : "hand.setaside.scotland", { tiles }))] : []));
  const c = $("confirm");
  c.hidden = !(S.selected && myTurn());
  // Rebuild the buttons only when what they say changes: a preview or presence update that
  // re-renders while the player is clicking "Place" must not swallow the click.
  const key = c.hidden ? "" : `${S.selected}|${code}|${S.lang}`;
  if (c.dataset.key !== key) {
    c.dataset.key = key;
    c.replaceChildren();
    if (!c.hidden) {
      c.append(h("button", { type: "button", id: "confirm-yes", class: "primary", onclick: () => act(S.selected) },
        t(S.lang, "confirm.place", { tile: code, hex: S.selected })),
      " ", h("button", { type: "button", id: "confirm-no", onclick: () => { S.selected = null; renderAll(); } },
        t(S.lang, "confirm.cancel")));
    }
  }
  const p = $("preview");
  p.replaceChildren();
  if (S.preview && myTurn() && S.preview.action === previewLabel()) {
    p.append(h("h3", {}, `${t(S.lang, "preview.title")} (${S.preview.action})`),
      h("p", { class: "points" }, S.preview.points ? t(S.lang, S.preview.points === 1 ? "preview.point" : "preview.points",
        { points: S.preview.points }) : t(S.lang, "preview.none")),
      h("ul", {}, ...(S.preview.events || []).filter((e) => e.kind !== "place").map((e) =>
        h("li", {}, eventText(e), " ", h("span", { class: "rule" }, e.rule),
          e.points ? h("span", { class: "pts" }, ` +${e.points}`) : ""))));
  }
}

function renderPlayers() {
  const ul = $("players");
  ul.replaceChildren();
  const v = S.view;
  if (!v) return;
  const ireland = v.rules === "ireland";
  for (let i = 0; i < v.players; i++) {
    const castles = (v.castle_holders || []).filter((x) => x === i).length;
    const cath = (v.cathedral_pieces || []).filter((x) => x.includes(i)).length;
    const towers = (v.tower_visits || []).filter((x) => x.includes(i)).length;
    const online = !!S.online[i];
    const last = lastPlacements().get(i);
    ul.append(h("li", { class: `player${v.current_player === i && v.phase !== "end" ? " current" : ""}`, "data-seat": i },
      h("span", { class: "swatch", style: `background:${colour(i)}` }, SEAT_LETTERS[i]),
      h("span", { class: "pname" }, S.names[i], S.bots[i] ? [" ", botBadge(S.lang)] : "",
        i === S.seat ? ` (${t(S.lang, "you")})` : "",
        presenceMark(S.lang, S.kinds[i], online, !!S.bots[i])),
      h("dl", {},
        h("dt", {}, t(S.lang, "panel.score")), h("dd", { class: "score" }, v.scores[i]),
        h("dt", {}, t(S.lang, "panel.tiles")), h("dd", {}, (v.supply_counts[i] || 0) + (v.hand_counts[i] || 0)),
        h("dt", {}, t(S.lang, "panel.castles")), h("dd", {}, castles),
        ireland ? [h("dt", {}, t(S.lang, "panel.towers")), h("dd", {}, towers)]
          : [h("dt", {}, t(S.lang, "panel.cathedrals")), h("dd", {}, cath)],
        h("dt", {}, t(S.lang, "panel.missions")), h("dd", {}, v.mission_counts[i])),
      last ? h("span", { class: "small" }, t(S.lang, "panel.last", { hex: last })) : "",
      clockCell(S.lang, i, S.names[i], S.kinds[i]),
      S.role === "admin" && S.kinds[i] === "human" ? revokeBox(i) : "",
      canHandToBot(i) ? h("button", { type: "button", class: "tobot", "data-seat": i, "data-name": S.names[i],
        onclick: () => handToBot(i), disabled: handoverWait(i) > 0 }, handoverLabel(S.lang, i, S.names[i])) : ""));
  }
}

/** The creator (admin link) replaces a seat's link: the old one stops working at once. */
function revokeBox(i) {
  const out = h("input", { class: "url", readonly: true, "aria-label": t(S.lang, "admin.newlink", { name: S.names[i] }),
    value: S.newLinks[i] || "", hidden: !S.newLinks[i] });
  const btn = h("button", { type: "button", class: "revoke", "data-seat": i, onclick: async () => {
    try {
      const res = await api(`/api/games/${encodeURIComponent(S.gameId)}/seats/${i}/revoke`, { method: "POST", token });
      S.newLinks[i] = new URL(res.url, location.origin).href;
      S.error = "";
    } catch (e) { S.error = e.data?.error?.message?.[S.lang] || e.message; }
    renderAll();
  } }, t(S.lang, "admin.revoke"));
  return h("div", { class: "revoke-box" }, btn, " ", out);
}

/** A leaver's seat may be handed to a bot by another player (the server checks the grace time). */
function canHandToBot(i) {
  return S.role === "seat" && i !== S.seat && S.kinds[i] === "human" && !S.online[i] && S.view?.phase !== "end";
}

async function handToBot(i) {
  try {
    const res = await api(`/api/games/${encodeURIComponent(S.gameId)}/seats/${i}/bot`, { method: "POST", token });
    S.kinds = res.kinds || S.kinds;
    S.online = res.online || S.online;
    S.error = "";
  } catch (e) {
    S.error = e.data?.error?.message?.[S.lang] || e.message;
    const at = e.data?.error?.details?.allowed_at;
    if (at) setHandover(S.kinds.map((_, q) => (q === i ? at : null)));
  }
  renderAll();
}

function renderMissions() {
  const ul = $("missions");
  ul.replaceChildren();
  const v = S.view;
  $("missions-sec").hidden = !v || S.seat === null;
  if (v && S.seat !== null) {
    if (!v.missions.length) ul.append(h("li", {}, t(S.lang, "missions.none")));
    v.missions.forEach((id, i) => {
      const c = cardOf(S.boardData, id);
      // What the card pays when fulfilled, as the server says (K-2, I-9).
      const pts = c ? (S.model.facts.secret_points[c.id] ?? "") : "";
      const [have, need, done] = v.mission_progress?.[i] ?? [0, 0, false];
      const progress = h("div", { class: `small progress ${done ? "done" : "open"}` },
        t(S.lang, done ? "missions.progress.done" : "missions.progress.open", { have, need }));
      ul.append(h("li", { class: "mission" }, h("b", {}, id), pts !== "" ? ` (${pts}) ` : " ",
        txt(c?.text, S.lang), progress));
    });
  }
  const pub = $("public");
  pub.replaceChildren();
  $("public-sec").hidden = !v || !(v.display || []).length;
  if (!v) return;
  const marking = myTurn() && v.phase === "mark";
  const who = (q) => `${S.names[q]} (${SEAT_LETTERS[q]})`;
  for (const id of v.display || []) {
    const action = `mark ${id}`;
    pub.append(publicMission(S.lang, S.boardData, v, id, who,
      marking && v.legal_actions.includes(action)
        ? h("button", { type: "button", class: "primary mark", "data-action": action, onclick: () => act(action) },
          t(S.lang, "mark.button", { id })) : ""));
  }
}

function renderPrompt() {
  const el = $("prompt");
  el.replaceChildren();
  const v = S.view;
  const show = myTurn() && (v.phase === "extra" || v.phase === "mark");
  el.hidden = !show;
  if (!show) return;
  el.append(h("strong", {}, statusText()));
  if (v.phase === "mark") {
    el.append(h("div", { class: "mark-buttons" }, ...v.legal_actions.filter((a) => a.startsWith("mark ")).map((a) =>
      h("button", { type: "button", class: "primary mark", "data-action": a, onclick: () => act(a) },
        t(S.lang, "mark.button", { id: a.slice(5) })))));
  }
}

function renderLog() {
  const ol = $("log");
  ol.replaceChildren();
  for (const st of S.log) {
    for (const e of st.events) {
      ol.append(h("li", { class: `ev ev-${e.kind}` },
        e.seat !== null && e.seat !== undefined ? h("span", { class: "swatch small", style: `background:${colour(e.seat)}` }, SEAT_LETTERS[e.seat]) : "",
        " ", eventText(e), " ", h("span", { class: "rule", title: "RULES.md" }, e.rule),
        e.points ? h("span", { class: "pts" }, ` ${t(S.lang, "log.points", { points: e.points })}`) : ""));
    }
    ol.append(...noticesAt(S.lang, st.version, S.names));
  }
  ol.append(...forfeitNotices(S.lang, S.forfeits, S.names));
  ol.scrollTop = ol.scrollHeight;
}

function renderHandover() {
  const el = $("handover");
  el.replaceChildren();
  const show = hotseat() && S.seat === null && !(S.view && S.view.phase === "end");
  el.hidden = !show;
  $("main").inert = show;
  if (!show) return;
  const next = S.next;
  const canClaim = next !== null && S.seats.includes(next);
  el.append(h("div", { class: "card" }, h("h2", { id: "handover-h" }, t(S.lang, "handover.title")),
    h("p", {}, t(S.lang, "handover.help")),
    canClaim ? h("p", {}, t(S.lang, "handover.next", { name: S.names[next] })) : h("p", {}, t(S.lang, "handover.wait")),
    canClaim ? h("button", { type: "button", class: "primary", id: "claim", onclick: () => claim(next) },
      t(S.lang, "handover.claim", { name: S.names[next] })) : ""));
  el.querySelector("#claim")?.focus();
}

/** Cumulative scores per step, from the events' points (the log is complete at the end). */
function scoreSeries(n) {
  const series = [Array(n).fill(0)];
  const cur = Array(n).fill(0);
  for (const st of S.log) {
    let changed = false;
    for (const e of st.events) if (e.points && e.seat !== null) { cur[e.seat] += e.points; changed = true; }
    if (changed || st.events.some((e) => e.kind === "place")) series.push([...cur]);
  }
  return series;
}



function renderEnd() {
  const el = $("end");
  const v = S.view;
  const over = v && v.phase === "end";
  el.hidden = !over;
  el.replaceChildren();
  if (!over) return;
  el.append(...endScreen({ lang: S.lang, view: v, model: S.model, names: S.names, colours: S.model.colours,
    series: scoreSeries(v.players), xLabel: t(S.lang, "chart.step") }),
    h("p", {}, h("button", { type: "button", id: "replay-open", class: "primary", onclick: openReplay }, t(S.lang, "replay.open")),
      " ", h("button", { type: "button", id: "analyse", onclick: runAnalysis,
        disabled: S.analysis.status === "running" || S.analysis.status === "done" }, t(S.lang, "analysis.run"))),
    analysisSection(), chat ? chat.rematchBox(S) : "");
}

// ------------------------------------------------------------------ analysis

/** Ask the server for the finished game's analysis (issue 17); poll its progress until done. */
async function runAnalysis() {
  const url = `/api/games/${encodeURIComponent(S.gameId)}/analysis?lang=${S.lang}`;
  S.analysis = { status: "running", done: 0, total: 0 };
  renderEnd();
  try {
    let res = await api(url, { token, method: "POST" });
    while (res.status === "running") {
      S.analysis = res;
      const bar = $("analysis-progress");
      if (bar) {  // only the bar moves: the rest of the end screen (and the focus) stays
        const pct = res.total ? Math.round((100 * res.done) / res.total) : 0;
        bar.value = pct;
        bar.previousElementSibling.textContent = t(S.lang, "analysis.running", { pct });
      } else renderEnd();
      await new Promise((r) => setTimeout(r, 500));
      res = await api(url, { token });
    }
    S.analysis = res.status === "done" ? { status: "done", data: res.analysis }
      : { status: "failed", why: t(S.lang, "analysis.failed") };
  } catch (err) {
    S.analysis = { status: "failed", why: errorText(err, S.lang) };
  }
  renderEnd();
  if (S.analysis.status === "done") announce(t(S.lang, "analysis.ready"));
}

/** Each seat's win chance after each of its decisions, carried over the record's entries. */
function winSeries(a) {
  const cur = Array(a.players).fill(100 / a.players);
  const rows = [[...cur]];
  for (const d of a.decisions) {
    cur[d.seat - 1] = d.played.win_pct;
    rows.push([...cur]);
  }
  return rows;
}

function analysisSection() {
  const a = S.analysis;
  if (a.status === "none") return "";
  const box = h("section", { id: "analysis", class: "analysis", "aria-labelledby": "analysis-h" },
    h("h3", { id: "analysis-h" }, t(S.lang, "analysis.title")));
  if (a.status === "running") {
    const pct = a.total ? Math.round((100 * a.done) / a.total) : 0;
    box.append(h("p", {}, t(S.lang, "analysis.running", { pct })),
      h("progress", { id: "analysis-progress", max: 100, value: pct, "aria-label": t(S.lang, "analysis.title") }));
    return box;
  }
  if (a.status === "failed") {
    box.append(h("p", { role: "alert" }, a.why));
    return box;
  }
  const data = a.data;
  const n = data.players;
  const rows = data.summaries.map((s) => h("tr", { "data-seat": s.seat - 1 },
    h("th", { scope: "row" }, `${SEAT_LETTERS[s.seat - 1]} ${s.name}`),
    h("td", { class: "accuracy" }, `${s.accuracy.toFixed(1)}`),
    ...["inaccuracy", "mistake", "blunder"].map((k) => h("td", {}, String(s.labels[k] || 0))),
    h("td", {}, `${s.luck_win_pct >= 0 ? "+" : ""}${s.luck_win_pct.toFixed(1)} ± ${s.luck_win_se_pct.toFixed(1)}`)));
  const table = h("table", { class: "breakdown analysis-table" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t(S.lang, "analysis.player")),
      ...["analysis.accuracy", "analysis.inaccuracies", "analysis.mistakes", "analysis.blunders", "analysis.luck"]
        .map((k) => h("th", { scope: "col" }, t(S.lang, k))))),
    h("tbody", {}, ...rows));
  const costly = [];
  for (const s of data.summaries) {
    for (const k of s.costliest) {
      const d = data.decisions[k];
      costly.push(h("li", { "data-label": d.label },
        h("strong", {}, `${S.names[d.seat - 1]}: ${t(S.lang, `analysis.label.${d.label}`)}`), " — ",
        d.explanation ? d.explanation.text : t(S.lang, "analysis.better", { played: d.played.action, best: d.best.action })));
    }
  }
  box.append(h("p", { class: "help" }, t(S.lang, "analysis.help", { worlds: data.worlds })),
    h("div", { class: "end-grid" }, h("div", { class: "analysis-scroll" }, table),
      h("div", { class: "end-chart", id: "win-chart" }, h("h4", {}, t(S.lang, "analysis.chart")),
        scoreChart(winSeries(data), n, t(S.lang, "analysis.move"), S.model.colours))),
    h("h4", {}, t(S.lang, "analysis.costliest")), h("ol", { class: "costliest" }, ...costly));
  return box;
}

/** A figure with its sign (a true minus), one decimal: what the move played changed. */
const signed = (x) => `${x >= 0 ? "+" : "\u2212"}${Math.abs(x).toFixed(1)}`;

/** The analysis of the record entry ``index`` (0-based), if it was a judged decision. */
function decisionAt(index) {
  const a = S.analysis.status === "done" ? S.analysis.data : null;
  return a ? a.decisions.find((d) => d.index === index) : undefined;
}

function renderAll() {
  // Re-rendering replaces elements: give the focus back to the element with the same id.
  const focused = document.activeElement && document.activeElement.id;
  $("status").textContent = statusText() + (S.error ? ` — ${t(S.lang, "error.prefix", { why: S.error })}` : "");
  renderHandover();
  chat?.render(S, !$("handover").hidden);
  renderBoard();
  renderHand();
  renderPrompt();
  renderPlayers();
  $("clock-box").replaceChildren(...clockBox({ lang: S.lang, role: S.role, seat: S.seat, names: S.names, gameId: S.gameId, token,
    onDone: (res, err) => { if (res) S.kinds = res.kinds; S.error = err; renderAll(); } }));
  renderBigClock($("bigclock"), S.lang, S.seat, S.names);
  renderMissions();
  renderLog();
  renderEnd();
  scoreStrip($("scorebar"), S.lang, S.view, S.names, S.model?.colours, S.seat);
  // After the prompt is drawn: it takes height from the board, which changes the hexes' size.
  if (myTurn()) frameTurn(board, [...placeable()], S.version);
  else if (S.view?.phase === "end") fitAtEnd(board);
  document.body.dataset.version = String(S.version);
  document.body.dataset.phase = S.view?.phase ?? "";
  document.body.dataset.turn = myTurn() ? "mine" : "other";
  renderNotify();
  if (focused && document.activeElement?.id !== focused) $(focused)?.focus();
}

/** The tab title, favicon badge, sound and browser notification of this seat's turn, and its
 * notification form (a seat's own link only). */
function renderNotify() {
  const mine = S.role === "seat" && S.seat !== null && S.view?.current_player === S.seat && S.view?.phase !== "end";
  turnSignal({ mine, lang: S.lang, game: S.gameId, seat: S.role === "seat" ? S.seat : null });
  // At the end there are no more turns to be told about: no notification form (issue 26 item 6).
  const over = S.view?.phase === "end";
  $("notify-sec").hidden = S.role !== "seat" || over;
  if (S.role === "seat" && !over) notifyPanel($("notify"), { game: S.gameId, seat: S.seat, token, lang: S.lang });
  if (S.role === "seat" && !over) pushPanel($("push"), { game: S.gameId, seat: S.seat, token, lang: S.lang });
  // The seat's own tools: move it to another device, resign (issue 25 items 2 and 4).
  const tools = seatTools($("seat-tools"), { game: S.gameId, seat: S.seat, role: S.role, token, lang: S.lang,
    human: S.seat !== null && S.kinds[S.seat] === "human", over, resign: () => sock.send(resignFrame()) });
  $("seat-sec").hidden = !tools;
}

// ------------------------------------------------------------------ since your last turn

/** After a seat's sync (issue 26 item 4): the moves others made since this seat's last move
 * (or since this browser last showed it the game), step by step, then the board now. */
let recapOpen = false;
let recapAsked = false;
function recapCheck() {
  if (S.seat === null || !S.view || S.view.phase === "end" || recapOpen) return;
  // Only when the seat is opened (the first sync of this page): a page that stayed open saw
  // every move as it came (a reconnect, a clock's take-back). A hot-seat device's players
  // watched each other's moves on it.
  if (recapAsked || S.role === "table") { markSeen(S.gameId, S.seat, S.version); return; }
  recapAsked = true;
  const found = stepsSince(S.log, S.seat, seenVersion(S.gameId, S.seat));
  markSeen(S.gameId, S.seat, S.version);
  if (!found || !S.model) return;
  recapOpen = true;
  // After this render: the dialog sits over the page, which stays as it is underneath.
  setTimeout(() => openRecap({ lang: S.lang, model: S.model, names: S.names, colours: S.model.colours, view: S.view,
    log: S.log, seat: S.seat, since: found.since, lineOf: eventText,
    onClose: () => { recapOpen = false; markSeen(S.gameId, S.seat, S.version); $("board")?.focus(); } }), 0);
}

// ------------------------------------------------------------------ replay

let replay = null;

async function openReplay() {
  let record = null;
  try { record = await api(`/api/games/${encodeURIComponent(S.gameId)}/record`, { token }); } catch { record = null; }
  // Board positions from the log's placements (recap.js; the neutral tiles are those never placed by a step).
  const frames = framesOf(S.log, S.view, S.model, eventText);
  replay = { frames, i: 0, record };
  const el = $("replay");
  el.hidden = false;
  $("main").inert = true;
  el.replaceChildren(h("div", { class: "card wide" },
    h("h2", { id: "replay-h" }, ""), h("p", { class: "help" }, t(S.lang, "replay.help")),
    h("div", { class: "replay-nav" },
      h("button", { type: "button", onclick: () => stepReplay(-Infinity) }, t(S.lang, "replay.first")),
      h("button", { type: "button", id: "replay-prev", onclick: () => stepReplay(-1) }, t(S.lang, "replay.prev")),
      h("button", { type: "button", id: "replay-next", onclick: () => stepReplay(1) }, t(S.lang, "replay.next")),
      h("button", { type: "button", onclick: () => stepReplay(Infinity) }, t(S.lang, "replay.last")),
      h("button", { type: "button", id: "replay-close", onclick: closeReplay }, t(S.lang, "replay.close"))),
    h("p", { class: "replay-scores" }), h("svg", { svg: true, id: "replay-board", class: "board small-board" }),
    h("ul", { class: "replay-lines" })));
  replay.board = new BoardView($("replay-board"), S.model, S.lang);
  el.addEventListener("keydown", replayKey);
  $("replay-next").focus();
  stepReplay(0);
}

function replayKey(e) {
  if (e.key === "ArrowRight") { e.preventDefault(); stepReplay(1); }
  if (e.key === "ArrowLeft") { e.preventDefault(); stepReplay(-1); }
  // Home/End step to the ends only: left to the browser they also scroll the buttons away.
  if (e.key === "Home") { e.preventDefault(); stepReplay(-Infinity); }
  if (e.key === "End") { e.preventDefault(); stepReplay(Infinity); }
  if (e.key === "Escape") closeReplay();
}

function stepReplay(d) {
  const r = replay;
  r.i = Math.max(0, Math.min(r.frames.length - 1, r.i + (Number.isFinite(d) ? d : d > 0 ? 1e9 : -1e9)));
  const f = r.frames[r.i];
  const el = $("replay");
  el.querySelector("#replay-h").textContent = t(S.lang, "replay.title", { n: r.i, total: r.frames.length - 1 });
  el.querySelector(".replay-scores").textContent = f.scores.map((s, q) => `${SEAT_LETTERS[q]} ${S.names[q]}: ${s}`).join(" · ");
  const view = { ...S.view, spaces: f.spaces, ...f.owners };
  const last = new Map();
  for (const e of f.step?.events || []) if (e.kind === "place") last.set(e.seat, e.data.hex);
  // The complete record names each step's action: step version v is the record's action v.
  const act = f.step && r.record?.actions?.[f.step.version - 1];
  // With an analysis: the move's label, and the better move as a ghost tile.
  const dec = f.step ? decisionAt(f.step.version - 1) : undefined;
  const better = dec && dec.best.action !== dec.played.action && S.model.byLabel.has(dec.best.action)
    ? { label: dec.best.action, seat: dec.seat - 1, code: dec.tile } : null;
  r.board.update(view, { names: S.names, last, ghost: better });
  const head = act ? [h("li", { class: "replay-action" }, `${S.names[act.seat] ?? "—"}: ${act.action}`)] : [];
  if (dec) {
    head.push(h("li", { class: `replay-label label-${dec.label}`, "data-label": dec.label },
      t(S.lang, `analysis.label.${dec.label}`),
      dec.best.action !== dec.played.action
        ? ` — ${t(S.lang, "analysis.better", { played: dec.played.action, best: dec.best.action })}` +
          ` (${t(S.lang, "analysis.loss", { loss: signed(-dec.loss), win: signed(-dec.loss_win_pct), margin: signed(-dec.loss_margin) })})`
        : ""));
  }
  el.querySelector(".replay-lines").replaceChildren(...head, ...f.lines.map((l) => h("li", {}, l)));
  el.dataset.step = String(r.i);
}

function closeReplay() {
  $("replay").hidden = true;
  $("main").inert = false;
  $("replay-open")?.focus();
}

// ------------------------------------------------------------------ start

function connStatus(state, wait) {
  const el = $("conn");
  el.dataset.state = state;
  el.textContent = state === "open" ? t(S.lang, "game.online") : state === "retry"
    ? t(S.lang, "game.reconnecting", { s: Math.ceil(wait / 1000) }) : t(S.lang, "game.connecting");
}

async function init() {
  await loadLanguages();
  S.lang = pickLang();
  setLang(S.lang, false);
  await loadCatalogs(S.lang);
  translateDom(S.lang);
  const sel = $("lang");
  fillLangMenu(sel, S.lang);
  sel.addEventListener("change", async () => {
    S.lang = sel.value; await loadCatalogs(S.lang); translateDom(S.lang);
    buildBoard(); renderRefused(); renderAll(); setLang(S.lang);
  });
  const pref = $("pref-confirm");
  pref.checked = S.prefs.confirm;
  pref.addEventListener("change", () => {
    S.prefs.confirm = pref.checked;
    localStorage.setItem("rebirth.confirm", pref.checked ? "on" : "off");
  });
  let refused = null;
  try { token = await pageToken(S.gameId); } catch (e) { refused = e; }
  if (!token && !refused) {
    // A notification's link (`?seat=N`) opened in a browser that does not hold the seat.
    $("status").textContent = t(S.lang, askedSeat() !== null ? "seat.open_own" : "game.notoken");
    document.body.dataset.ready = "1";
    return;
  }
  const summary = await api(`/api/games/${encodeURIComponent(S.gameId)}`);
  if (!chosenLang() && isLang(summary.lang) && summary.lang !== S.lang) {
    // The game's language, as its creator chose it, unless this user chose one.
    S.lang = summary.lang; sel.value = S.lang; setLang(S.lang, false);
    await loadCatalogs(S.lang); translateDom(S.lang);
  }
  S.names = summary.names || [];
  S.bots = summary.bots || [];
  S.kinds = summary.kinds || [];
  S.online = summary.online || [];
  S.boardData = await api(`/api/boards/${encodeURIComponent(summary.board)}`);
  S.model = new MapModel(S.boardData);
  if (refused) {
    // An invitation another browser took (or the admin replaced): no token, the spectators'
    // public view (issue 26 item 6), what happened in a sentence and the way back to the lobby.
    S.refused = refused.data?.error?.code || "error";
    document.body.dataset.claim = S.refused;
    await watchRefused();
    document.body.dataset.ready = "1";
    return;
  }
  buildBoard();
  S.board = summary.board;
  // A `#t=` link's page is remembered at its first sync, under the slot it then shows (seat.js).
  if (!location.hash.startsWith("#s=link")) rememberGame({ game: S.gameId, url: location.pathname + location.hash, board: summary.board });
  labelsToggle($("pref-labels"), $("board"));
  $("zoom-in").addEventListener("click", () => board.zoom(1.25));
  $("zoom-out").addEventListener("click", () => board.zoom(0.8));
  $("zoom-reset").addEventListener("click", () => board.reset());
  $("board").addEventListener("keydown", onBoardKey);
  $("board").addEventListener("pointerleave", () => { S.hover = null; renderBoard(); });
  chat = new Chat({ gameId: S.gameId, token, send: (m) => sock.send(m), colour });
  chat.mount();
  sock = new GameSocket(S.gameId, token, { onMessage, onStatus: connStatus, getVersion: () => (S.view ? S.version : -1),
    onOpen: () => sock.send({ type: "visibility", visible: !document.hidden }) });
  // The server sends no turn notice while this page is visible (policy "away"): it is told.
  document.addEventListener("visibilitychange", () => sock.send({ type: "visibility", visible: !document.hidden }));
  // Leaving the page says goodbye at once, so the others see the seat go offline.
  window.addEventListener("pagehide", () => sock.close());
  window.rebirthSocket = sock; // the tests close it to check reconnect and resync
  sock.connect();
  startTicker(() => S.lang, renderAll, () => S.seat, () => S.names);
  renderAll();
  document.body.dataset.ready = "1";
}

// ------------------------------------------------------------------ a refused claim

const PUBLIC_POLL_MS = 5000;

/** The refused browser watches the game: GET /api/games/{id}/public (the spectators' view the
 * server already gives the embed, no token) every few seconds, drawn like a spectator's page. */
async function watchRefused() {
  S.role = "spectator";
  buildBoard();
  labelsToggle($("pref-labels"), $("board"));
  $("zoom-in").addEventListener("click", () => board.zoom(1.25));
  $("zoom-out").addEventListener("click", () => board.zoom(0.8));
  $("zoom-reset").addEventListener("click", () => board.reset());
  renderRefused();
  const poll = async () => {
    try {
      const pos = await api(`/api/games/${encodeURIComponent(S.gameId)}/public`);
      S.view = pos.view; S.version = pos.version; S.names = pos.names || S.names;
      S.refusedGone = false;
      if (!pos.over) setTimeout(poll, PUBLIC_POLL_MS);
    } catch {
      S.refusedGone = true;
    }
    renderRefused();
    renderAll();
  };
  await poll();
  startTicker(() => S.lang, renderAll, () => null, () => S.names);
}

/** The refused browser's notice: why there is no seat here, and a link to the lobby. */
function renderRefused() {
  const el = $("refused");
  el.hidden = !S.refused;
  if (!S.refused) return;
  const known = ["claimed", "code_used", "code_expired"];
  const key = S.refusedGone ? "claim.refused.gone" : `claim.refused.${known.includes(S.refused) ? S.refused : "other"}`;
  el.replaceChildren(h("p", {}, t(S.lang, key)),
    h("a", { class: "button primary", id: "to-lobby", href: "/" }, t(S.lang, "claim.lobby")));
}

function buildBoard() {
  if (!S.model) return;
  $("board").setAttribute("aria-label", txt(S.model.map.name, S.lang));
  board = new BoardView($("board"), S.model, S.lang, { onHover: hoverSpace, onPick: pickSpace });
  renderBoard();
}

init().catch((e) => { $("status").textContent = String(e.message || e); });
