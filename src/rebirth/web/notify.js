// Telling a player it is their turn (issue 16 item 2). On the page itself: the tab title
// "(Your turn) …", a badge on the favicon, a short sound and the browser's Notification API when
// permitted (each of the last two chosen per seat, kept in this browser). Away from the page:
// the webhook and e-mail the seat chose, which the server sends (server/notifications/notifier.py); this module
// holds the small form that sets them with the seat's own link.
import { api, errorText, h, t } from "./common.js";

const BASE_TITLE = "Rebirth";
const PLAIN_ICON = "data:,";
// A red dot: the favicon's "your turn" badge (a data: URL, allowed by the page's CSP img-src).
const BADGE_ICON = "data:image/svg+xml," + encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><circle cx='8' cy='8' r='7' fill='#c62828'/></svg>");

let wasMine = null; // null until the first render: opening the page on your turn makes no sound
let panelKey = "";

const prefKey = (game, seat) => `rebirth.notify.${game}.${seat}`;

/** This browser's page-channel choices for a seat: { sound, browser }. */
export function pagePrefs(game, seat) {
  try {
    return { sound: false, browser: false, ...JSON.parse(localStorage.getItem(prefKey(game, seat)) || "{}") };
  } catch { return { sound: false, browser: false }; }
}

function savePrefs(game, seat, prefs) {
  localStorage.setItem(prefKey(game, seat), JSON.stringify(prefs));
}

function setIcon(href) {
  let link = document.querySelector("link[rel='icon']");
  if (!link) { link = h("link", { rel: "icon" }); document.head.append(link); }
  if (link.getAttribute("href") !== href) link.setAttribute("href", href);
}

function beep() {
  try {
    const ctx = new AudioContext();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.35);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.35);
    osc.onended = () => ctx.close();
  } catch { /* no audio on this device: the title and badge still tell */ }
}

/** Show on the page whether it is this seat's turn: call it after every render. A change to
 * "mine" (not the first render) also plays the sound and shows the browser notification, when
 * this seat chose them. `signals` counts what was done (the tests read it). */
export function turnSignal({ mine, lang, game, seat }) {
  document.title = mine ? t(lang, "notify.tab", { title: BASE_TITLE }) : BASE_TITLE;
  setIcon(mine ? BADGE_ICON : PLAIN_ICON);
  document.body.dataset.badge = mine ? "turn" : "";
  const changed = wasMine === false && mine;
  wasMine = mine;
  if (!changed || seat === null) return;
  const prefs = pagePrefs(game, seat);
  turnSignal.signals.turns += 1;
  if (prefs.sound) { beep(); turnSignal.signals.sounds += 1; }
  if (prefs.browser && "Notification" in window && Notification.permission === "granted" && document.hidden) {
    try {
      const n = new Notification(t(lang, "notify.tab", { title: BASE_TITLE }), { body: t(lang, "notify.popup"), tag: `rebirth-${game}` });
      n.onclick = () => { window.focus(); n.close(); };
      turnSignal.signals.popups += 1;
    } catch { /* some browsers allow notifications only from a service worker */ }
  }
}
turnSignal.signals = { turns: 0, sounds: 0, popups: 0 };

/** The seat's notification form in `box` (built once per language): the page's sound and
 * browser notification, the webhook and e-mail (sent to the server with the seat's token). */
export async function notifyPanel(box, { game, seat, token, lang }) {
  const key = `${game}/${seat}/${lang}`;
  if (panelKey === key) return;
  panelKey = key;
  let current = { webhook: null, email: null, email_available: false, policy_used: "away" };
  try {
    current = await api(`/api/games/${encodeURIComponent(game)}/notify`, { token });
  } catch { /* shown empty; saving will say what is wrong */ }
  if (panelKey !== key) return;
  const prefs = pagePrefs(game, seat);
  const msg = h("p", { id: "notify-msg", class: "small", role: "status" });
  const sound = h("input", { type: "checkbox", id: "notify-sound", checked: prefs.sound });
  const popup = h("input", { type: "checkbox", id: "notify-browser", checked: prefs.browser });
  sound.addEventListener("change", () => {
    savePrefs(game, seat, { ...pagePrefs(game, seat), sound: sound.checked });
    if (sound.checked) beep();
  });
  popup.addEventListener("change", async () => {
    let ok = popup.checked;
    if (ok && "Notification" in window && Notification.permission !== "granted") {
      ok = (await Notification.requestPermission()) === "granted";
    }
    if (popup.checked && !ok) { popup.checked = false; msg.textContent = t(lang, "notify.denied"); }
    savePrefs(game, seat, { ...pagePrefs(game, seat), browser: popup.checked });
  });
  const hook = h("input", { type: "url", id: "notify-webhook", value: current.webhook || "", maxlength: 2000,
    placeholder: "https://discord.com/api/webhooks/…", autocomplete: "off" });
  const mail = h("input", { type: "email", id: "notify-email", value: current.email || "", maxlength: 254,
    autocomplete: "email", disabled: !current.email_available && !current.email });
  // When the server tells this seat (issue 25 item 6): not while a page of it is visible, or every turn.
  const policy = (value) => h("label", { class: "pref" }, h("input", { type: "radio", name: "notify-policy",
    id: `notify-policy-${value}`, value, checked: (current.policy_used || "away") === value }), " ",
  t(lang, `notify.policy.${value}`));
  const policies = h("fieldset", { id: "notify-policy" }, h("legend", {}, t(lang, "notify.policy")),
    policy("away"), policy("every"));
  const save = h("button", { type: "submit", id: "notify-save" }, t(lang, "notify.save"));
  const form = h("form", { class: "notify-form" },
    h("label", { class: "pref" }, sound, " ", t(lang, "notify.sound")),
    h("label", { class: "pref" }, popup, " ", t(lang, "notify.browser")),
    h("label", {}, t(lang, "notify.webhook"), " ", hook),
    h("label", {}, t(lang, "notify.email"), " ", mail),
    current.email_available ? "" : h("p", { class: "small" }, t(lang, "notify.no_email")),
    policies, h("p", {}, save), msg);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    msg.textContent = "";
    try {
      await api(`/api/games/${encodeURIComponent(game)}/notify`, { method: "PUT", token,
        body: { webhook: hook.value.trim() || null, email: mail.value.trim() || null,
          policy: form.querySelector("input[name='notify-policy']:checked")?.value || null } });
      msg.textContent = t(lang, "notify.saved");
    } catch (e) {
      msg.textContent = e.data?.error ? errorText(e.data.error, lang) : String(e.message || e);
    }
  });
  box.replaceChildren(h("p", { class: "small" }, t(lang, "notify.help")), form);
}
