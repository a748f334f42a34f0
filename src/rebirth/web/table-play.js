// The table companion's play screen (docs/table.md): record a physical game entry by entry.
// The server's engine checks and scores every entry; this page only offers what the server
// says is legal and renders the engine's events with the message catalogs.
import { BoardView, MapModel } from "./board.js";
import { SEAT_LETTERS, api, h, render, t, tn, txt } from "./common.js";
import { announce, cardOf, endScreen, errorText, myTables, publicMission, rememberTable, turnStatus } from "./kit.js";
import { fitAtEnd, frameTurn, resetWhenWide } from "./phone.js";

const $ = (id) => document.getElementById(id);
let S = null; // the page's state, given by initPlay

const names = () => S.data?.names || [];
const who = (q) => `${names()[q] ?? ""} (${SEAT_LETTERS[q]})`;

async function load() {
  S.data = await api(`/api/tables/${S.id}`, { token: S.token });
}

async function enter(text) {
  if (S.busy) return;
  S.busy = true;
  S.error = "";
  try {
    S.data = await api(`/api/tables/${S.id}/entries`, { method: "POST", token: S.token,
      body: { entry: text, version: S.data.version, seat: S.data.asked ? undefined : S.data.seat } });
    S.picked = null;
    announce(whyLines().join(" "));
  } catch (err) {
    S.error = errorText(err, S.lang);
    if (err?.data?.error?.code === "conflict") await load();
    announce(S.error);
  } finally {
    S.busy = false;
    renderAll();
    // The button that was pressed is gone after the re-render: keep the keyboard on the board.
    if (!document.activeElement || document.activeElement === document.body) $("board").focus({ preventScroll: true });
  }
}

async function undo(count) {
  if (S.busy) return;
  S.busy = true;
  S.error = "";
  try {
    S.data = await api(`/api/tables/${S.id}/undo`, { method: "POST", token: S.token,
      body: { count, version: S.data.version } });
    S.picked = null;
    announce(t(S.lang, "table.undone", { n: count }));
  } catch (err) {
    S.error = errorText(err, S.lang);
    if (err?.data?.error?.code === "conflict") await load();
  } finally {
    S.busy = false;
    renderAll();
  }
}

async function exportRecord() {
  try {
    const rec = await api(`/api/tables/${S.id}/record`, { token: S.token });
    const a = $("export-link");
    a.href = URL.createObjectURL(new Blob([JSON.stringify(rec, null, 1)], { type: "application/json" }));
    a.download = `rebirth-table-${S.id}.json`;
    a.click();
  } catch (err) {
    S.error = errorText(err, S.lang);
    renderAll();
  }
}

function pick(label) {
  const d = S.data;
  if (!d || d.over || S.busy) return;
  S.error = "";
  if (d.asked) {
    S.error = t(S.lang, "table.answer.first", { what: txt(d.asked, S.lang) });
  } else if (!d.legal.hexes[label]) {
    S.error = t(S.lang, d.view.spaces[S.model.byLabel.get(label)]?.[0] >= 0 ? "table.occupied" : "table.notlegal",
      { hex: label, name: who(d.seat) });
    S.picked = null;
  } else {
    S.picked = label;
    S.cursor = label;
  }
  renderAll();
  if (S.picked) {
    $("picker").querySelector("button")?.focus({ preventScroll: true });
    keepInSight(S.picked);
  }
}

/** The picker sheet may cover the tapped hex: pan the board (never the page) to show it. */
function keepInSight(label) {
  const hex = document.querySelector(`#board g.space[data-label='${label}'] polygon.hex`);
  const sheet = $("picker").getBoundingClientRect();
  const box = hex?.getBoundingClientRect();
  if (!box || box.bottom + 8 <= sheet.top) return;
  const [, , perPx] = S.board.toBoard(0, 0);
  const [x, y, w, hh] = S.board.vb;
  S.board.setViewBox([x, y + (box.bottom + 8 - sheet.top) * perPx, w, hh]);
}

function tokenName(id) {
  const tok = (S.boardData?.tokens?.tokens || []).find((x) => x.id === id);
  return tok ? txt(tok.name, S.lang) : id;
}

const card = (id) => cardOf(S.boardData, id);

function outcomeLabel(o) {
  // o: the server's entry facts ({kind, token | tile | card, text}); no text is split here.
  if (o.kind === "token") return [h("b", {}, tokenName(o.token)), h("span", { class: "small" }, ` ${o.token}`)];
  if (o.kind === "reveal") return [h("b", {}, t(S.lang, `tile.${o.tile}`)), h("span", { class: "small" }, ` ${o.tile}`)];
  if (o.kind === "card") {
    const c = card(o.card);
    return [h("b", {}, o.card), " ", h("span", { class: "small" }, txt(c?.text, S.lang))];
  }
  return [o.text];
}

function entryButton(text, label, cls = "") {
  return h("button", { type: "button", class: `big ${cls}`, "data-entry": text, onclick: () => enter(text) }, ...label);
}

function statusText() {
  const d = S.data;
  if (!d) return t(S.lang, "game.loading");
  if (d.over) return t(S.lang, "status.over");
  if (d.asked) return t(S.lang, "table.status.asked", { what: txt(d.asked, S.lang) });
  return turnStatus(S.lang, d.view.phase, who(d.seat));
}

function renderPrompt() {
  const d = S.data;
  const el = $("prompt");
  el.replaceChildren();
  el.dataset.seat = d.seat;
  el.style.setProperty("--c", d.colours[d.seat] || "#ccc");
  if (d.over) {
    el.append(h("p", { class: "t-ask" }, t(S.lang, "table.prompt.over")));
    return;
  }
  if (d.asked) {
    el.append(h("p", { class: "t-ask" }, t(S.lang, "table.prompt.asked", { what: txt(d.asked, S.lang) })),
      h("div", { class: "t-choices" }, ...d.legal.outcomes.map((o) => entryButton(o.text, outcomeLabel(o), "outcome"))));
    return;
  }
  if (d.legal.marks.length) {
    el.append(h("p", { class: "t-ask" }, t(S.lang, "table.prompt.mark", { name: who(d.seat) })),
      h("div", { class: "t-choices" }, ...d.legal.marks.map((m) => {
        const id = m.mission;
        return entryButton(m.text, [h("b", {}, t(S.lang, "mark.button", { id })), " ",
          h("span", { class: "small" }, txt(card(id)?.text, S.lang))], "outcome");
      })));
    return;
  }
  const extra = d.view.phase === "extra";
  el.append(h("p", { class: "t-ask" }, h("span", { class: "swatch small", style: `background:${d.colours[d.seat]}` },
    SEAT_LETTERS[d.seat]), " ", extra
    ? t(S.lang, "table.prompt.extra", { name: who(d.seat), tile: t(S.lang, `tile.${d.view.extra_tile}`) })
    : t(S.lang, "table.prompt.place", { name: who(d.seat) })));
  if (d.legal.discards.length) {
    el.append(h("div", { class: "t-choices" }, ...d.legal.discards.map((x) => entryButton(x.text,
      [t(S.lang, "table.discard", { tile: t(S.lang, `tile.${x.tile}`) })], "discard"))));
  }
}

function renderPicker() {
  const d = S.data;
  const el = $("picker");
  const tiles = S.picked && d.legal.hexes[S.picked];
  el.hidden = !tiles;
  el.replaceChildren();
  if (!tiles) return;
  const seat = d.seat;
  el.append(h("p", { class: "t-ask" }, t(S.lang, "table.picker", { hex: S.picked, name: who(seat) })),
    h("div", { class: "t-tiles" }, ...tiles.map((code) => {
      const left = d.remaining[seat][code];
      return h("button", { type: "button", class: "big tile-btn", "data-entry": `${code}@${S.picked}`,
        style: `--c:${d.colours[seat]}`, onclick: () => enter(`${code}@${S.picked}`) },
      h("span", { class: "t-code" }, code), h("span", {}, t(S.lang, `tile.${code}`)),
      h("span", { class: "small" }, t(S.lang, "table.left", { n: left })));
    }), h("button", { type: "button", class: "big", id: "picker-cancel",
      onclick: () => { S.picked = null; renderAll(); $("board").focus({ preventScroll: true }); } }, t(S.lang, "table.cancel"))));
  // Hexes are small on a phone: the open neighbours are one tap away if the finger missed.
  const sp = S.model.spaces[S.model.byLabel.get(S.picked)];
  const near = sp.neighbours.map((i) => S.model.spaces[i].label).filter((l) => d.legal.hexes[l]).sort();
  if (near.length) {
    el.append(h("p", { class: "t-near" }, h("span", { class: "small" }, t(S.lang, "table.near")), " ",
      ...near.map((l) => h("button", { type: "button", class: "near", "data-hex": l, onclick: () => pick(l) }, l))));
  }
}

function whyLines() {
  const d = S.data;
  if (!d?.last?.entry) return [];
  const out = [];
  for (const e of d.last.events) {
    let s = render(e.key, e.args, S.lang, names());
    if (e.points && e.seat !== null) s += ` (+${e.points})`;
    out.push(s);
  }
  return out;
}

/** The last entry in words (issue 26 item 6): "Ailsa (A) placed Energy farm on E9", from the
 * server's facts of the entry (never by splitting its text), its wire form after it, small. */
function entryLine(d) {
  const words = entryWords(d.last.fact, d.entries[d.entries.length - 1]?.seat);
  return h("p", { class: "t-entry" }, words || d.last.entry, words ? h("span", { class: "small" }, " ", h("code", {}, d.last.entry)) : "");
}

/** An entry's facts in words ("" for facts the page does not know). */
function entryWords(f, seat) {
  const name = seat === null || seat === undefined ? "" : who(seat);
  if (f?.kind === "place" || f?.kind === "discard" || f?.kind === "reveal") {
    return t(S.lang, `table.entry.${f.kind}`, { name, tile: t(S.lang, `tile.${f.tile}`), hex: f.hex });
  }
  if (f?.kind === "mark") return t(S.lang, "table.entry.mark", { name, mission: f.mission });
  if (f?.kind === "token") return t(S.lang, "table.entry.token", { token: tokenName(f.token) });
  if (f?.kind === "card") return t(S.lang, "table.entry.card", { card: f.card });
  return "";
}

function renderWhy() {
  const d = S.data;
  const el = $("why");
  el.replaceChildren();
  if (!d.last.entry) {
    el.append(h("p", { class: "small" }, t(S.lang, "table.why.none")));
    return;
  }
  const gained = Array(d.players).fill(0);
  for (const e of d.last.events) if (e.points && e.seat !== null && e.seat < d.players) gained[e.seat] += e.points;
  if (!d.last.events.length && d.asked) {
    el.append(entryLine(d),
      h("p", { class: "small" }, t(S.lang, "table.why.pending", { what: txt(d.asked, S.lang) })));
    return;
  }
  el.append(entryLine(d),
    h("ul", {}, ...d.last.events.map((e) => h("li", { "data-kind": e.kind },
      render(e.key, e.args, S.lang, names()), " ", h("span", { class: "rule" }, e.rule),
      e.points ? h("span", { class: "pts" }, ` +${e.points}`) : ""))),
    ...gained.map((g, q) => (g ? h("p", { class: "t-gain" }, tn(S.lang, "table.gain", g, { name: who(q) })) : "")));
}

function renderScores() {
  const d = S.data;
  const ul = $("scores");
  ul.replaceChildren(...Array.from({ length: d.players }, (_, q) => {
    const rem = d.remaining[q];
    return h("li", { class: `t-score${!d.over && d.seat === q ? " current" : ""}`, "data-seat": q },
      h("span", { class: "swatch", style: `background:${d.colours[q]}` }, SEAT_LETTERS[q]),
      h("span", { class: "pname" }, names()[q]),
      h("span", { class: "score", "data-seat": q }, d.view.scores[q]),
      h("span", { class: "small t-left" }, t(S.lang, "table.supply", { n: d.supply_left[q] }), " · ",
        S.boardData.facts.tiles.map((c) => `${c} ${rem[c]}`).join(" · ")));
  }));
}

function renderScorebar() {
  // On a phone the scores list is below the board: a compact strip keeps them in sight.
  const d = S.data;
  $("scorebar").replaceChildren(...Array.from({ length: d.players }, (_, q) => h("span",
    { class: `t-chip${!d.over && d.seat === q ? " current" : ""}` },
    h("span", { class: "swatch small", style: `background:${d.colours[q]}` }, SEAT_LETTERS[q]),
    ` ${names()[q]} `, h("b", {}, d.view.scores[q]))));
}

function renderPublic() {
  const d = S.data;
  const v = d.view;
  const ul = $("public");
  $("public-sec").hidden = !(v.display || []).length;
  ul.replaceChildren(...(v.display || []).map((id) => publicMission(S.lang, S.boardData, v, id, who)));
}

function renderLog() {
  const d = S.data;
  const ol = $("log");
  ol.replaceChildren(...d.entries.map((e, i) => {
    const words = entryWords(e.fact, e.seat);
    const code = e.chance || e.action;
    return h("li", {}, `${i + 1}. `, words ? [words, " ", h("code", { class: "small" }, code)]
      : e.chance ? h("i", {}, e.chance) : `${who(e.seat)}: ${e.action}`);
  }));
  ol.scrollTop = ol.scrollHeight;
}

function renderEnd() {
  const d = S.data;
  const el = $("end");
  el.hidden = !d.over;
  el.replaceChildren();
  if (!d.over) return;
  const n = d.players;
  el.append(...endScreen({ lang: S.lang, view: d.view, model: S.model, names: names(), colours: d.colours,
    series: [Array(n).fill(0), ...d.series], xLabel: t(S.lang, "table.chart.x"), tableClass: "t-scroll" }));
}

function renderAll() {
  const d = S.data;
  document.body.dataset.version = d ? d.version : "";
  document.body.dataset.phase = d ? (d.over ? "end" : d.view.phase) : "";
  document.body.dataset.busy = S.busy ? "1" : "0";
  $("status").textContent = statusText();
  $("error").textContent = S.error ? t(S.lang, "error.prefix", { why: S.error }) : "";
  if (!d) return;
  renderPrompt();
  renderPicker();
  const legal = new Set(d.asked || d.over ? [] : Object.keys(d.legal.hexes));
  const last = new Map();
  if (d.last_place) last.set(d.last_place.seat, d.last_place.hex);
  S.board.update(d.view, { legal, last, cursor: S.picked || S.cursor, names: names() });
  // On a phone the board is framed around the spaces open to the player (each hex at least
  // 44 CSS px), once per entry, as the game page frames a turn (issue 26 item 6).
  if (d.over) fitAtEnd(S.board); else frameTurn(S.board, [...legal], d.version);
  renderWhy();
  renderScores();
  renderScorebar();
  renderPublic();
  renderLog();
  renderEnd();
  $("undo1").disabled = !d.version;
  $("undo").disabled = !d.version;
}

function onBoardKey(e) {
  const d = S.data;
  if (!d) return;
  const labels = Object.keys(d.legal.hexes).sort((a, b) => {
    const [sa, sb] = [S.model.spaces[S.model.byLabel.get(a)], S.model.spaces[S.model.byLabel.get(b)]];
    return sa.y - sb.y || sa.x - sb.x;
  });
  if (!labels.length) return;
  const i = labels.indexOf(S.cursor);
  if (["ArrowRight", "ArrowDown"].includes(e.key)) S.cursor = labels[(i + 1) % labels.length];
  else if (["ArrowLeft", "ArrowUp"].includes(e.key)) S.cursor = labels[(i - 1 + labels.length) % labels.length];
  else if (e.key === "Enter" && S.cursor) { e.preventDefault(); pick(S.cursor); return; }
  else if (e.key === "Escape") { S.picked = null; S.cursor = null; }
  else return;
  e.preventDefault();
  renderAll();
  if (S.cursor) announce(S.cursor);
}

/** Show the play screen of table `state.id`; `state` is the page's state (window.tableState). */
export async function initPlay(state) {
  S = state;
  $("play").hidden = false;
  const frag = new URLSearchParams(location.hash.slice(1));
  S.token = frag.get("t") || myTables().find((g) => g.table === S.id)?.token || null;
  if (frag.get("t")) {
    // A link with the token in it: kept on this device and gone from the address bar at once
    // (issue 26 item 6); a reload finds it in this device's table games.
    rememberTable({ table: S.id, token: S.token });
    history.replaceState(null, "", location.pathname + location.search);
  }
  if (!S.token) {
    $("status").textContent = t(S.lang, "table.notoken");
    return;
  }
  try {
    await load();
  } catch (err) {
    $("status").textContent = errorText(err, S.lang);
    return;
  }
  rememberTable({ table: S.id, token: S.token, board: S.data.board, names: S.data.names });
  S.boardData = await api(`/api/boards/${S.data.board}`);
  S.model = new MapModel(S.boardData);
  // The board paints the seats in the colours chosen for this table.
  S.board = new BoardView($("board"), S.model, S.lang, { onPick: pick, colours: S.data.colours });
  resetWhenWide(S.board);
  $("board").addEventListener("keydown", onBoardKey);
  $("zoom-in").addEventListener("click", () => S.board.zoom(1.3));
  $("zoom-out").addEventListener("click", () => S.board.zoom(1 / 1.3));
  $("zoom-reset").addEventListener("click", () => S.board.reset());
  $("undo1").addEventListener("click", () => undo(1));
  $("undo").addEventListener("click", () => undo(Math.max(1, Number($("undo-n").value) || 1)));
  $("export").addEventListener("click", exportRecord);
  $("typed").addEventListener("submit", (e) => {
    e.preventDefault();
    const v = $("typed-entry").value.trim();
    if (v) enter(v).then(() => { if (!S.error) $("typed-entry").value = ""; });
  });
  renderAll();
}

/** The language changed: redraw the board and everything in it. */
export function relangPlay() {
  if (!S.board) return;
  S.board.lang = S.lang;
  S.board.draw();
  renderAll();
}
