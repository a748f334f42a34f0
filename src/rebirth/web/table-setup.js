// The table companion's set-up form (docs/table.md): board, players, names, colours, start
// player, variants and, for Ireland, the public missions on display and the tower tokens.
import { SEAT_LETTERS, api, h, t, txt } from "./common.js";
import { errorText, myTables, rememberTable } from "./kit.js";

const $ = (id) => document.getElementById(id);
let S = null; // the page's state, given by initSetup

async function setupBoardData(board) {
  if (!S.setupBoard || S.setupBoard.board !== board) S.setupBoard = await api(`/api/boards/${board}`);
  return S.setupBoard;
}

function seatRows() {
  // The colours a seat may take, as the server offers them (the same for every board).
  const { colours } = S.setupBoard.facts;
  const n = Number($("s-players").value);
  const box = $("s-seats");
  const old = [...box.querySelectorAll(".t-seat")].map((row, i) => ({
    name: $(`s-name-${i}`).value, colour: $(`s-colour-${i}`).value }));
  box.replaceChildren();
  for (let i = 0; i < n; i++) {
    const colour = old[i]?.colour || colours[i];
    const sel = h("select", { id: `s-colour-${i}`, "aria-label": t(S.lang, "table.colour.of", { n: i + 1 }) },
      ...colours.map((c, k) => h("option", { value: c, selected: c === colour }, t(S.lang, `table.colour.${k}`))));
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
    rememberTable({ table: res.table, token: res.token, board: body.board, names: body.names });
    // The token is kept on this device: the address carries none (issue 26 item 6).
    location.assign(`/table/${encodeURIComponent(res.table)}`);
  } catch (err) {
    $("s-error").textContent = t(S.lang, "table.error", { why: errorText(err, S.lang) });
  }
}

function renderMine() {
  const ul = $("mine");
  const list = myTables();
  ul.replaceChildren(...(list.length ? list.map((g) => h("li", {},
    h("a", { href: `/table/${encodeURIComponent(g.table)}` }, `${t(S.lang, `board.${g.board}`)}: ${(g.names || []).join(", ")}`),
    " ", h("span", { class: "small" }, new Date(g.when).toLocaleString(S.lang))))
    : [h("li", {}, t(S.lang, "table.mine.none"))]));
}

/** Show the set-up form; `state` is the page's state (window.tableState). */
export async function initSetup(state) {
  S = state;
  $("setup").hidden = false;
  $("status").textContent = t(S.lang, "table.setup");
  S.variants = (await api("/api/variants")).variants;
  await setupBoardData($("s-board").value);
  seatRows();
  await setupBoardChanged();
  $("s-players").addEventListener("change", seatRows);
  $("s-board").addEventListener("change", setupBoardChanged);
  $("setup-form").addEventListener("submit", createTable);
  renderMine();
}

/** The language changed: redraw the form in it. */
export async function relangSetup() {
  seatRows();
  await setupBoardChanged();
  renderMine();
  $("status").textContent = t(S.lang, "table.setup");
}
