// The seat's own tools on the game page (issue 25): move the seat to another device with a
// one-time transfer code (a link and its QR code, both made by the server: no outside service),
// and resign (asked first; a bot then plays the seat's moves out). And the log lines that say
// who resigned or ran out of time for good.
import { api, errorText, h, t } from "./common.js";

const S = { key: "", made: null, error: "", confirming: false };

/** The log lines of the game's forfeits ([{seat, reason}]). */
export function forfeitNotices(lang, forfeits, names) {
  return (forfeits || []).map((f) => h("li", { class: `ev ev-forfeit forfeit-${f.reason}`, "data-seat": f.seat },
    t(lang, f.reason === "resigned" ? "resign.resigned" : "resign.timeout", { name: names[f.seat] ?? "" })));
}

/** Fill `box` with the tools this page's link has (rebuilt only when what they show changes);
 * returns whether there is any. */
export function seatTools(box, { game, seat, role, token, lang, human, over, resign }) {
  const canMove = role === "seat" && seat !== null && human && !over;
  const canResign = (role === "seat" || role === "table") && seat !== null && human && !over;
  const key = JSON.stringify([game, seat, role, lang, canMove, canResign, S.made?.url, S.error, S.confirming]);
  if (key === S.key) return canMove || canResign;
  S.key = key;
  const out = [];
  if (canMove) {
    out.push(h("p", {}, h("button", { type: "button", id: "transfer", onclick: async () => {
      S.error = "";
      try {
        S.made = await api(`/api/games/${encodeURIComponent(game)}/transfer`, { method: "POST", token });
      } catch (e) { S.made = null; S.error = e.data?.error ? errorText(e.data.error, lang) : String(e.message || e); }
      seatTools(box, { game, seat, role, token, lang, human, over, resign });
    } }, t(lang, "transfer.button"))));
    if (S.made) {
      const url = new URL(S.made.url, location.origin).href;
      out.push(h("div", { class: "transfer", id: "transfer-box" },
        h("p", { class: "small" }, t(lang, "transfer.help", { minutes: Math.round(S.made.ttl_s / 60) })),
        h("label", {}, t(lang, "transfer.link"), " ",
          h("input", { class: "url", id: "transfer-url", readonly: true, value: url })),
        h("img", { id: "transfer-qr", class: "qr", src: S.made.qr, alt: t(lang, "transfer.qr"), width: 180, height: 180 })));
    }
  }
  if (canResign) {
    if (S.confirming) {
      out.push(h("div", { class: "resign-confirm", role: "alertdialog", "aria-labelledby": "resign-q" },
        h("p", { id: "resign-q" }, t(lang, "resign.confirm")),
        h("p", {}, h("button", { type: "button", id: "resign-yes", class: "danger", onclick: () => {
          S.confirming = false; S.key = ""; resign();
        } }, t(lang, "resign.yes")), " ",
        h("button", { type: "button", id: "resign-no", onclick: () => {
          S.confirming = false; seatTools(box, { game, seat, role, token, lang, human, over, resign });
          box.querySelector("#resign")?.focus();
        } }, t(lang, "resign.no")))));
    } else {
      out.push(h("p", {}, h("button", { type: "button", id: "resign", onclick: () => {
        S.confirming = true; seatTools(box, { game, seat, role, token, lang, human, over, resign });
        box.querySelector("#resign-no")?.focus();
      } }, t(lang, "resign.button"))));
    }
  }
  if (S.error) out.push(h("p", { class: "small", role: "alert" }, S.error));
  box.replaceChildren(...out);
  return canMove || canResign;
}
