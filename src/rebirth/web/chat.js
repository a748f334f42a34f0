// The game page's chat panel and its rematch box (issue 16 items 3 and 4; docs/protocol.md).
// What people typed (messages, names) goes into the page only as text nodes (`h` makes them,
// like `textContent`), never as markup. During a hot-seat hand-over the panel is hidden.
import { SEAT_LETTERS, api, h, t } from "./common.js";
import { announce } from "./kit.js";

const $ = (id) => document.getElementById(id);
const MAX_CHARS = 500;
const NAME_KEY = "rebirth.chatname";

export class Chat {
  /** `send(frame)` writes to the game socket; `colour(seat)` is a seat's colour. */
  constructor({ gameId, token, send, colour }) {
    this.gameId = gameId;
    this.token = token;
    this.send = send;
    this.colour = colour;
    this.messages = [];       // {seq, seat, role, name, text, at}, in order, each once
    this.error = "";
    this.rematch = null;      // {game, url, role} once there is one
    this.rematchError = "";
    this.busy = false;
    this.lang = "en";
    this.role = null;
    this.box = h("div", { id: "rematch-box", class: "rematch" });
  }

  /** A socket message: true when it was the chat's (`chat`, `rematch`, a chat refusal). After
   * each sync (a connect or a reconnect) it asks for the messages it has not seen yet. */
  onMessage(msg) {
    if (msg.type === "sync") {
      const last = this.messages.length ? this.messages[this.messages.length - 1].seq : 0;
      this.send({ type: "chat_history", after: last });
      return false;
    }
    if (msg.type === "chat") {
      const have = new Set(this.messages.map((m) => m.seq));
      const fresh = (msg.messages || []).filter((m) => !have.has(m.seq));
      this.messages = [...this.messages, ...fresh].sort((a, b) => a.seq - b.seq);
      this.renderLog(fresh.length > 0);
      // Screen readers hear what is new (not the history a page asks for when it connects).
      if (!msg.history && fresh.length) announce(fresh.map((m) => `${this.who(m)}: ${m.text}`).join(" "));
      if (msg.rematch) this.onRematch(msg.rematch);
      return true;
    }
    if (msg.type === "rematch") {
      this.onRematch(msg.game);
      return true;
    }
    if (msg.type === "error" && typeof msg.code === "string" && msg.code.startsWith("chat_")) {
      this.error = msg.message?.[this.lang] || msg.message?.en || msg.code;
      this.renderError();
      return true;
    }
    return false;
  }

  /** Build the panel inside `#chat-sec` (once). */
  mount() {
    const sec = $("chat-sec");
    const input = h("textarea", { id: "chat-input", rows: 2, maxlength: MAX_CHARS, autocomplete: "off" });
    const name = h("input", { id: "chat-name", type: "text", maxlength: 40, autocomplete: "nickname", hidden: true,
      value: localStorage.getItem(NAME_KEY) || "" });
    const form = h("form", { id: "chat-form", class: "chat-form", onsubmit: (e) => { e.preventDefault(); this.submit(); } },
      h("label", { class: "chat-name-label", for: "chat-name", hidden: true }, h("span", { id: "chat-name-text" }), name),
      h("label", { class: "sr-only", for: "chat-input", id: "chat-input-label" }),
      input,
      h("button", { type: "submit", id: "chat-send" }));
    input.addEventListener("keydown", (e) => {
      // Enter sends, Shift+Enter is a new line.
      if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); this.submit(); }
    });
    sec.replaceChildren(h("h2", { id: "chat-h" }), h("ol", { id: "chat-log", class: "chat-log", tabindex: 0,
      "aria-labelledby": "chat-h" }), h("p", { id: "chat-error", class: "chat-error", role: "alert" }), form);
  }

  submit() {
    const input = $("chat-input");
    const text = input.value.trim();
    if (!text) return;
    const frame = { type: "chat", text };
    if (this.role === "spectator" || this.role === "admin") {
      const name = $("chat-name").value.trim();
      localStorage.setItem(NAME_KEY, name);
      if (name) frame.name = name;
    }
    if (this.send(frame)) {
      input.value = "";
      this.error = "";
      this.renderError();
    }
  }

  /** Show or hide the panel and put its words in `S.lang`; `hidden`: a hot-seat hand-over. */
  render(S, hidden) {
    this.lang = S.lang;
    this.role = S.role;
    const sec = $("chat-sec");
    sec.hidden = hidden || !S.role;
    $("chat-h").textContent = t(S.lang, "chat.title");
    $("chat-input-label").textContent = t(S.lang, "chat.label");
    $("chat-input").placeholder = t(S.lang, "chat.placeholder");
    $("chat-send").textContent = t(S.lang, "chat.send");
    $("chat-name-text").textContent = t(S.lang, "chat.name");
    const watcher = S.role === "spectator" || S.role === "admin";
    $("chat-name").hidden = !watcher;
    sec.querySelector(".chat-name-label").hidden = !watcher;
    this.renderLog(false);
  }

  renderLog(scroll) {
    const ol = $("chat-log");
    if (!ol) return;
    // Rebuilt only when a message came or the language changed, not on every game update.
    const key = `${this.lang}|${this.messages.length}|${this.messages[this.messages.length - 1]?.seq ?? 0}`;
    if (ol.dataset.key === key) return;
    ol.dataset.key = key;
    const atEnd = ol.scrollHeight - ol.scrollTop - ol.clientHeight < 30;
    ol.replaceChildren(...(this.messages.length ? this.messages.map((m) => this.item(m))
      : [h("li", { class: "chat-empty" }, t(this.lang, "chat.empty"))]));
    if (scroll || atEnd) ol.scrollTop = ol.scrollHeight;
  }

  /** The name shown for a message's author. */
  who(m) {
    return m.role === "spectator" ? (m.name || t(this.lang, "chat.someone")) : m.name;
  }

  item(m) {
    const spectator = m.role === "spectator";
    const who = this.who(m);
    const at = new Date(m.at * 1000);
    return h("li", { class: `chat-msg ${spectator ? "from-spectator" : "from-player"}`, "data-seq": m.seq },
      spectator ? "" : h("span", { class: "swatch small", style: `background:${this.colour(m.seat) ?? "#999"}` }, SEAT_LETTERS[m.seat] ?? ""),
      " ", h("b", { class: "chat-who" }, who),
      spectator ? h("span", { class: "chat-tag" }, ` (${t(this.lang, "chat.spectator")})`) : "",
      h("time", { class: "chat-time", datetime: at.toISOString() }, ` ${at.toLocaleTimeString(this.lang, { hour: "2-digit", minute: "2-digit" })}`),
      h("div", { class: "chat-text" }, m.text));
  }

  renderError() {
    const el = $("chat-error");
    if (el) el.textContent = this.error;
  }

  // ------------------------------------------------------------------ rematch

  onRematch(game) {
    if (!this.rematch || this.rematch.game !== game) this.fetchLink();
  }

  /** Our own link to the rematch (the server derives it from our token; nobody else's). */
  async fetchLink() {
    try {
      const res = await api(`/api/games/${encodeURIComponent(this.gameId)}/rematch`, { token: this.token });
      if (res.game) this.rematch = res;
      this.rematchError = "";
    } catch (e) {
      this.rematchError = e.data?.error?.message?.[this.lang] || e.message;
    }
    this.renderRematch();
  }

  async start() {
    this.busy = true;
    this.renderRematch();
    try {
      this.rematch = await api(`/api/games/${encodeURIComponent(this.gameId)}/rematch`, { method: "POST", token: this.token });
      this.rematchError = "";
    } catch (e) {
      this.rematchError = e.data?.error?.message?.[this.lang] || e.message;
    }
    this.busy = false;
    this.renderRematch();
    $("rematch-link")?.focus();
  }

  /** The end screen's rematch box (the same element every time, so a re-render keeps it). */
  rematchBox(S) {
    this.lang = S.lang;
    this.role = S.role;
    this.renderRematch();
    return this.box;
  }

  renderRematch() {
    const lang = this.lang;
    const r = this.rematch;
    const canStart = this.role === "seat" || this.role === "table" || this.role === "admin";
    // Rebuilt only when what it says changes: a presence update re-rendering the end screen
    // while the player clicks "Offer a rematch" must not swallow the click.
    const key = JSON.stringify([lang, this.role, r, this.busy, this.rematchError]);
    if (this.box.dataset.key === key) return;
    this.box.dataset.key = key;
    const kids = [h("h3", {}, t(lang, "rematch.title"))];
    if (r && r.url) {
      kids.push(h("p", {}, t(lang, "rematch.ready")),
        h("p", {}, h("a", { id: "rematch-link", class: "button primary", href: r.url },
          t(lang, r.role === "spectator" ? "rematch.watch" : "rematch.play"))));
    } else if (r) {
      kids.push(h("p", {}, t(lang, "rematch.nolink")));
    } else if (canStart) {
      kids.push(h("p", { class: "help" }, t(lang, "rematch.help")),
        h("p", {}, h("button", { type: "button", id: "rematch", class: "primary", disabled: this.busy,
          onclick: () => this.start() }, t(lang, "rematch.offer"))));
    } else {
      kids.push(h("p", { class: "help" }, t(lang, "rematch.waiting")));
    }
    if (this.rematchError) kids.push(h("p", { role: "alert" }, this.rematchError));
    this.box.replaceChildren(...kids);
  }
}
