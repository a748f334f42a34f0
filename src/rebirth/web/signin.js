// The sign-in page (issue 25): a link by e-mail (`/signin#c=CODE` spends it), or a passkey.
// Signing in sends the seat tokens this browser holds, so the account gets those seats; then
// back to where the player came from (`?next=`, kept across the mail's round trip).
import { api, fillLangMenu, loadCatalogs, loadLanguages, pickLang, setLang, t, translateDom } from "./common.js";
import { credentialJson, heldSeatTokens, keepNext, requestOptions, safeNext, takeNext } from "./account-kit.js";

const $ = (id) => document.getElementById(id);
let lang = "en";

const why = (e) => e?.data?.error?.message?.[lang] || e?.message || String(e);

function done() {
  localStorage.setItem("rebirth.account", "1");
  location.replace(takeNext() || "/account");
}

async function spend(code) {
  $("status").textContent = t(lang, "signin.working");
  try {
    await api("/api/account/signin", { method: "POST", body: { code, seats: heldSeatTokens() } });
    done();
  } catch (e) {
    $("status").textContent = "";
    $("error").textContent = t(lang, "signin.failed", { why: why(e) });
    document.body.dataset.ready = "1";
  }
}

async function ask(ev) {
  ev.preventDefault();
  $("error").textContent = "";
  try {
    await api("/api/account/email", { method: "POST", body: { email: $("email").value.trim(), lang } });
    $("sent").hidden = false;
  } catch (e) {
    $("error").textContent = t(lang, "signin.failed", { why: why(e) });
  }
}

async function withPasskey() {
  $("error").textContent = "";
  try {
    const { handle, options } = await api("/api/account/passkey/options", { method: "POST" });
    const cred = await navigator.credentials.get({ publicKey: requestOptions(options) });
    await api("/api/account/passkey/signin", { method: "POST",
      body: { handle, credential: credentialJson(cred), seats: heldSeatTokens() } });
    done();
  } catch (e) {
    $("error").textContent = t(lang, "signin.failed", { why: why(e) });
  }
}

/** A mailed link's code (`#c=`), spent; false when the address has none. */
async function fromLink() {
  const code = new URLSearchParams(location.hash.slice(1)).get("c");
  if (!code) return false;
  // The code leaves the address bar at once (history, screenshots, a shoulder).
  history.replaceState(null, "", location.pathname + location.search);
  await spend(code);
  return true;
}

async function init() {
  await loadLanguages();
  lang = pickLang();
  setLang(lang, false);
  await loadCatalogs(lang);
  translateDom(lang);
  const sel = $("lang");
  fillLangMenu(sel, lang);
  sel.addEventListener("change", async () => { lang = sel.value; await loadCatalogs(lang); translateDom(lang); setLang(lang); });
  const next = safeNext(new URLSearchParams(location.search).get("next"));
  if (next) { keepNext(next); $("needed").hidden = !next.startsWith("/game/"); }
  if (await fromLink()) return;
  // The link opened over this very page (same address but the fragment): no reload happens.
  window.addEventListener("hashchange", fromLink);
  $("mail").addEventListener("submit", ask);
  $("passkey").addEventListener("click", withPasskey);
  if (!window.PublicKeyCredential) $("passkey").hidden = true;
  document.body.dataset.ready = "1";
}

init();
