// The leaderboard page (/leaderboard): one board × player count at a time, best first
// (GET /api/ratings). The choice lives in the address (?board=&players=) so it can be shared.
import { api, fillLangMenu, h, loadCatalogs, loadLanguages, pickLang, setLang, t, translateDom } from "./common.js";

const $ = (id) => document.getElementById(id);
let lang = "en";
const S = window.rebirthState = { board: "scotland", players: 2, rows: null, error: null, version: 0 };

async function show() {
  const q = new URLSearchParams(location.search);
  q.set("board", S.board); q.set("players", String(S.players));
  history.replaceState(null, "", `${location.pathname}?${q}`);
  $("status").textContent = t(lang, "ratings.loading");
  try {
    const body = await api(`/api/ratings?board=${encodeURIComponent(S.board)}&players=${S.players}`);
    S.rows = body.ratings; S.error = null;
    $("note").textContent = t(lang, "ratings.min_games", { n: body.min_games });
  } catch (e) {
    S.rows = []; S.error = e.message;
  }
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
