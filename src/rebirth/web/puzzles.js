// The puzzle page (/puzzles, docs/puzzles.md): the daily puzzle (GET /api/puzzles/daily) and a
// stream per theme (GET /api/puzzles?theme=), drawn with the game page's board; a tap on a
// space (or a typed label) answers (POST /api/puzzles/{id}/answer), and the answer's
// explanation — the engine's own score texts, from the server — is shown below the board.
import { BoardView, MapModel } from "./board.js";
import { api, fillLangMenu, h, loadCatalogs, loadLanguages, pickLang, setLang, t, translateDom } from "./common.js";
import { frameTurn, labelsToggle } from "./phone.js";

const $ = (id) => document.getElementById(id);
let lang = "en";
const S = window.rebirthState = {
  mode: "daily", offset: 0, total: 0, themes: {}, puzzle: null, selected: null, result: null,
  error: null, version: 0,
};
const maps = new Map();
let board = null;
let boardId = null;

const names = (n) => Array.from({ length: n }, (_, q) => t(lang, "puzzles.player", { n: q + 1 }));

async function model(id) {
  if (!maps.has(id)) maps.set(id, new MapModel(await api(`/api/boards/${encodeURIComponent(id)}`)));
  return maps.get(id);
}

function tabs() {
  const modes = ["daily", ...Object.keys(S.themes)];
  $("themes").replaceChildren(...modes.map((m) => {
    const b = h("button", { type: "button", "data-mode": m, "aria-pressed": String(S.mode === m) },
      m === "daily" ? t(lang, "puzzles.daily") : t(lang, `puzzles.theme.${m}`));
    b.addEventListener("click", () => { S.mode = m; S.offset = 0; load(); });
    return b;
  }));
}

async function load() {
  tabs();
  S.error = null;
  try {
    if (S.mode === "daily") {
      S.puzzle = await api("/api/puzzles/daily");
    } else {
      const body = await api(`/api/puzzles?theme=${encodeURIComponent(S.mode)}&offset=${S.offset}&limit=1`);
      S.total = body.total;
      S.puzzle = body.puzzles[0] || null;
    }
  } catch (e) {
    S.error = e.message; S.puzzle = null;
  }
  S.selected = null; S.result = null;
  await draw();
}

async function draw() {
  const p = S.puzzle;
  $("next").hidden = S.mode === "daily";
  if (!p) {
    $("task-h").textContent = S.error || t(lang, "puzzles.none");
    $("task").textContent = ""; $("meta").textContent = "";
    finish();
    return;
  }
  const m = await model(p.board);
  if (!board || boardId !== p.board) {
    board = new BoardView($("board-svg"), m, lang, { onPick: pick });
    boardId = p.board;
  }
  const who = names(p.players);
  $("task-h").textContent = S.mode === "daily"
    ? t(lang, "puzzles.daily_of", { date: p.date }) : t(lang, "puzzles.stream_of",
      { theme: t(lang, `puzzles.theme.${S.mode}`), k: S.offset + 1, n: S.total });
  $("task").textContent = t(lang, "puzzles.task", { player: who[p.seat], tile: t(lang, `tile.${p.tile}`) });
  const themes = p.themes.map((th) => `${t(lang, `puzzles.theme.${th}`)} (${(S.themes[th] || []).join(", ")})`);
  $("meta").textContent = t(lang, "puzzles.meta", { themes: themes.join(" · "), difficulty: p.difficulty,
    rating: p.rating });
  paint();
  frameTurn(board, p.legal, p.id);
  $("answer").value = S.selected || "";
  const r = S.result;
  $("result").hidden = !r;
  if (r) {
    $("result").classList.toggle("wrong", !r.correct);
    // The heading says what was answered; the server's explanation then says right or not
    // and why (its first sentence did that already: "Not the best move" twice read oddly).
    $("verdict").textContent = t(lang, r.correct ? "puzzles.right" : "puzzles.wrong", { answer: S.selected || "" });
    $("explanation").textContent = r.explanation;
    $("rating").textContent = r.rating ? t(lang, "puzzles.your_rating",
      { rating: r.rating.rating, before: r.rating.before }) : t(lang, "puzzles.signin_for_rating");
  }
  finish();
}

function paint() {
  const p = S.puzzle;
  const ghost = S.selected && p.legal.includes(S.selected) ? { label: S.selected, seat: p.seat, code: p.tile } : null;
  board.update(p.board_view, { legal: new Set(S.result ? [] : p.legal), cursor: S.selected, ghost,
    names: names(p.players) });
  for (const el of $("board-svg").querySelectorAll(".answer-best, .answer-wrong")) {
    el.classList.remove("answer-best", "answer-wrong");
  }
  if (S.result) {
    const mark = (label, cls) => $("board-svg").querySelector(`.space[data-label="${label}"]`)?.classList.add(cls);
    if (!S.result.correct && S.selected) mark(S.selected, "answer-wrong");
    mark(S.result.best, "answer-best");
  }
}

function finish() {
  S.version += 1;
  document.body.dataset.ready = "1";
}

function pick(label) {
  if (!S.puzzle || S.result) return;
  S.selected = label;
  $("answer").value = label;
  paint();
}

async function submit(e) {
  e.preventDefault();
  const p = S.puzzle;
  if (!p || S.result) return;
  const action = $("answer").value.trim();
  S.selected = action.toUpperCase();
  try {
    S.result = await api(`/api/puzzles/${encodeURIComponent(p.id)}/answer?lang=${encodeURIComponent(lang)}`,
      { method: "POST", body: { action } });
  } catch (err) {
    S.error = err.message;
  }
  await draw();
}

async function main() {
  await loadLanguages();
  lang = pickLang();
  setLang(lang, false);
  await loadCatalogs(lang);
  translateDom(lang);
  fillLangMenu($("lang"), lang);
  const q = new URLSearchParams(location.search);
  const all = await api("/api/puzzles?limit=1");
  S.themes = all.themes;
  if (q.get("theme") && q.get("theme") in S.themes) S.mode = q.get("theme");
  $("lang").addEventListener("change", async () => {
    lang = $("lang").value; setLang(lang); await loadCatalogs(lang); translateDom(lang);
    board = null; tabs(); await draw();
  });
  $("zoom-in").addEventListener("click", () => board?.zoom(1.25));
  $("zoom-out").addEventListener("click", () => board?.zoom(0.8));
  $("zoom-reset").addEventListener("click", () => board?.reset());
  labelsToggle($("pref-labels"), $("board-svg"));
  $("answer-form").addEventListener("submit", submit);
  $("next").addEventListener("click", () => { S.offset = (S.offset + 1) % Math.max(1, S.total); load(); });
  await load();
}

main();
