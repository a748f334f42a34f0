// Game clocks on the game page (issue 16 item 1). The server keeps the clock and decides every
// time-out; the page only counts down from what the server last said (its `left` at its
// `server_time`), so a slow or wrong local clock can never cost anyone time.
import { api, h, t } from "./common.js";
import { announce } from "./kit.js";

/** Seconds before a player's time runs out that the page warns them (WCAG 2.2.1: time to extend). */
const WARN_S = 20;

const C = {
  frame: null,        // the server's clock (null: the game has no clock)
  at: 0,              // local time (s) the frame arrived
  handover: [],       // per seat: the server's time from which a hand-over to a bot is allowed
  handoverAt: 0,      // local time the hand-over times arrived
  offset: 0,          // server time - local time, from the latest frame
};
window.rebirthClock = C; // the tests read what the page holds

const nowS = () => Date.now() / 1000;

/** A frame's clock (and hand-over times) arrived: `clock` may be null (no clock). */
export function setClock(clock, handoverAt) {
  if (clock !== undefined) {
    C.frame = clock;
    C.at = nowS();
    if (clock) C.offset = clock.server_time - C.at;
  }
  if (handoverAt !== undefined) setHandover(handoverAt);
}

export function setHandover(list) {
  C.handover = list || [];
  C.handoverAt = nowS();
}

/** Seconds `seat` has left now, counted down locally from the server's last word. */
export function leftOf(seat) {
  const f = C.frame;
  if (!f) return null;
  const base = f.left[seat] ?? 0;
  // A seat on vacation: its time stands still (its vacation runs instead, the server counts it).
  const runs = f.running === seat && f.enabled && !f.away?.[seat];
  return Math.max(0, runs ? base - (nowS() - C.at) : base);
}

/** Seconds until another player may hand `seat` to a bot (0: now; null: not at all). */
export function handoverWait(seat) {
  const at = C.handover[seat];
  if (at === null || at === undefined) return null;
  return Math.max(0, Math.ceil(at - (nowS() + C.offset)));
}

export const timedOut = (seat) => !!C.frame?.timed_out?.[seat];

/** 4:05, 1:02:03, or "2 d 3 h". */
export function fmt(lang, s) {
  const total = Math.max(0, Math.floor(s));
  const d = Math.floor(total / 86400);
  const hrs = Math.floor((total % 86400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = String(total % 60).padStart(2, "0");
  if (d > 0) return t(lang, "clock.fmt.days", { d, h: hrs });
  return hrs > 0 ? `${hrs}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

function cellText(lang, seat) {
  if (!C.frame.enabled) return t(lang, "clock.off");
  const running = C.frame.running === seat ? ` (${t(lang, "clock.running")})` : "";
  if (C.frame.away?.[seat]) return t(lang, "clock.left", { time: fmt(lang, leftOf(seat)) }) + ` (${t(lang, "vacation.away")})`;
  return t(lang, "clock.left", { time: fmt(lang, leftOf(seat)) }) + running;
}

/** The clock line of one player panel ("" without a clock, and for a bot's seat: bots have none). */
export function clockCell(lang, seat, name, kind) {
  if (!C.frame || (kind !== "human" && !timedOut(seat))) return "";
  const running = C.frame.running === seat && C.frame.enabled;
  const cls = `clock${running ? " running" : ""}${running && leftOf(seat) < 10 ? " low" : ""}`;
  return h("div", { class: cls, "data-seat": seat },
    h("span", { class: "clock-left", "aria-live": "off" }, cellText(lang, seat)),
    timedOut(seat) ? h("span", { class: "clock-bot", "data-seat": seat }, " — ", t(lang, "clock.botplays", { name })) : "");
}

/** The label of "Let a bot finish for X", with the countdown until the server allows it. */
export function handoverLabel(lang, seat, name) {
  const wait = handoverWait(seat);
  return wait ? t(lang, "panel.tobot.wait", { name, s: wait }) : t(lang, "panel.tobot", { name });
}

/** The log lines of the clock's notices at step `version`. */
export function noticesAt(lang, version, names) {
  return (C.frame?.notices || []).filter((n) => n.version === version).map((n) =>
    h("li", { class: `ev ev-clock ${n.key.replace(".", "-")}` }, n.key === "clock.added" || n.key === "clock.paused"
      ? t(lang, n.key, { time: fmt(lang, n.s) })
      : t(lang, n.key === "clock.off" ? "clock.turnedoff" : n.key,
        { name: names[n.seat] ?? "", time: n.s === undefined ? "" : fmt(lang, n.s) })));
}

/** The box under the players: the returning player's notice and take-back, and the adjustments. */
export function clockBox({ lang, role, seat, names, gameId, token, onDone }) {
  const out = [];
  if (!C.frame) return out;
  const post = async (path, body) => {
    try {
      const res = await api(`/api/games/${encodeURIComponent(gameId)}${path}`, { method: "POST", token, body });
      C.frame = res.clock; C.at = nowS();
      onDone(res, "");
    } catch (e) { onDone(null, e.data?.error?.message?.[lang] || e.message); }
  };
  // A seat link takes back its own seat; a hot-seat table any of its players' seats.
  const mine = role === "seat" ? [seat] : role === "table" ? C.frame.timed_out.map((_, q) => q) : [];
  for (const s of mine) {
    if (s !== null && timedOut(s)) {
      const label = role === "table" ? t(lang, "clock.takeback.for", { name: names[s] }) : t(lang, "clock.takeback");
      out.push(h("div", { class: "clock-notice", role: "alert" },
        h("p", {}, role === "table" ? t(lang, "clock.timeout", { name: names[s] }) : t(lang, "clock.notice")),
        h("button", { type: "button", id: role === "table" ? `takeback-${s}` : "takeback", class: "primary",
          onclick: () => post(`/seats/${s}/back`) }, label)));
    }
  }
  if (role === "seat" && seat !== null) out.push(...vacationBox(lang, seat, post));
  if (C.frame.enabled && C.frame.proposal) out.push(proposalBox(lang, role, seat, names, post));
  else if (C.frame.enabled && (role === "admin" || role === "seat" || role === "table")) {
    const add = C.frame.kind === "turn" ? 86400 : 60;
    out.push(h("p", { class: "clock-adjust" },
      h("button", { type: "button", id: "clock-add", onclick: () => post("/clock", { add_s: add }) },
        t(lang, "clock.add", { time: fmt(lang, add) })), " ",
      h("button", { type: "button", id: "clock-off", onclick: () => post("/clock", { off: true }) },
        t(lang, "clock.turnoff"))));
  }
  return out;
}

/** A clock change waiting for the players' agreement (issue 26 item 6), shown to every seat
 * and spectator: the asked seats (the creator, in a game created so) accept or decline it, the
 * one who asked may withdraw it. The server decides who may; the page only offers it. */
function proposalBox(lang, role, seat, names, post) {
  const p = C.frame.proposal;
  const who = p.by === null || p.by === undefined ? t(lang, "clock.proposal.admin") : names[p.by] ?? "";
  const what = p.off ? t(lang, "clock.proposal.off", { name: who }) : t(lang, "clock.proposal.add", { name: who, time: fmt(lang, p.add_s || 0) });
  const creatorMode = C.frame.changes === "creator";
  const asked = role === "table" || (role === "seat" && p.waiting.includes(seat))
    || (creatorMode && (role === "admin" || (role === "seat" && seat === C.frame.creator)));
  const proposer = role === "seat" && seat === p.by;
  const waiting = creatorMode ? t(lang, "clock.proposal.waitcreator")
    : t(lang, "clock.proposal.waiting", { names: p.waiting.map((q) => names[q] ?? "").join(", ") });
  const buttons = [];
  if (asked) {
    buttons.push(h("button", { type: "button", id: "clock-accept", class: "primary", onclick: () => post("/clock/answer", { accept: true }) }, t(lang, "clock.accept")), " ",
      h("button", { type: "button", id: "clock-decline", onclick: () => post("/clock/answer", { accept: false }) }, t(lang, "clock.decline")));
  } else if (proposer || role === "admin") {
    buttons.push(h("button", { type: "button", id: "clock-withdraw", onclick: () => post("/clock/answer", { accept: false }) }, t(lang, "clock.withdraw")));
  }
  return h("div", { class: "clock-proposal", id: "clock-proposal", role: "status" },
    h("p", {}, what), h("p", { class: "small" }, proposer ? `${t(lang, "clock.proposal.sent")} ${waiting}` : waiting),
    buttons.length ? h("p", { class: "clock-answer" }, ...buttons) : "");
}

/** A seat's vacation (issue 26 item 3, turn clocks): what is left and the button that starts or
 * ends it; the server pauses the seat's own turn clock while it is away. */
function vacationBox(lang, seat, post) {
  const f = C.frame;
  if (!f.enabled || f.kind !== "turn" || !f.vacation) return [];
  const away = !!f.away?.[seat];
  const left = f.vacation[seat] ?? 0;
  if (!away && left <= 0) return [h("p", { class: "vacation small", id: "vacation-none" }, t(lang, "vacation.none"))];
  return [h("div", { class: `vacation${away ? " away" : ""}`, id: "vacation" },
    h("p", { class: "small" }, away ? t(lang, "vacation.on") : t(lang, "vacation.help")),
    h("p", { class: "small", id: "vacation-left" }, t(lang, "vacation.left", { time: fmt(lang, left) })),
    h("button", { type: "button", id: away ? "vacation-end" : "vacation-start",
      onclick: () => post("/vacation", { on: !away }) }, t(lang, away ? "vacation.end" : "vacation.take")))];
}

/** Every second: the clock lines count down in place; `onEdge` when a hand-over wait ends; the
 * player to move (`mySeat()`) is warned once per turn shortly before their time runs out. */
export function startTicker(lang, onEdge, mySeat = () => null) {
  let waiting = new Set();
  let warned = null;
  setInterval(() => {
    const me = mySeat();
    const f = C.frame;
    if (f && f.enabled && me !== null && f.running === me) {
      const left = leftOf(me);
      const turn = String(f.deadline);  // one warning per deadline (added time: a new one)
      if (left > 0 && left <= WARN_S && warned !== turn) {
        warned = turn;
        announce(t(lang(), "clock.warn", { s: Math.ceil(left) }), true);
      }
    }
    for (const el of document.querySelectorAll(".clock[data-seat] .clock-left")) {
      const seat = Number(el.parentElement.dataset.seat);
      if (!C.frame) continue;
      el.textContent = cellText(lang(), seat);
      el.parentElement.classList.toggle("low", C.frame.running === seat && C.frame.enabled && leftOf(seat) < 10);
    }
    const now = new Set();
    for (const el of document.querySelectorAll("button.tobot[data-seat]")) {
      const seat = Number(el.dataset.seat);
      if (handoverWait(seat)) now.add(seat);
      el.textContent = handoverLabel(lang(), seat, el.dataset.name || "");
    }
    if ([...waiting].some((s) => !now.has(s))) onEdge();
    waiting = now;
  }, 1000);
}

// ------------------------------------------------------------------ the lobby's choice

/** The lobby's clock presets (value → the `clock` of `POST /api/games`). */
export const CLOCK_PRESETS = [
  ["none", null],
  ["rt-300-10", { kind: "realtime", initial_s: 300, increment_s: 10 }],
  ["rt-180-2", { kind: "realtime", initial_s: 180, increment_s: 2 }],
  ["rt-600-5", { kind: "realtime", initial_s: 600, increment_s: 5 }],
  ["rt-900-10", { kind: "realtime", initial_s: 900, increment_s: 10 }],
  ["turn-43200", { kind: "turn", per_move_s: 43200 }],
  ["turn-86400", { kind: "turn", per_move_s: 86400 }],
  ["turn-259200", { kind: "turn", per_move_s: 259200 }],
];

function presetLabel(lang, c) {
  if (!c) return t(lang, "lobby.clock.none");
  if (c.kind === "realtime") return t(lang, "lobby.clock.realtime", { min: c.initial_s / 60, inc: c.increment_s });
  const hrs = c.per_move_s / 3600;
  return hrs >= 48 ? t(lang, "lobby.clock.turn.d", { d: hrs / 24 }) : t(lang, "lobby.clock.turn.h", { h: hrs });
}

/** Fill the lobby's clock menu (keeps the choice across a language change). */
export function clockMenu(sel, lang) {
  const keep = sel.value || "none";
  sel.replaceChildren(...CLOCK_PRESETS.map(([v, c]) => h("option", { value: v, selected: v === keep }, presetLabel(lang, c))));
}

/** The `clock` of the menu's choice (null: none). */
export const clockOf = (value) => (CLOCK_PRESETS.find(([v]) => v === value) || [null, null])[1];
