// The table companion (docs/table.md): record a physical game entry by entry. The server's
// engine checks and scores every entry; this page only offers what the server says is legal
// and renders the engine's events with the message catalogs.
import { BoardView, MapModel } from "./board.js";
import {
  SEAT_COLOURS, SEAT_LETTERS, api, h, loadCatalogs, pickLang, render, scoreChart, setLang, t, tiebreakText,
  translateDom, txt,
} from "./common.js";

const COLOURS = ["#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#F0E442", "#D55E00", "#0072B2", "#999999"];
const TILES = ["E", "F", "S1", "S2", "S3", "S4"];
const MINE = "rebirth.tables";

const S = { lang: "en", id: null, token: null, data: null, model: null, board: null, boardData: null,
  picked: null, cursor: null, error: "", busy: false, setupBoard: null, variants: [] };
window.tableState = S;

const $ = (id) => document.getElementById(id);

function announce(text) {
  $("live").textContent = "";
  setTimeout(() => { $("live").textContent = text; }, 20);
}

function errText(err) {
  const m = err?.data?.error?.message;
  return m ? txt(m, S.lang) : String(err?.message || err);
}

// ------------------------------------------------------------------ my games on this device

function myTables() {
  try { return JSON.parse(localStorage.getItem(MINE) || "[]"); } catch { return []; }
}

function remember(entry) {
  const list = myTables().filter((g) => g.table !== entry.table);
  list.unshift({ ...entry, when: Date.now() });
  localStorage.setItem(MINE, JSON.stringify(list.slice(0, 30)));
}

// ------------------------------------------------------------------ set-up

async function setupBoardData(board) {
  if (!S.setupBoard || S.setupBoard.board !== board) S.setupBoard = await api(`/api/boards/${board}`);
  return S.setupBoard;
}

function seatRows() {
  const n = Number($("s-players").value);
  const box = $("s-seats");
  const old = [...box.querySelectorAll(".t-seat")].map((row, i) => ({
    name: $(`s-name-${i}`).value, colour: $(`s-colour-${i}`).value }));
  box.replaceChildren();
  for (let i = 0; i < n; i++) {
    const colour = old[i]?.colour || COLOURS[i];
    const sel = h("select", { id: `s-colour-${i}`, "aria-label": t(S.lang, "table.colour.of", { n: i + 1 }) },
      ...COLOURS.map((c, k) => h("option", { value: c, selected: c === colour }, t(S.lang, `table.colour.${k}`))));
    const sw = h("span", { class: "swatch", style: `background:${colour}` }, SEAT_LETTERS[i]);
    sel.addEventListener("change", () => { sw.style.background = sel.value; });
    box.append(h("div", { class: "t-seat" }, sw,
      h("label", {}, h("span", { class: "sr-only" }, t(S.lang, "lobby.name")),
        h("input", { id: `s-name-${i}`, maxlength: 40, value: old[i]?.name ?? "",
          placeholder: t(S.lang, "table.seat.n", { n: i + 1 }), "aria-label": t(S.lang, "table.name.of", { n: i + 1 }) })),
      sel));
  }
  const start = $("s-start");
  const was = Number(start.value || 0);
  start.replaceChildren(...Array.from({ length: n }, (_, i) =>
    h("option", { value: i, selected: i === was }, t(S.lang, "table.seat.n", { n: i + 1 }))));
}

async function setupBoardChanged() {
  const board = $("s-board").value;
  const data = await setupBoardData(board);
  const vbox = $("s-variants");
  vbox.replaceChildren(...S.variants.filter((v) => v.boards.includes(board)).map((v) =>
    h("label", { class: "variant" }, h("input", { type: "checkbox", value: v.name, class: "s-variant" }),
      " ", h("b", {}, v.name), " — ", txt(v.text, S.lang))));
  $("s-variants-box").hidden = !vbox.children.length;
  const ireland = board === "ireland";
  $("s-display-box").hidden = !ireland;
  const dbox = $("s-display");
  dbox.replaceChildren();
  if (ireland) {
    for (const c of data.missions?.cards || []) {
      const cb = h("input", { type: "checkbox", id: `s-card-${c.id}`, value: c.id, class: "s-card", onchange: displayCount });
      dbox.append(h("label", { class: "t-card" }, cb, h("span", {}, h("b", {}, c.id), " ", txt(c.text, S.lang))));
    }
  }
  const tbox = $("s-towers");
  tbox.replaceChildren();
  $("s-towers-box").hidden = !ireland;
  if (ireland) {
    const towers = data.map.structures.filter((x) => x.kind === "tower");
    towers.forEach((tw, i) => {
      tbox.append(h("label", {}, h("span", {}, txt(tw.name, S.lang)),
        h("select", { id: `s-tower-${i}`, class: "s-tower" }, h("option", { value: "" }, t(S.lang, "table.tower.later")),
          ...(data.tokens?.tokens || []).map((tok) => h("option", { value: tok.id }, `${txt(tok.name, S.lang)} (${tok.id})`)))));
    });
  }
  displayCount();
}

function displayCount() {
  const k = document.querySelectorAll(".s-card:checked").length;
  $("s-display-count").textContent = t(S.lang, "table.display.count", { k });
}

async function createTable(e) {
  e.preventDefault();
  const n = Number($("s-players").value);
  const body = {
    board: $("s-board").value, players: n, lang: S.lang,
    names: Array.from({ length: n }, (_, i) => $(`s-name-${i}`).value.trim() || t(S.lang, "table.seat.n", { n: i + 1 })),
    colours: Array.from({ length: n }, (_, i) => $(`s-colour-${i}`).value),
    start_player: Number($("s-start").value),
    variants: [...document.querySelectorAll(".s-variant:checked")].map((x) => x.value),
  };
  if (body.board === "ireland") {
    body.display = [...document.querySelectorAll(".s-card:checked")].map((x) => x.value);
    const toks = [...document.querySelectorAll(".s-tower")].map((x) => x.value || null);
    if (toks.some((x) => x)) body.tower_tokens = toks;
  }
  $("s-error").textContent = "";
  try {
    const res = await api("/api/tables", { method: "POST", body });
    remember({ table: res.table, token: res.token, board: body.board, names: body.names });
    location.assign(res.url);
  } catch (err) {
    $("s-error").textContent = t(S.lang, "table.error", { why: errText(err) });
  }
}

function renderMine() {
  const ul = $("mine");
  const list = myTables();
  ul.replaceChildren(...(list.length ? list.map((g) => h("li", {},
    h("a", { href: `/table/${g.table}#t=${g.token}` }, `${t(S.lang, `board.${g.board}`)}: ${(g.names || []).join(", ")}`),
    " ", h("span", { class: "small" }, new Date(g.when).toLocaleString(S.lang))))
    : [h("li", {}, t(S.lang, "table.mine.none"))]));
}

async function initSetup() {
  $("setup").hidden = false;
  $("status").textContent = t(S.lang, "table.setup");
  S.variants = (await api("/api/variants")).variants;
  seatRows();
  await setupBoardChanged();
  $("s-players").addEventListener("change", seatRows);
  $("s-board").addEventListener("change", setupBoardChanged);
  $("setup-form").addEventListener("submit", createTable);
  renderMine();
}

// ------------------------------------------------------------------ playing

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
    S.error = errText(err);
    if (err?.data?.error?.code === "conflict") await load();
    announce(S.error);
  } finally {
    S.busy = false;
    renderAll();
    // The button that was pressed is gone after the re-render: keep the keyboard on the board.
    if (!document.activeElement || document.activeElement === document.body) $("board").focus();
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
    S.error = errText(err);
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
    S.error = errText(err);
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
  if (S.picked) $("picker").querySelector("button")?.focus();
}

function tokenName(id) {
  const tok = (S.boardData?.tokens?.tokens || []).find((x) => x.id === id);
  return tok ? txt(tok.name, S.lang) : id;
}

function cardOf(id) {
  return (S.boardData?.missions?.cards || []).find((c) => c.id.toUpperCase() === String(id).toUpperCase());
}

function outcomeLabel(text) {
  const [kind, arg] = text.split(" ");
  if (kind === "token") return [h("b", {}, tokenName(arg)), h("span", { class: "small" }, ` ${arg}`)];
  if (kind === "reveal") return [h("b", {}, t(S.lang, `tile.${arg}`)), h("span", { class: "small" }, ` ${arg}`)];
  if (kind === "card") {
    const c = cardOf(arg);
    return [h("b", {}, arg), " ", h("span", { class: "small" }, txt(c?.text, S.lang))];
  }
  return [text];
}

function entryButton(text, label, cls = "") {
  return h("button", { type: "button", class: `big ${cls}`, "data-entry": text, onclick: () => enter(text) }, ...label);
}

function statusText() {
  const d = S.data;
  if (!d) return t(S.lang, "game.loading");
  if (d.over) return t(S.lang, "status.over");
  if (d.asked) return t(S.lang, "table.status.asked", { what: txt(d.asked, S.lang) });
  const name = who(d.seat);
  if (d.view.phase === "mark") return t(S.lang, "status.mark", { name });
  if (d.view.phase === "extra") return t(S.lang, "status.extra", { name });
  return t(S.lang, "status.places", { name });
}

function renderPrompt() {
  const d = S.data;
  const el = $("prompt");
  el.replaceChildren();
  el.dataset.seat = d.seat;
  el.style.setProperty("--c", SEAT_COLOURS[d.seat] || "#ccc");
  if (d.over) {
    el.append(h("p", { class: "t-ask" }, t(S.lang, "table.prompt.over")));
    return;
  }
  if (d.asked) {
    el.append(h("p", { class: "t-ask" }, t(S.lang, "table.prompt.asked", { what: txt(d.asked, S.lang) })),
      h("div", { class: "t-choices" }, ...d.legal.outcomes.map((o) => entryButton(o, outcomeLabel(o), "outcome"))));
    return;
  }
  if (d.legal.marks.length) {
    el.append(h("p", { class: "t-ask" }, t(S.lang, "table.prompt.mark", { name: who(d.seat) })),
      h("div", { class: "t-choices" }, ...d.legal.marks.map((m) => {
        const id = m.split(" ")[1];
        return entryButton(m, [h("b", {}, t(S.lang, "mark.button", { id })), " ",
          h("span", { class: "small" }, txt(cardOf(id)?.text, S.lang))], "outcome");
      })));
    return;
  }
  const extra = d.view.phase === "extra";
  el.append(h("p", { class: "t-ask" }, h("span", { class: "swatch small", style: `background:${SEAT_COLOURS[d.seat]}` },
    SEAT_LETTERS[d.seat]), " ", extra
    ? t(S.lang, "table.prompt.extra", { name: who(d.seat), tile: t(S.lang, `tile.${d.view.extra_tile}`) })
    : t(S.lang, "table.prompt.place", { name: who(d.seat) })));
  if (d.legal.discards.length) {
    el.append(h("div", { class: "t-choices" }, ...d.legal.discards.map((x) => entryButton(x,
      [t(S.lang, "table.discard", { tile: t(S.lang, `tile.${x.split(" ")[1]}`) })], "discard"))));
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
        style: `--c:${SEAT_COLOURS[seat]}`, onclick: () => enter(`${code}@${S.picked}`) },
      h("span", { class: "t-code" }, code), h("span", {}, t(S.lang, `tile.${code}`)),
      h("span", { class: "small" }, t(S.lang, "table.left", { n: left })));
    }), h("button", { type: "button", class: "big", id: "picker-cancel",
      onclick: () => { S.picked = null; renderAll(); $("board").focus(); } }, t(S.lang, "table.cancel"))));
  // Hexes are small on a phone: the open neighbours are one tap away if the finger missed.
  const sp = S.model.spaces[S.model.byLabel.get(S.picked)];
  const near = [[1, 0], [-1, 0], [0, 1], [0, -1], [1, -1], [-1, 1]]
    .map(([a, b]) => S.model.byHex.get(`${sp.q + a},${sp.r + b}`))
    .filter((i) => i !== undefined).map((i) => S.model.spaces[i].label).filter((l) => d.legal.hexes[l]).sort();
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
    el.append(h("p", { class: "t-entry" }, h("code", {}, d.last.entry)),
      h("p", { class: "small" }, t(S.lang, "table.why.pending", { what: txt(d.asked, S.lang) })));
    return;
  }
  el.append(h("p", { class: "t-entry" }, h("code", {}, d.last.entry)),
    h("ul", {}, ...d.last.events.map((e) => h("li", { "data-kind": e.kind },
      render(e.key, e.args, S.lang, names()), " ", h("span", { class: "rule" }, e.rule),
      e.points ? h("span", { class: "pts" }, ` +${e.points}`) : ""))),
    ...gained.map((g, q) => (g ? h("p", { class: "t-gain" }, t(S.lang, "table.gain", { name: who(q), n: g })) : "")));
}

function renderScores() {
  const d = S.data;
  const ul = $("scores");
  ul.replaceChildren(...Array.from({ length: d.players }, (_, q) => {
    const rem = d.remaining[q];
    return h("li", { class: `t-score${!d.over && d.seat === q ? " current" : ""}`, "data-seat": q },
      h("span", { class: "swatch", style: `background:${SEAT_COLOURS[q]}` }, SEAT_LETTERS[q]),
      h("span", { class: "pname" }, names()[q]),
      h("span", { class: "score", "data-seat": q }, d.view.scores[q]),
      h("span", { class: "small t-left" }, t(S.lang, "table.supply", { n: d.supply_left[q] }), " · ",
        TILES.map((c) => `${c} ${rem[c]}`).join(" · ")));
  }));
}

function renderScorebar() {
  // On a phone the scores list is below the board: a compact strip keeps them in sight.
  const d = S.data;
  $("scorebar").replaceChildren(...Array.from({ length: d.players }, (_, q) => h("span",
    { class: `t-chip${!d.over && d.seat === q ? " current" : ""}` },
    h("span", { class: "swatch small", style: `background:${SEAT_COLOURS[q]}` }, SEAT_LETTERS[q]),
    ` ${names()[q]} `, h("b", {}, d.view.scores[q]))));
}

function renderPublic() {
  const d = S.data;
  const v = d.view;
  const ul = $("public");
  $("public-sec").hidden = !(v.display || []).length;
  ul.replaceChildren(...(v.display || []).map((id) => {
    const c = cardOf(id);
    const ful = (v.fulfilled?.[id] || []).map(who);
    const marks = (v.marks || []).map((m, q) => (m.includes(id) ? q : -1)).filter((q) => q >= 0);
    return h("li", { class: "mission", "data-id": id }, h("b", {}, id), " ",
      c?.values ? h("span", { class: "small" }, t(S.lang, "missions.first", { a: c.values[0], b: c.values[1] })) : "",
      h("div", {}, txt(c?.text, S.lang)),
      h("div", { class: "small" }, ful.length ? t(S.lang, "missions.fulfilled", { names: ful.join(", ") }) : t(S.lang, "missions.open")),
      marks.length ? h("div", { class: "marks" }, t(S.lang, "missions.marks", { names: marks.map((q) => `×2 ${who(q)}`).join(", ") })) : "");
  }));
}

function renderLog() {
  const d = S.data;
  const ol = $("log");
  ol.replaceChildren(...d.entries.map((e, i) => h("li", {}, `${i + 1}. `,
    e.chance ? h("i", {}, e.chance) : `${who(e.seat)}: ${e.action}`)));
  ol.scrollTop = ol.scrollHeight;
}



function renderEnd() {
  const d = S.data;
  const el = $("end");
  el.hidden = !d.over;
  el.replaceChildren();
  if (!d.over) return;
  const v = d.view;
  const n = d.players;
  const cats = Object.keys(v.breakdown[0] || {});
  const winners = v.winners.map(who).join(", ");
  el.append(h("h2", { id: "end-h" }, t(S.lang, "end.title")),
    h("p", { class: "winner" }, t(S.lang, v.winners.length > 1 ? "end.shared" : "end.winner", { names: winners })),
    tiebreakText(v, names(), S.lang) ? h("p", { class: "tiebreak" }, tiebreakText(v, names(), S.lang)) : "",
    h("div", { class: "end-grid" }, h("div", { class: "t-scroll" }, h("table", { class: "breakdown" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t(S.lang, "end.category")),
        ...Array.from({ length: n }, (_, q) => h("th", { scope: "col" },
          h("span", { class: "swatch small", style: `background:${SEAT_COLOURS[q]}` }, SEAT_LETTERS[q]), " ", names()[q])))),
      h("tbody", {}, ...cats.map((c) => h("tr", { "data-cat": c }, h("th", { scope: "row" }, t(S.lang, `cat.${c}`)),
        ...Array.from({ length: n }, (_, q) => h("td", {}, v.breakdown[q][c])))),
      h("tr", { class: "total" }, h("th", { scope: "row" }, t(S.lang, "end.total")),
        ...Array.from({ length: n }, (_, q) => h("td", { class: "final-score", "data-seat": q }, v.scores[q])))))),
      h("div", { class: "end-chart" }, h("h3", { id: "chart-h" }, t(S.lang, "chart.title")), scoreChart([Array(n).fill(0), ...d.series], n, t(S.lang, "table.chart.x")))));
}

function renderAll() {
  const d = S.data;
  document.body.dataset.version = d ? d.version : "";
  document.body.dataset.phase = d ? (d.over ? "end" : d.view.phase) : "";
  document.body.dataset.busy = S.busy ? "1" : "0";
  $("status").textContent = statusText();
  $("error").textContent = S.error ? t(S.lang, "error.prefix", { why: S.error }) : "";
  if (!d) return;
  for (let q = 0; q < d.players; q++) SEAT_COLOURS[q] = d.colours[q];
  renderPrompt();
  renderPicker();
  const legal = new Set(d.asked || d.over ? [] : Object.keys(d.legal.hexes));
  const last = new Map();
  const lastPlace = [...d.entries].reverse().find((e) => !e.chance && e.action.includes("@"));
  if (lastPlace) last.set(lastPlace.seat, lastPlace.action.split("@")[1]);
  S.board.update(d.view, { legal, last, cursor: S.picked || S.cursor, names: names() });
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

async function initPlay() {
  $("play").hidden = false;
  const frag = new URLSearchParams(location.hash.slice(1));
  S.token = frag.get("t") || myTables().find((g) => g.table === S.id)?.token || null;
  if (!S.token) {
    $("status").textContent = t(S.lang, "table.notoken");
    return;
  }
  try {
    await load();
  } catch (err) {
    $("status").textContent = errText(err);
    return;
  }
  remember({ table: S.id, token: S.token, board: S.data.board, names: S.data.names });
  S.boardData = await api(`/api/boards/${S.data.board}`);
  S.model = new MapModel(S.boardData.map);
  S.board = new BoardView($("board"), S.model, S.lang, { onPick: pick });
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

async function init() {
  S.lang = pickLang();
  setLang(S.lang, false);
  $("lang").value = S.lang;
  await loadCatalogs(S.lang);
  translateDom(S.lang);
  const m = location.pathname.match(/^\/table\/([^/]+)$/);
  S.id = m ? decodeURIComponent(m[1]) : null;
  $("lang").addEventListener("change", async () => {
    S.lang = $("lang").value;
    setLang(S.lang);
    await loadCatalogs(S.lang);
    translateDom(S.lang);
    if (S.id && S.board) {
      S.board.lang = S.lang;
      S.board.draw();
      renderAll();
    } else if (!S.id) {
      seatRows();
      await setupBoardChanged();
      renderMine();
      $("status").textContent = t(S.lang, "table.setup");
    }
  });
  if (S.id) await initPlay(); else await initSetup();
  document.body.dataset.ready = "1";
}

init();
