// The page of an e-mail's "stop these e-mails" link (`/unsubscribe#u=TOKEN`, issue 25 item 6):
// it asks first (a mail scanner that opens the link unsubscribes nobody), then posts the token
// to the one-click endpoint. The token leaves the address bar at once.
import { errorText, fillLangMenu, loadCatalogs, loadLanguages, pickLang, setLang, t, translateDom } from "./common.js";

const $ = (id) => document.getElementById(id);

async function init() {
  const token = new URLSearchParams(location.hash.slice(1)).get("u");
  history.replaceState(null, "", "/unsubscribe");
  await loadLanguages();
  let lang = pickLang();
  setLang(lang, false);
  fillLangMenu($("lang"), lang);
  await loadCatalogs(lang);
  translateDom(lang);
  $("lang").addEventListener("change", async () => {
    lang = $("lang").value; setLang(lang); await loadCatalogs(lang); translateDom(lang);
  });
  const msg = $("unsub-msg");
  if (!token) { $("unsub").disabled = true; msg.textContent = t(lang, "unsub.none"); }
  $("unsub").addEventListener("click", async () => {
    const r = await fetch(`/api/unsubscribe?u=${encodeURIComponent(token)}`, { method: "POST", referrerPolicy: "no-referrer" });
    const data = await r.json().catch(() => ({}));
    msg.textContent = r.ok ? t(lang, "unsub.done") : errorText(data.error, lang);
    document.body.dataset.done = r.ok ? "1" : "0";
    if (r.ok) $("unsub").disabled = true;
  });
  document.body.dataset.ready = "1";
}

init();
