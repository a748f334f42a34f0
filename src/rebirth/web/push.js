// Web push on the game page (issue 26 item 1): a seat subscribes this device through the
// service worker's PushManager. The flow explains first what will arrive and what the browser
// is about to ask, and only then asks for the permission; on iPhone and iPad, which deliver web
// push only to an app on the home screen, it says how to install instead. The subscription goes
// to PUT /api/games/{id}/notify ("push"), with the seat's other channels unchanged.
import { api, errorText, h, t } from "./common.js";
import { isIOS, isStandalone } from "./app.js";

let panelKey = null;

/** The base64url VAPID key as the bytes PushManager wants. */
function keyBytes(b64) {
  const s = (b64 + "=".repeat((4 - (b64.length % 4)) % 4)).replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}

/** What this browser can do: "ok", "ios" (install first) or "none". */
export function pushSupport() {
  if (isIOS() && !isStandalone()) return "ios";
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) return "none";
  return "ok";
}

async function registration() {
  await window.rebirthWorker;
  return navigator.serviceWorker.ready;
}

/** PUT the seat's channels with `push` (a subscription's JSON, or null), keeping the others. */
async function putPush(game, token, push) {
  const now = await api(`/api/games/${encodeURIComponent(game)}/notify`, { token });
  return api(`/api/games/${encodeURIComponent(game)}/notify`, { method: "PUT", token,
    body: { webhook: now.webhook ?? null, email: now.email ?? null, push } });
}

/** The seat's push panel in `box` (built once per game, seat and language). */
export async function pushPanel(box, { game, seat, token, lang }) {
  const key = `${game}/${seat}/${lang}`;
  if (panelKey === key) return;
  panelKey = key;
  const support = pushSupport();
  const msg = h("p", { id: "push-msg", class: "small", role: "status" });
  const head = h("h3", { id: "push-h" }, t(lang, "push.title"));
  if (support !== "ok") {
    box.replaceChildren(head, h("p", { id: support === "ios" ? "push-ios" : "push-none", class: "push-hint" },
      t(lang, support === "ios" ? "push.ios" : "push.unsupported")));
    return;
  }
  let on = false;
  try {
    const [mine, reg] = await Promise.all([api(`/api/games/${encodeURIComponent(game)}/notify`, { token }), registration()]);
    on = !!mine.push && !!(await reg.pushManager.getSubscription()) && Notification.permission === "granted";
  } catch { /* shown as off */ }
  if (panelKey !== key) return;
  const draw = () => {
    const blocked = Notification.permission === "denied";
    const enable = h("button", { type: "button", id: "push-enable", class: "primary", disabled: blocked },
      t(lang, "push.enable"));
    const disable = h("button", { type: "button", id: "push-disable" }, t(lang, "push.disable"));
    enable.addEventListener("click", turnOn);
    disable.addEventListener("click", turnOff);
    box.replaceChildren(head, ...(on
      ? [h("p", { id: "push-on", class: "push-state on" }, t(lang, "push.on")), h("p", {}, disable)]
      : [h("p", { id: "push-explain" }, t(lang, "push.explain")),
         h("p", { class: "small" }, t(lang, "push.private")),
         blocked ? h("p", { id: "push-denied", class: "push-hint", role: "alert" }, t(lang, "push.denied")) : "",
         h("p", {}, enable)]), msg);
  };
  async function turnOn() {
    msg.textContent = t(lang, "push.asking");
    try {
      if ((await Notification.requestPermission()) !== "granted") { msg.textContent = ""; draw(); return; }
      const { key: vapid } = await api("/api/push/key");
      const reg = await registration();
      const sub = (await reg.pushManager.getSubscription())
        || await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(vapid) });
      await putPush(game, token, sub.toJSON());
      on = true;
      msg.textContent = "";
      draw();
    } catch (e) {
      draw();
      msg.textContent = t(lang, "push.failed", { why: e.data?.error ? errorText(e.data.error, lang) : String(e.message || e) });
    }
  }
  async function turnOff() {
    try {
      await putPush(game, token, null);
      const sub = await (await registration()).pushManager.getSubscription();
      if (sub) await sub.unsubscribe();
      on = false;
      draw();
      msg.textContent = t(lang, "push.off");
    } catch (e) {
      msg.textContent = e.data?.error ? errorText(e.data.error, lang) : String(e.message || e);
    }
  }
  draw();
}
