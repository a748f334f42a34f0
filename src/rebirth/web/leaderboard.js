// The leaderboard page (/leaderboard): one board × player count at a time, best first
// (GET /api/ratings). The choice lives in the address (?board=&players=) so it can be shared.
import { api, fillLangMenu, h, loadCatalogs, loadLanguages, pickLang, setLang, t, translateDom } from "./common.js";

const $ = (id) => document.getElementById(id);
let lang = "en";
const S = window.rebirthState = { board: "scotland", players: 2, rows: null, error: null, version: 0 };
let asked = 0;  // the latest request: an older answer arriving after it is dropped

async function show() {
  const q = new URLSearchParams(location.search);
  q.set("board", S.board); q.set("players", String(S.players));
  history.replaceState(null, "", `${location.pathname}?${q}`);
  $("status").textContent = t(lang, "ratings.loading");
  const mine = ++asked;
  let rows, error = null, note = null;
  try {
    const body = await api(`/api/ratings?board=${encodeURIComponent(S.board)}&players=${S.players}`);
    rows = body.ratings;
    note = t(lang, "ratings.min_games", { n: body.min_games });
  } catch (e) {
    rows = []; error = e.message;
  }
  // Two quick changes of the selectors ask twice; the first answer may come last and must
  // not replace the table of the choice on screen.
  if (mine !== asked) return;
  S.rows = rows; S.error = error;
  if (note !== null) $("note").textContent = note;
  render();
  S.version += 1;
  document.body.dataset.ready = "1";
}

function render() {
  const rows = S.rows || [];
  $("caption").textContent = `${t(lang, `board.${S.board}`)} · ${t(lang, "ratings.n_players", { n: S.players })}`;
  $("rows").replaceChildren(...rows.map((r, i) => h("tr", {},
    h("td", {}, i + 1),
    h("td", {}, h("a", { href: `/players/${encodeURIComponent(r.name)}` }, r.name)),
    h("td", { class: "num" }, r.rating),
    h("td", { class: "num" }, r.games))));
  $("board-table").hidden = rows.length === 0;
  $("status").textContent = S.error || (rows.length ? "" : t(lang, "ratings.empty"));
}

async function main() {
  await loadLanguages();
  lang = pickLang();
  setLang(lang, false);
  await loadCatalogs(lang);
  translateDom(lang);
  fillLangMenu($("lang"), lang);
  const q = new URLSearchParams(location.search);
  if (["scotland", "ireland"].includes(q.get("board"))) S.board = q.get("board");
  if (["2", "3", "4"].includes(q.get("players"))) S.players = Number(q.get("players"));
  $("board").value = S.board; $("players").value = String(S.players);
  $("lang").addEventListener("change", async () => {
    lang = $("lang").value; setLang(lang); await loadCatalogs(lang); translateDom(lang); await show();
  });
  $("board").addEventListener("change", () => { S.board = $("board").value; show(); });
  $("players").addEventListener("change", () => { S.players = Number($("players").value); show(); });
  await show();
}

main();
