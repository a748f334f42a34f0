// The phone layout of the game page (issue 16 item 6): on a narrow screen the board opens
// zoomed to the region of the legal spaces, so that each is a touch target of at least 44 CSS px
// (the board stays pannable and zoomable); a strip of everyone's scores sits above the board;
// hex labels can be shown on the board. Desktop keeps the whole board in view.
import { HEX_WIDTH } from "./board.js";
import { SEAT_LETTERS, h, t } from "./common.js";

/** The phone layout applies below this width (style.css uses the same breakpoint). */
const NARROW = "(max-width: 820px)";
/** A legal hex is framed at this width: above the 44 px minimum, with room for rounding. */
const TARGET_PX = 50;
const MIN_PX = 44;
/** CSS px at the board's right edge taken by the zoom buttons: the framed spaces stay left of it. */
const BUTTONS_PX = 56;

export const narrow = () => matchMedia(NARROW).matches;

const framed = new WeakMap(); // board → the turn it was last framed for

/** Once per `key` (a turn): on a phone, frame the board around the legal spaces `labels` when
 * they are drawn smaller than MIN_PX or none of them is in view. A view the player chose
 * that already shows legal spaces large enough is left alone. */
export function frameTurn(board, labels, key) {
  if (!board || !labels.length || framed.get(board) === key || !narrow()) return;
  const r = board.svg.getBoundingClientRect();
  if (!r.width || !r.height) return;
  framed.set(board, key);
  const [x0, y0, perPx] = board.toBoard(r.left, r.top);
  const [x1, y1] = board.toBoard(r.right, r.bottom);
  const centres = labels.map((l) => board.centre(l)).filter(Boolean);
  // In view: wholly inside the board and left of the zoom buttons (a tap there reaches it).
  const half = HEX_WIDTH / 2;
  const inView = centres.filter(([x, y]) => x - half > x0 && x + half < x1 - BUTTONS_PX * perPx &&
    y - HEX_WIDTH * 0.6 > y0 && y + HEX_WIDTH * 0.6 < y1);
  if (HEX_WIDTH / perPx >= MIN_PX && inView.length) return;
  const scale = TARGET_PX / HEX_WIDTH; // CSS px per board unit
  const w = r.width / scale;
  const hh = r.height / scale;
  const free = Math.max(w / 2, w - BUTTONS_PX / scale); // the part not under the zoom buttons
  // The window, centred on one legal space, that holds the most of them whole.
  const mx = free / 2 - HEX_WIDTH / 2;
  const my = hh / 2 - HEX_WIDTH * 0.6;
  const inside = ([cx, cy]) => centres.filter(([x, y]) => Math.abs(x - cx) <= mx && Math.abs(y - cy) <= my);
  let best = [];
  for (const c of centres) {
    const got = inside(c);
    if (got.length > best.length) best = got;
  }
  // Centred on the middle of those spaces: each of them stays inside the window.
  const xs = best.map(([x]) => x);
  const ys = best.map(([, y]) => y);
  const cx = (Math.min(...xs) + Math.max(...xs)) / 2;
  const cy = (Math.min(...ys) + Math.max(...ys)) / 2;
  board.setViewBox([cx - free / 2, cy - hh / 2, w, hh]);
}

/** A board framed on a phone shows the whole map again once the window is wide (a phone
 * turned to landscape, a window made wider): framing is for narrow screens only. */
export function resetWhenWide(board) {
  matchMedia(NARROW).addEventListener("change", (e) => { if (!e.matches) board.reset(); });
}

/** At the end, once: a phone shows the whole final board again (the turns had zoomed it). */
export function fitAtEnd(board) {
  if (!board || framed.get(board) === "end" || !narrow()) return;
  framed.set(board, "end");
  board.reset();
}

/** The score strip above the board (shown on phones by style.css): every seat's score. */
export function scoreStrip(el, lang, view, names, colours, seat) {
  el.replaceChildren();
  if (!view) return;
  for (let q = 0; q < view.players; q++) {
    const current = view.current_player === q && view.phase !== "end";
    el.append(h("span", { class: `chip${current ? " current" : ""}`, "data-seat": q },
      h("span", { class: "swatch small", style: `background:${colours?.[q] ?? "#999"}` }, SEAT_LETTERS[q]),
      " ", names[q] ?? "", q === seat ? ` (${t(lang, "you")})` : "",
      " ", h("b", { class: "chip-score" }, String(view.scores[q]))));
  }
}

/** The hex labels button (aria-pressed): remembered on this device, applied to the board. */
export function labelsToggle(button, svg) {
  const key = "rebirth.labels";
  const apply = (on) => {
    button.setAttribute("aria-pressed", String(on));
    svg.classList.toggle("show-labels", on);
  };
  button.addEventListener("click", () => {
    const on = button.getAttribute("aria-pressed") !== "true";
    localStorage.setItem(key, on ? "on" : "off");
    apply(on);
  });
  apply(localStorage.getItem(key) === "on");
}
