// "Since your last turn" (issue 26 item 4): a seat that comes back is shown the moves made
// since its own last move, step by step, as that seat saw them (its own log: the server's
// per-seat events, no hidden information), then the board now. Skippable; phone and desktop.
// The board positions are rebuilt from the log's placements, as the replay does.
import { BoardView } from "./board.js";
import { SEAT_LETTERS, h, t, tn } from "./common.js";
import { structureOwners } from "./kit.js";

const $ = (id) => document.getElementById(id);

/** The boards of a log, step by step: `frames[0]` before the first step with events, then one
 * per such step (spaces, scores, structure owners, the step and its lines). `view` is the
 * position now (its neutral tiles are those no step placed). */
export function framesOf(log, view, model, lineOf) {
  const placedHexes = new Set();
  for (const st of log) for (const e of st.events) if (e.kind === "place") placedHexes.add(e.data.hex);
  let spaces = view.spaces.map(([o], i) => (o === 4 && !placedHexes.has(model.spaces[i].label) ? [4, null] : [-1, null]));
  const scores = Array(view.players).fill(0);
  const owners = structureOwners(model);
  const frames = [{ spaces: spaces.map((x) => [...x]), scores: [...scores], lines: [], step: null, owners: owners.now() }];
  for (const st of log) {
    if (!st.events.length) continue;
    for (const e of st.events) {
      if (e.kind === "place") spaces[model.byLabel.get(e.data.hex)] = [e.seat, e.data.tile];
      if (e.points && e.seat !== null) scores[e.seat] += e.points;
    }
    owners.apply(st.events);
    frames.push({ spaces: spaces.map((x) => [...x]), scores: [...scores], lines: st.events.map(lineOf), step: st,
      owners: owners.now() });
    spaces = spaces.map((x) => [...x]);
  }
  return frames;
}

const seenKey = (game, seat) => `rebirth.seen.${game}.${seat}`;

/** The version this browser last showed `seat` of `game` (-1: never). */
export function seenVersion(game, seat) {
  const v = Number.parseInt(localStorage.getItem(seenKey(game, seat)) ?? "", 10);
  return Number.isFinite(v) ? v : -1;
}

/** Remember that `seat` of `game` was shown up to `version`. */
export function markSeen(game, seat, version) {
  if (version > seenVersion(game, seat)) localStorage.setItem(seenKey(game, seat), String(version));
}

/** The steps to show `seat`: those after its own last move (or after what this browser already
 * showed it, if later); none when nobody else moved since, or the seat never moved. */
export function stepsSince(log, seat, seen) {
  // Only a seat that has had a turn: before its first move the board it opens is all there is.
  const own = log.filter((st) => st.seat === seat).map((st) => st.version);
  if (!own.length) return null;
  const since = Math.max(seen, ...own);
  const after = log.filter((st) => st.version > since && st.events.length);
  return after.some((st) => st.seat !== null && st.seat !== seat) ? { since, steps: after } : null;
}

/** Open the recap dialog in the element `#recap`. `ctx`: lang, model, names, colours, view
 * (now), log, seat, since (the version of the seat's last move), lineOf (an event's words),
 * onClose. */
export function openRecap(ctx) {
  const { lang, model, names, log, since } = ctx;
  const frames = framesOf(log, ctx.view, model, ctx.lineOf);
  // The first frame shown is the board as the seat left it; then one per step since.
  let start = 0;
  frames.forEach((f, i) => { if (f.step && f.step.version <= since) start = i; });
  const shown = frames.slice(start);
  const moves = shown.filter((f) => f.step && f.step.seat !== null && f.step.seat !== ctx.seat).length;
  const el = $("recap");
  let i = shown.length > 1 ? 1 : 0;
  let mini = null;
  const close = () => {
    el.hidden = true;
    $("main").inert = false;
    el.removeEventListener("keydown", key);
    ctx.onClose();
  };
  const go = (d) => {
    if (i + d >= shown.length) { close(); return; }
    i = Math.max(0, i + d);
    draw();
  };
  const key = (e) => {
    if (e.key === "ArrowRight") { e.preventDefault(); go(1); }
    if (e.key === "ArrowLeft") { e.preventDefault(); go(-1); }
    if (e.key === "Escape") { e.preventDefault(); close(); }
  };
  function draw() {
    const f = shown[i];
    const last = new Map();
    for (const e of f.step?.events || []) if (e.kind === "place") last.set(e.seat, e.data.hex);
    mini.update({ ...ctx.view, spaces: f.spaces, ...f.owners }, { names, last });
    // On a phone the whole board is small: the step's placement is shown up close.
    const hex = [...last.values()][0];
    const at = hex && matchMedia("(max-width: 820px)").matches ? mini.centre(hex) : null;
    if (at) {
      const [, , w, hh] = model.box;
      mini.setViewBox([at[0] - w / 5, at[1] - hh / 5, w / 2.5, hh / 2.5]);
    } else mini.reset();
    const who = f.step && f.step.seat !== null ? names[f.step.seat] : null;
    el.querySelector(".recap-step").textContent = f.step
      ? t(lang, "recap.step", { n: i, total: shown.length - 1 }) : t(lang, "recap.start");
    el.querySelector(".recap-who").replaceChildren(
      who !== null ? h("span", { class: "swatch small", style: `background:${ctx.colours[f.step.seat]}` }, SEAT_LETTERS[f.step.seat]) : "",
      who !== null ? ` ${who}` : "");
    el.querySelector(".recap-lines").replaceChildren(...f.lines.map((l) => h("li", {}, l)));
    el.querySelector(".recap-scores").textContent = f.scores.map((s, q) => `${SEAT_LETTERS[q]} ${names[q]}: ${s}`).join(" · ");
    $("recap-prev").disabled = i === 0;
    $("recap-next").textContent = t(lang, i === shown.length - 1 ? "recap.now" : "recap.next");
    el.dataset.step = String(i);
  }
  el.replaceChildren(h("div", { class: "card wide recap-card" },
    h("h2", { id: "recap-h" }, t(lang, "recap.title")),
    h("p", { class: "help" }, tn(lang, "recap.count", moves)),
    h("div", { class: "replay-nav recap-nav" },
      h("button", { type: "button", id: "recap-prev", onclick: () => go(-1) }, t(lang, "recap.prev")),
      h("button", { type: "button", id: "recap-next", class: "primary", onclick: () => go(1) }, t(lang, "recap.next")),
      h("button", { type: "button", id: "recap-skip", onclick: close }, t(lang, "recap.skip"))),
    h("p", { class: "recap-head" }, h("strong", { class: "recap-step" }), " ", h("span", { class: "recap-who" })),
    h("ul", { class: "replay-lines recap-lines", "aria-live": "polite" }),
    h("svg", { svg: true, id: "recap-board", class: "board small-board recap-board" }),
    h("p", { class: "replay-scores recap-scores" })));
  el.hidden = false;
  $("main").inert = true;
  mini = new BoardView($("recap-board"), model, lang, { colours: ctx.colours });
  el.addEventListener("keydown", key);
  draw();
  $("recap-next").focus();
}
