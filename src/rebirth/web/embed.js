// The embeddable spectator view (/embed/game/{id}, issue 26 item 5): the public board of a
// game, read-only, without a token, optionally `?behind=N` moves behind; other sites may frame
// this page (and only this one). It asks GET /api/games/{id}/public again every few seconds.
import { BoardView, MapModel } from "./board.js";
import { SEAT_LETTERS, api, h, isLang, loadCatalogs, loadLanguages, pickLang, setLang, t, tn, translateDom, txt } from "./common.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 5000;
const gameId = decodeURIComponent(location.pathname.split("/").pop() || "");
const behind = Math.max(0, Number.parseInt(new URLSearchParams(location.search).get("behind") || "0", 10) || 0);
let lang = "en";
let board = null;
let model = null;

function render(pos) {
  const n = pos.view.players;
  $("embed-status").textContent = [
    txt(model.map.name, lang),
    pos.over ? t(lang, "embed.over", { total: pos.moves }) : t(lang, "embed.move", { n: pos.move }),
    pos.behind ? tn(lang, "embed.behind", pos.behind) : "",
  ].filter(Boolean).join(" · ");
  $("embed-scores").replaceChildren(...Array.from({ length: n }, (_, q) => h("li", { "data-seat": q,
    class: pos.view.current_player === q && !pos.over ? "current" : "" },
  h("span", { class: "swatch", style: `background:${model.colours[q]}` }, SEAT_LETTERS[q]),
  ` ${pos.names[q]}: `, h("b", {}, String(pos.view.scores[q])))));
  board.update(pos.view, { names: pos.names });
  document.body.dataset.move = String(pos.move);
  document.body.dataset.ready = "1";
}

async function poll() {
  try {
    const pos = await api(`/api/games/${encodeURIComponent(gameId)}/public?behind=${behind}`);
    if (!model) {
      // The game's language, unless the embedding site asked for one (?lang=).
      if (!isLang(new URLSearchParams(location.search).get("lang")) && isLang(pos.lang) && pos.lang !== lang) {
        lang = pos.lang; setLang(lang, false); await loadCatalogs(lang); translateDom(lang);
      }
      model = new MapModel(await api(`/api/boards/${encodeURIComponent(pos.board)}`));
      board = new BoardView($("board"), model, lang);
      $("board").setAttribute("aria-label", txt(model.map.name, lang));
    }
    render(pos);
    if (!pos.over) setTimeout(poll, POLL_MS);
  } catch (e) {
    $("embed-status").textContent = t(lang, "embed.unknown");
    document.body.dataset.ready = "1";
  }
}

async function init() {
  await loadLanguages();
  const asked = new URLSearchParams(location.search).get("lang");
  lang = isLang(asked) ? asked : pickLang();
  setLang(lang, false);
  await loadCatalogs(lang);
  translateDom(lang);
  await poll();
}

init();
