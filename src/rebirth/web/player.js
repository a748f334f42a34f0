// A player's public profile (/players/{name}): statistics per board × player count, the
// rating history as a chart (web/ratingchart.js) and the latest finished games
// (GET /api/players/{name}).
import { api, botBadge, fillLangMenu, h, loadCatalogs, loadLanguages, pickLang, setLang, t, translateDom } from "./common.js";
import { ratingChart } from "./ratingchart.js";

const $ = (id) => document.getElementById(id);
let lang = "en";
const S = window.rebirthState = { profile: null, error: null, series: null, version: 0 };

const name = () => decodeURIComponent(location.pathname.split("/players/")[1] || "");
const key = (s) => `${s.board}/${s.players}`;
const where = (board, players) => `${t(lang, `board.${board}`)} · ${t(lang, "ratings.n_players", { n: players })}`;
const pct = (x) => `${Math.round(x * 100)} %`;

function render() {
  const p = S.profile;
  $("stats-sec").hidden = $("chart-sec").hidden = $("recent-sec").hidden = !p;
  if (!p) { $("status").textContent = S.error || ""; return; }
  $("who").replaceChildren(p.name, ...(p.bot ? [" ", botBadge(lang)] : []));
  document.title = `Rebirth — ${p.name}`;
  $("status").textContent = p.stats.length ? "" : t(lang, "ratings.no_games");
  $("stats").replaceChildren(...p.stats.map((s) => h("tr", {},
    h("td", {}, `${t(lang, `board.${s.board}`)} · ${s.players}`),
    h("td", { class: "num" }, s.games), h("td", { class: "num" }, pct(s.win_share)),
    h("td", { class: "num" }, s.average_score.toFixed(1)),
    h("td", { class: "num" }, s.rating === null ? "–" : s.rating))));
  const rated = p.stats.filter((s) => s.history.length);
  $("chart-sec").hidden = rated.length === 0;
  if (rated.length) {
    if (!rated.some((s) => key(s) === S.series)) {
      S.series = key(rated.reduce((a, b) => (b.history.length > a.history.length ? b : a)));
    }
    $("series").replaceChildren(...rated.map((s) => h("option", { value: key(s) }, where(s.board, s.players))));
    $("series").value = S.series;
    const s = rated.find((x) => key(x) === S.series);
    $("chart").replaceChildren(ratingChart(s.history, {
      label: t(lang, "ratings.chart_label", { where: where(s.board, s.players), rating: s.rating }),
      xLabel: t(lang, "ratings.rated_games"), width: $("chart").clientWidth }));
  }
  $("recent").replaceChildren(...p.recent.map((g) => h("li", {},
    h("span", {}, where(g.board, g.players)),
    h("span", {}, t(lang, "ratings.place", { place: g.place, score: g.score })),
    g.rated ? h("span", { class: "small" }, t(lang, "ratings.rated")) : null,
    h("span", { class: "small" }, new Date(g.at * 1000).toLocaleDateString(lang)),
    h("a", { href: g.page }, t(lang, "ratings.open_game")))));
  $("recent-sec").hidden = p.recent.length === 0;
}

async function load() {
  try {
    S.profile = await api(`/api/players/${encodeURIComponent(name())}`);
    S.error = null;
  } catch (e) {
    S.profile = null;
    S.error = e.data?.error?.code === "unknown_player" ? t(lang, "ratings.unknown") : e.message;
  }
  render();
  S.version += 1;
  document.body.dataset.ready = "1";
}

async function main() {
  await loadLanguages();
  lang = pickLang();
  setLang(lang, false);
  await loadCatalogs(lang);
  translateDom(lang);
  fillLangMenu($("lang"), lang);
  $("lang").addEventListener("change", async () => {
    lang = $("lang").value; setLang(lang); await loadCatalogs(lang); translateDom(lang); render();
  });
  $("series").addEventListener("change", () => { S.series = $("series").value; render(); });
  await load();
}

main();
