// The table companion (docs/table.md): /table shows the set-up form (table-setup.js),
// /table/{id} the play screen of one table game (table-play.js). This module holds what both
// share: the page's state, the language and its menu.
import { fillLangMenu, loadCatalogs, loadLanguages, pickLang, setLang, translateDom } from "./common.js";
import { initPlay, relangPlay } from "./table-play.js";
import { initSetup, relangSetup } from "./table-setup.js";

const S = { lang: "en", id: null, token: null, data: null, model: null, board: null, boardData: null,
  picked: null, cursor: null, error: "", busy: false, setupBoard: null, variants: [] };
window.tableState = S;

const $ = (id) => document.getElementById(id);

async function init() {
  await loadLanguages();
  S.lang = pickLang();
  setLang(S.lang, false);
  fillLangMenu($("lang"), S.lang);
  await loadCatalogs(S.lang);
  translateDom(S.lang);
  const m = location.pathname.match(/^\/table\/([^/]+)$/);
  S.id = m ? decodeURIComponent(m[1]) : null;
  $("lang").addEventListener("change", async () => {
    S.lang = $("lang").value;
    setLang(S.lang);
    await loadCatalogs(S.lang);
    translateDom(S.lang);
    if (S.id) relangPlay(); else await relangSetup();
  });
  if (S.id) await initPlay(S); else await initSetup(S);
  document.body.dataset.ready = "1";
}

init();
