// The score calculator: enter a position by clicking hexes, see how it scores (POST /api/score).
// The page computes no rule: the server's answer (the engine, the code of `rebirth score`) is shown.
// The position lives in the URL fragment (#p=base64url(JSON)); nothing is stored on the server.
import { BoardView, MapModel } from "./board.js";
import { frameTurn, resetWhenWide } from "./phone.js";
import { SEAT_LETTERS, fillLangMenu, h, loadCatalogs, loadLanguages, pickLang, setLang, sv, t, translateDom, txt } from "./common.js";

const $ = (id) => document.getElementById(id);
let lang = "en"; // chosen in main(), once the served languages are known

// The page's whole state: the position being entered (Position JSON) and view choices.
const S = window.rebirthState = {
  pos: null, result: null, error: null, version: 0, seat: 0, tile: "E", overlay: "regions",
  boards: {}, model: null, view: null, busy: 0,
  // Ireland's castle missions (I-10) the user marked as fulfilled earlier (mission id -> seats):
  // castles can be lost again, so the tiles cannot tell; every other fulfilment is derived from
  // the tiles by the server, so erasing the tile that met a mission un-marks it.
  paid: {},
};

// The board's facts from the server (server/pages/facts.py): tile codes, categories, display size…
const facts = () => S.boards[S.pos.board].facts;
const colours = () => S.boards[S.pos.board].model.colours;

function emptyPosition(board, players) {
  const b = S.boards[board];
  // The neutral tiles a fresh game starts with (S-6: the blockers with 2 players).
  const tiles = (b.facts.neutral[String(players)] || []).map((hex) => ({ hex, neutral: true }));
  const pos = { format: "rebirth-position", version: 1, board, players, variants: [], tiles,
    castles: {}, district_last: {}, cathedrals: {}, tower_visits: {}, tower_tokens: {}, secrets: null };
  if (b.tokens) {
    // Which token lies on which tower only matters for the bonus a visit takes: default in file order.
    const towers = b.map.structures.filter((s) => s.kind === "tower");
    towers.forEach((tw, i) => { pos.tower_tokens[tw.id] = b.tokens.tokens[i % b.tokens.tokens.length].id; });
    // S-8: eight public missions lie on display; default: the first eight cards.
    pos.display = (b.missions?.cards || []).slice(0, 8).map((c) => c.id);
  }
  return pos;
}

async function loadBoard(board) {
  if (!S.boards[board]) {
    const r = await fetch(`/api/boards/${board}`);
    const data = await r.json();
    data.model = new MapModel(data);
    S.boards[board] = data;
  }
  return S.boards[board];
}

// ------------------------------------------------------------------ URL fragment

function encode(pos) {
  const bytes = new TextEncoder().encode(JSON.stringify(pos));
  let bin = "";
  bytes.forEach((x) => { bin += String.fromCharCode(x); });
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decode(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
}

function writeFragment() {
  const paid = Object.keys(S.paid).length ? `&paid=${encode(S.paid)}` : "";
  history.replaceState(null, "", `#p=${encode(S.pos)}&seat=${S.seat}${paid}`);
}

const isCastleMission = (card) => card?.condition?.type === "castles_held";

/** S.paid restricted to what `pos` can hold: castle missions on display, seats of its player count. */
function paidOf(pos) {
  const cards = new Map((S.boards[pos.board]?.missions?.cards || []).map((c) => [c.id, c]));
  const shown = new Set(pos.display || []);
  const out = {};
  for (const [mid, seats] of Object.entries(S.paid)) {
    const ok = (Array.isArray(seats) ? seats : []).filter((q) => Number.isInteger(q) && q >= 0 && q < pos.players);
    if (shown.has(mid) && isCastleMission(cards.get(mid)) && ok.length) out[mid] = [...new Set(ok)].sort();
  }
  return out;
}

// ------------------------------------------------------------------ server

function showError(msg) {
  const el = $("alert");
  el.textContent = msg || "";
  el.hidden = !msg;
  S.error = msg || null;
}

/** Ask the server about `pos`; on success it becomes the page's position, on refusal nothing changes. */
async function commit(pos, { quiet = false } = {}) {
  S.busy++;
  const mine = S.seq = (S.seq || 0) + 1;
  // Only the marked castle missions go as given; the server derives the rest from the tiles.
  const paid = paidOf(pos);
  const sent = pos.board === "ireland" ? { ...pos, fulfilled: paid } : pos;
  try {
    const r = await fetch("/api/score", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ position: sent, seat: Math.min(S.seat, pos.players - 1), lang, refresh: true,
        names: Array.from({ length: pos.players }, (_, q) => `${t(lang, `calc.colour${q}`)} (${SEAT_LETTERS[q]})`) }) });
    const data = await r.json().catch(() => ({}));
    // A later edit was sent meanwhile: its answer, not this older one, decides what is shown.
    if (mine !== S.seq) return null;
    if (r.ok) {
      S.pos = data.position;
      S.paid = paid;
      S.result = data;
      S.ask = null;
      showError("");
    } else if (data?.error?.code === "ask") {
      // A full tie: keep the entry, ask who holds the castle / placed last (the page cannot know).
      S.pos = pos;
      S.result = null;
      S.ask = data.error.details.ask;
      showError(quiet ? "" : txt(data.error.message, lang));
    } else {
      showError(data?.error?.message ? txt(data.error.message, lang) : `HTTP ${r.status}`);
      return false;
    }
    writeFragment();
    paint();
    return true;
  } finally {
    S.busy--;
    S.version++;
  }
}

// ------------------------------------------------------------------ editing

function put(label) {
  const b = S.boards[S.pos.board];
  const up = String(label || "").trim().toUpperCase();
  if (!b.model.byLabel.has(up)) {
    const st = b.model.structures.find((s) => s.label === up);
    showError(st ? t(lang, "calc.err_structure", { hex: up, name: txt(st.name, lang) }) : t(lang, "calc.err_nohex", { hex: up }));
    S.version++;
    return;
  }
  const pos = structuredClone(S.pos);
  const old = pos.tiles.findIndex((x) => x.hex === up);
  if (old >= 0 && pos.tiles[old].neutral) {
    showError(t(lang, "calc.err_neutral", { hex: up }));
    S.version++;
    return;
  }
  if (old >= 0) pos.tiles.splice(old, 1);
  if (S.tile !== "erase") pos.tiles.push({ hex: up, seat: S.seat, tile: S.tile });
  commit(pos);
}

// ------------------------------------------------------------------ drawing

function hexPoints(x, y, r) {
  const pts = [];
  for (let i = 0; i < 6; i++) { const a = (Math.PI / 180) * (60 * i - 30); pts.push(`${(x + r * Math.cos(a)).toFixed(1)},${(y + r * Math.sin(a)).toFixed(1)}`); }
  return pts.join(" ");
}

function ensureView() {
  const b = S.boards[S.pos.board];
  if (S.model !== b.model) {
    S.model = b.model;
    // A fresh <svg>: the old view's pan/zoom listeners must not act on the new board.
    const old = $("board-svg");
    const svg = old.cloneNode(false);
    old.replaceWith(svg);
    svg.setAttribute("aria-label", t(lang, "calc.board"));
    S.view = new BoardView(svg, b.model, lang, {
      onPick: (label) => put(label),
      onHover: (label) => {
        const cells = (S.result?.heat.cells || []).filter((c) => c.hex === label);
        $("hover").textContent = cells.length ? `${label}: ${cells.map((c) => `${c.tile} +${c.points[S.result.heat.seat]}`).join(", ")} — ${cells[0].why.slice(1).join(" ")}` : label;
      },
    });
    resetWhenWide(S.view);
  }
  const key = `${S.pos.board}/${S.pos.players}/${lang}`;
  if (S.paletteFor !== key) { S.paletteFor = key; paintPalette(); }
  $("board").value = S.pos.board;
  $("players").value = String(S.pos.players);
}

function paint() {
  ensureView();
  const b = S.boards[S.pos.board];
  const model = b.model;
  const names = playerNames();
  const spaces = model.spaces.map(() => [-1, null]);
  for (const x of S.pos.tiles) {
    const i = model.byLabel.get(x.hex);
    if (i !== undefined) spaces[i] = x.neutral ? [4, null] : [x.seat, x.tile];
  }
  const kind = (k) => model.structures.filter((s) => s.kind === k);
  const view = {
    spaces,
    castle_holders: kind("castle").map((c) => S.pos.castles[c.id] ?? -1),
    cathedral_pieces: kind("cathedral").map((c) => S.pos.cathedrals[c.id] || []),
    tower_visits: kind("tower").map((c) => S.pos.tower_visits[c.id] || []),
  };
  S.view.update(view, { names });
  // On a phone every hex is a target: the board opens zoomed so that each is at least 44 CSS
  // px (pan and pinch for the rest), as the game page frames a turn (issue 26 item 6).
  frameTurn(S.view, model.spaces.map((sp) => sp.label), "calc");
  paintOverlay(model);
  paintPanels(names);
  $("json").value = JSON.stringify(S.pos, null, 1);
  $("status").textContent = S.result
    ? t(lang, S.result.winners.length > 1 ? "calc.winners_are" : "calc.winner_is", { names: S.result.winners.map((q) => names[q]).join(", ") })
    : "";
}

function playerNames() {
  return Array.from({ length: S.pos.players }, (_, q) => `${t(lang, `calc.colour${q}`)} (${SEAT_LETTERS[q]})`);
}

function paintOverlay(model) {
  const svg = $("board-svg");
  svg.querySelector(".calc-overlay")?.remove();
  const g = sv("g", { class: "calc-overlay" });
  const R = S.result;
  const at = (label) => model.spaces[model.byLabel.get(label)];
  if (R && S.overlay === "regions") {
    for (const r of R.regions) {
      const best = Math.max(...r.tiles);
      const lead = r.tiles.filter((x) => x === best).length === 1 && best > 0 ? r.tiles.indexOf(best) : -1;
      if (lead < 0) continue;
      for (const hx of r.hexes) {
        const s = at(hx);
        g.append(sv("polygon", { class: "ov-region", points: hexPoints(s.x, s.y, 20), fill: colours()[lead], "fill-opacity": 0.22 }));
      }
    }
  }
  if (R && S.overlay === "clusters") {
    for (const c of R.clusters) {
      for (const hx of c.hexes) {
        const s = at(hx);
        g.append(sv("polygon", { class: "ov-cluster", points: hexPoints(s.x, s.y, 18), stroke: "#000", "stroke-dasharray": c.tile === "E" ? "4 2" : "none" }));
      }
      const s = at(c.hexes[0]);
      g.append(sv("text", { class: "ov-label", x: s.x + 10, y: s.y + 14 }, String(c.size)));
    }
  }
  if (R && S.overlay === "heat") {
    const tile = $("heat-tile")?.value || S.tile;
    const cells = R.heat.cells.filter((c) => c.tile === tile);
    const max = Math.max(1, ...cells.map((c) => c.points[R.heat.seat]));
    for (const c of cells) {
      const s = at(c.hex);
      const p = c.points[R.heat.seat];
      g.append(sv("polygon", { class: "ov-heat", points: hexPoints(s.x, s.y, 17), fill: "#d55e00", "fill-opacity": (0.1 + 0.7 * p / max).toFixed(2) }),
        sv("text", { class: "ov-label", x: s.x, y: s.y + 4 }, String(p)));
    }
  }
  svg.querySelector(".board-root").append(g);
}

function structName(id) {
  const st = S.boards[S.pos.board].map.structures.find((x) => x.id === id);
  return st ? txt(st.name, lang) : id;
}

function districtName(id) {
  return txt(S.boards[S.pos.board].map.districts?.[id], lang) || id;
}

function seatHead(q, name) {
  return h("span", { title: name }, h("span", { class: "swatch small", style: `background:${colours()[q]}`, "aria-hidden": "true" }, SEAT_LETTERS[q]),
    h("span", { class: "sr-only" }, name));
}

function table(head, rows) {
  return h("table", {}, h("thead", {}, h("tr", {}, ...head.map((x, i) => h("th", { scope: "col", class: i ? "" : "l" }, x)))),
    h("tbody", {}, ...rows.map((r) => h("tr", {}, h("th", { scope: "row" }, r[0]), ...r.slice(1).map((x) => h("td", {}, x))))));
}

function paintPanels(names) {
  const R = S.result;
  paintAsk(names);
  paintMissions(names);
  paintRunning(names);
  for (const id of ["end", "regions", "clusters", "settlements", "spots"]) $(id).replaceChildren();
  if (!R) { $("end").append(h("p", {}, t(lang, "calc.incomplete"))); return; }
  const cats = R.categories;
  $("end").append(
    table(["", ...names.map((n, q) => seatHead(q, n))],
      [...cats.map((c) => [t(lang, `cat.${c}`), ...names.map((n, q) => h("span", { "data-cat": `${c}:${q}` }, String(R.breakdown[q][c] ?? 0)))]),
        [t(lang, "calc.total"), ...names.map((n, q) => h("b", { "data-score": q }, String(R.scores[q])))]]),
    h("p", { class: "winner", id: "winner" }, t(lang, R.winners.length > 1 ? "calc.winners_are" : "calc.winner_is", { names: R.winners.map((q) => names[q]).join(", ") })),
    h("p", { id: "tiebreak" }, R.tiebreak.text),
    h("details", {}, h("summary", {}, t(lang, "calc.why")),
      h("ul", { class: "plain" }, ...R.end_scoring.map((e) => h("li", {}, h("span", { class: "rule" }, e.rule || ""), " ", e.text)))),
    R.missions_scored ? "" : h("p", { class: "small" }, t(lang, "calc.no_missions")));
  $("regions").append(table([t(lang, "calc.region"), ...names.map((n, q) => seatHead(q, n)), t(lang, "calc.free")],
    R.regions.map((r) => [`${r.name} (${r.spaces})`, ...r.tiles.map(String), String(r.free)])));
  const cl = R.clusters.filter((c) => c.size > 1);
  $("clusters").append(cl.length ? h("ul", { class: "plain" }, ...cl.map((c) => h("li", {}, `${names[c.seat]} · ${t(lang, `tile.${c.tile}`)} · ${c.size}: ${c.hexes.join(" ")}`)))
    : h("p", { class: "small" }, t(lang, "calc.no_clusters")));
  $("settlements").append(R.settlements.length ? table(
    [t(lang, "calc.district"), ...names.map((n, q) => seatHead(q, n)), t(lang, "calc.ranks")],
    R.settlements.map((d) => [`${districtName(d.district)} (${d.hexes.join(" ")})`, ...d.influence.map(String),
      `${d.order.map((q) => SEAT_LETTERS[q]).join(" > ")} · ${d.complete ? t(lang, "calc.complete") : t(lang, "calc.open")}`
      + ` · ${d.points.map((p, q) => (p ? `${SEAT_LETTERS[q]} +${p}` : "")).filter(Boolean).join(" ")}`
      + (d.last_matters ? ` · ${t(lang, "calc.last", { who: names[d.last_placer] ?? "?", rule: d.tie_rule })}` : "")]))
    : h("p", { class: "small" }, t(lang, "calc.no_settlements")));
  const spots = $("spots");
  spots.append(table([t(lang, "calc.castle"), t(lang, "calc.holder"), ...names.map((n, q) => seatHead(q, n))],
    R.castles.map((c) => [`${structName(c.castle)} (${c.hex})`, c.holder >= 0 ? SEAT_LETTERS[c.holder] : "–",
      ...c.adjacent.map((a, q) => `${a}/${c.farms[q]}`)])),
  h("p", { class: "small" }, t(lang, "calc.castle_help")));
  const lines = [];
  for (const c of R.cathedrals) lines.push(`${c.name} (${c.hex}): ${c.seats.map((q) => SEAT_LETTERS[q]).join(" ") || "–"}`);
  const tokens = new Map((S.boards[S.pos.board].tokens?.tokens || []).map((k) => [k.id, txt(k.name, lang)]));
  const towerRows = R.towers.map((tw) => {
    // S-8: each tower holds one token; choosing one already used elsewhere swaps the two.
    const sel = h("select", { id: `token-${tw.id}`, "aria-label": `${tw.name}: ${t(lang, "calc.token")}` },
      ...[...tokens].map(([id, name]) => h("option", { value: id, selected: id === tw.token || undefined }, name)));
    sel.addEventListener("change", () => {
      const pos = structuredClone(S.pos);
      const other = Object.keys(pos.tower_tokens).find((k) => pos.tower_tokens[k] === sel.value);
      if (other) pos.tower_tokens[other] = pos.tower_tokens[tw.id];
      pos.tower_tokens[tw.id] = sel.value;
      commit(pos);
    });
    return h("li", {}, `${tw.name} (${tw.hex}): ${tw.seats.map((q) => SEAT_LETTERS[q]).join(" ") || "–"} · `, sel);
  });
  if (R.ports.some((x) => x)) lines.push(`${t(lang, "calc.ports")}: ${R.ports.map((x, q) => `${SEAT_LETTERS[q]} ${x}`).join(", ")}`);
  if (R.offshore.some((x) => x)) lines.push(`${t(lang, "calc.offshore")}: ${R.offshore.map((x, q) => `${SEAT_LETTERS[q]} ${x}`).join(", ")}`);
  spots.append(h("ul", { class: "plain" }, ...lines.map((x) => h("li", {}, x)), ...towerRows));
  if (S.overlay === "heat") {
    const tile = $("heat-tile")?.value || S.tile;
    const cells = R.heat.cells.filter((c) => c.tile === tile).sort((a, b) => b.points[R.heat.seat] - a.points[R.heat.seat]).slice(0, 8);
    spots.append(h("h3", {}, t(lang, "calc.best", { who: names[R.heat.seat], tile: t(lang, `tile.${tile}`) })),
      h("ul", { class: "plain", id: "heat-list" }, ...cells.map((c) => h("li", {}, h("b", {}, `${c.hex} +${c.points[R.heat.seat]}`), ": ", c.why.slice(1).join(" ")))));
  }
}

function paintAsk(names) {
  const sec = $("ask-sec");
  const box = $("ask");
  box.replaceChildren();
  // Unanswered ties (the scores wait for them) or answered ones (shown so they can be changed).
  const list = S.ask || S.result?.choices || [];
  sec.hidden = !list.length;
  $("ask-h").textContent = t(lang, S.ask ? "calc.ask" : "calc.choices");
  for (const a of list) {
    const label = a.kind === "castle" ? t(lang, "calc.ask_castle", { hex: a.hex }) : t(lang, "calc.ask_district", { hexes: a.hexes.join(" ") });
    const sel = h("select", { id: `ask-${a.id}` }, a.chosen === undefined ? h("option", { value: "" }, "—") : "",
      ...a.seats.map((q) => h("option", { value: q, selected: q === a.chosen || undefined }, names[q])));
    sel.addEventListener("change", () => {
      if (sel.value === "") return;
      const pos = structuredClone(S.pos);
      (a.kind === "castle" ? pos.castles : pos.district_last)[a.id] = Number(sel.value);
      commit(pos);
    });
    box.append(h("label", { class: "mission-pick" }, label, " ", sel));
  }
}

function paintRunning(names) {
  const box = $("running");
  box.replaceChildren();
  const cats = S.result?.categories || facts().categories;
  const inputs = names.map((n, q) => cats.map((c) => {
    const inp = h("input", { type: "number", min: 0, max: 999, step: 1, inputmode: "numeric", class: "run",
      value: (S.pos.breakdown?.[q] || {})[c] ?? 0, "aria-label": `${n}: ${t(lang, `cat.${c}`)}`, "data-run": `${c}:${q}` });
    inp.addEventListener("change", () => {
      const v = Number(inp.value);
      if (!Number.isInteger(v) || v < 0 || v > 999) { showError(t(lang, "calc.err_running")); inp.value = (S.pos.breakdown?.[q] || {})[c] ?? 0; return; }
      const pos = structuredClone(S.pos);
      pos.breakdown = Array.from({ length: pos.players }, (_, i) => ({ ...(pos.breakdown?.[i] || {}) }));
      pos.breakdown[q][c] = v;
      pos.scores = pos.breakdown.map((b) => Object.values(b).reduce((a, x) => a + x, 0));
      commit(pos);
    });
    return inp;
  }));
  box.append(table(["", ...names.map((n, q) => seatHead(q, n))], cats.map((c, k) => [t(lang, `cat.${c}`), ...inputs.map((row) => row[k])])));
}

function paintMissions(names) {
  const box = $("missions");
  box.replaceChildren();
  const b = S.boards[S.pos.board];
  const cards = (b.missions?.cards || []).filter((c) => !c.public);
  box.append(h("p", { class: "small" }, t(lang, "calc.missions_help")));
  for (let q = 0; q < S.pos.players; q++) {
    const mine = new Set(S.pos.secrets?.[q] || []);
    const det = h("details", {}, h("summary", {}, `${names[q]}: ${[...mine].join(", ") || "–"}`));
    for (const c of cards) {
      const cb = h("input", { type: "checkbox", checked: mine.has(c.id) || undefined, "data-card": c.id, "data-seat": q });
      cb.addEventListener("change", () => {
        const pos = structuredClone(S.pos);
        pos.secrets = pos.secrets || Array.from({ length: pos.players }, () => []);
        const set = new Set(pos.secrets[q]);
        if (cb.checked) set.add(c.id); else set.delete(c.id);
        pos.secrets[q] = [...set];
        if (pos.secrets.every((s) => !s.length)) pos.secrets = null;
        commit(pos).then((ok) => { if (ok === false) cb.checked = !cb.checked; });
      });
      det.append(h("label", { class: "mission-pick" }, cb, ` ${c.id} (${c.points}): ${txt(c.text, lang)}`));
    }
    box.append(det);
  }
  if (S.pos.board === "ireland") {
    // I-10: up to the display's size (S-8) of public missions; who has fulfilled them follows from the tiles.
    const size = facts().display_size;
    const shown = new Set(S.pos.display || []);
    const ful = new Map((S.result?.public || []).map((p) => [p.card, p.fulfilled]));
    const det = h("details", { open: shown.size ? true : undefined }, h("summary", {}, `${t(lang, "calc.display")}: ${shown.size}/${size}`));
    for (const c of b.missions?.cards || []) {
      const cb = h("input", { type: "checkbox", checked: shown.has(c.id) || undefined, "data-display": c.id });
      cb.addEventListener("change", () => {
        const pos = structuredClone(S.pos);
        const set = new Set(pos.display || []);
        if (cb.checked) set.add(c.id); else set.delete(c.id);
        if (set.size > size) { cb.checked = false; showError(t(lang, "calc.err_display")); return; }
        pos.display = [...set];
        pos.fulfilled = Object.fromEntries(Object.entries(pos.fulfilled || {}).filter(([k]) => set.has(k)));
        commit(pos).then((ok) => { if (ok === false) cb.checked = !cb.checked; });
      });
      const who = (ful.get(c.id) || []).map((q) => SEAT_LETTERS[q]).join(" ");
      det.append(h("label", { class: "mission-pick" }, cb, ` ${c.id} (${(c.values || []).join("/")}): ${txt(c.text, lang)}`,
        who ? h("b", {}, ` ✔ ${who}`) : ""));
      if (shown.has(c.id) && isCastleMission(c)) det.append(paidPicker(c.id, names));
    }
    box.append(det);
  }
  const R = S.result;
  if (R && R.missions.length) {
    box.append(h("ul", { class: "plain" }, ...R.missions.map((m) => h("li", {}, `${m.fulfilled ? "✔" : "✘"} ${m.text}`))));
  }
}

/** Who fulfilled castle mission `mid` earlier and has lost the castles since (I-10: paid once). */
function paidPicker(mid, names) {
  const marked = new Set(S.paid[mid] || []);
  const row = h("div", { class: "paid-pick", role: "group", "aria-label": `${mid}: ${t(lang, "calc.castle_paid")}` },
    h("span", { class: "small" }, t(lang, "calc.castle_paid")));
  for (let q = 0; q < S.pos.players; q++) {
    const cb = h("input", { type: "checkbox", checked: marked.has(q) || undefined, "data-paid": mid, "data-seat": q });
    cb.addEventListener("change", () => {
      const before = structuredClone(S.paid);
      const set = new Set(S.paid[mid] || []);
      if (cb.checked) set.add(q); else set.delete(q);
      S.paid = { ...S.paid, [mid]: [...set] };
      commit(S.pos).then((ok) => { if (ok === false) { S.paid = before; cb.checked = !cb.checked; } });
    });
    row.append(h("label", { class: "choice paid-seat", title: names[q] }, cb, ` ${names[q]}`));
  }
  return row;
}

function choices(box, name, items, current, onPick) {
  box.querySelectorAll("label.choice").forEach((x) => x.remove());
  for (const [value, label, colour, long] of items) {
    const inp = h("input", { type: "radio", name, value, checked: value === current || undefined });
    inp.addEventListener("change", () => onPick(value));
    const sw = colour ? h("span", { class: "swatch small", style: `background:${colour}`, "aria-hidden": "true" }, label[0]) : "";
    // Short visible text on a phone; the full name for screen readers and as a tooltip.
    const el = h("label", { class: "choice", title: long || label }, inp, sw, " ", label,
      long ? h("span", { class: "sr-only" }, ` ${long}`) : "");
    // Before any extra control of the bar (the heat map's tile), after the legend.
    const extra = box.querySelector("label:not(.choice)");
    if (extra) extra.before(el); else box.append(el);
  }
}

function paintPalette() {
  const n = S.pos.players;
  if (S.seat >= n) S.seat = 0;
  choices($("pick-seat"), "seat", Array.from({ length: n }, (_, q) => [String(q), `${SEAT_LETTERS[q]} ${t(lang, `calc.colour${q}`)}`, colours()[q], null]),
    String(S.seat), (v) => { S.seat = Number(v); commit(S.pos, { quiet: true }); });
  choices($("pick-tile"), "tile", [...facts().tiles.map((x) => [x, x, null, t(lang, `tile.${x}`)]), ["erase", "✕", null, t(lang, "calc.erase")]],
    S.tile, (v) => { S.tile = v; if (S.overlay === "heat" && S.result) paint(); });
  const ov = $("overlay");
  choices(ov, "overlay", [["regions", t(lang, "calc.regions")], ["clusters", t(lang, "calc.clusters")], ["heat", t(lang, "calc.heat")]],
    S.overlay, (v) => { S.overlay = v; if (S.result) paint(); });
  if (!$("heat-tile")) {
    const sel = h("select", { id: "heat-tile" }, ...facts().tiles.map((x) => h("option", { value: x }, x)));
    sel.addEventListener("change", () => { if (S.result) paint(); });
    ov.append(h("label", {}, h("span", { "data-t": "calc.heat_tile" }, t(lang, "calc.heat_tile")), " ", sel));
  }
}

async function setBoard(board, players, pos = null) {
  await loadBoard(board);
  const next = pos || emptyPosition(board, players);
  const before = S.paid;
  if (!pos) S.paid = {}; // a new position: nothing was fulfilled before
  const ok = await commit(next);
  if (ok === false) S.paid = before;
  if (ok === false) { $("board").value = S.pos.board; $("players").value = String(S.pos.players); }
  return ok;
}

/** A position from outside (fragment, import): refused as a whole if it does not parse or score.
 * Its fulfilled castle missions count as marked (a file cannot say which the tiles met), unless
 * the fragment says which were marked (`paid`). */
async function adopt(pos, paid = null) {
  if (!pos || typeof pos !== "object" || !S.boards[pos.board] && !["scotland", "ireland"].includes(pos.board)) {
    showError(t(lang, "calc.err_board"));
    return false;
  }
  await loadBoard(pos.board);
  const before = S.paid;
  S.paid = paid || (pos.fulfilled && typeof pos.fulfilled === "object" && !Array.isArray(pos.fulfilled) ? pos.fulfilled : {});
  const ok = await commit(pos);
  if (ok === false) S.paid = before;
  return ok;
}

function readFragment() {
  const m = /^#p=([A-Za-z0-9_-]*)(?:&seat=(\d))?(?:&paid=([A-Za-z0-9_-]*))?$/.exec(location.hash);
  if (!m) return null;
  try {
    const paid = m[3] ? decode(m[3]) : null;
    return { pos: decode(m[1]), seat: Number(m[2] || 0), paid: paid && typeof paid === "object" ? paid : null };
  } catch {
    return { broken: true };
  }
}

async function main() {
  await loadLanguages();
  lang = pickLang();
  setLang(lang, false);
  await loadCatalogs(lang);
  translateDom(lang);
  fillLangMenu($("lang"), lang);
  $("lang").addEventListener("change", async () => {
    lang = $("lang").value; setLang(lang); await loadCatalogs(lang); translateDom(lang);
    S.model = null; S.paletteFor = null; await commit(S.pos);
  });
  const frag = readFragment();
  await setBoard("scotland", 3);
  if (frag?.broken) showError(t(lang, "calc.err_fragment"));
  else if (frag) {
    S.seat = frag.seat;
    if (!(await adopt(frag.pos, frag.paid))) showError(`${t(lang, "calc.err_fragment")} ${S.error || ""}`);
  }
  $("board").addEventListener("change", () => setBoard($("board").value, Number($("players").value)));
  $("players").addEventListener("change", () => setBoard($("board").value, Number($("players").value)));
  $("clear").addEventListener("click", () => setBoard(S.pos.board, S.pos.players));
  $("hexform").addEventListener("submit", (e) => { e.preventDefault(); put($("hex").value); });
  $("export").addEventListener("click", () => {
    $("json").value = JSON.stringify(S.pos, null, 1);
    const url = URL.createObjectURL(new Blob([JSON.stringify(S.pos, null, 1)], { type: "application/json" }));
    const a = h("a", { href: url, download: "position.json" });
    document.body.append(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });
  const importText = async (text) => {
    let data;
    try { data = JSON.parse(text); } catch (e) {
      showError(t(lang, "calc.err_json", { why: e.message })); S.version++; return;
    }
    if (!(await adopt(data))) { $("json").value = text; S.version++; }
  };
  $("import").addEventListener("click", () => importText($("json").value));
  $("file").addEventListener("change", async () => { const f = $("file").files[0]; if (f) await importText(await f.text()); });
  $("zoom-in").addEventListener("click", () => S.view.zoom(1.25));
  $("zoom-out").addEventListener("click", () => S.view.zoom(0.8));
  $("zoom-reset").addEventListener("click", () => S.view.reset());
  document.body.dataset.ready = "1";
}

main();
