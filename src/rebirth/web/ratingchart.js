// The rating history chart of a player's profile: an inline SVG drawn here (no library), one
// point per rated game, oldest first; the y axis spans the ratings shown with a margin.
import { sv } from "./common.js";

/** The SVG chart of `points` ([{rating, before, at}], oldest first); `label` names it for
 * assistive technology, `xLabel` the x axis. The line starts at the first game's rating
 * before it, so a single game already shows its change. */
export function ratingChart(points, { label = "", xLabel = "", width = 640 } = {}) {
  // Drawn at the width it is shown at (a phone's ~360 px), so its labels keep their size.
  const W = Math.round(Math.max(300, Math.min(720, width))); const H = Math.round(Math.min(260, W * 0.6)); const left = 48; const right = 16; const top = 16; const bottom = 36;
  const values = points.length ? [points[0].before, ...points.map((p) => p.rating)] : [1000];
  let lo = Math.min(...values); let hi = Math.max(...values);
  const span = Math.max(40, hi - lo);
  lo = Math.floor((lo - span * 0.1) / 10) * 10; hi = Math.ceil((hi + span * 0.1) / 10) * 10;
  const n = values.length;
  const x = (i) => left + (n === 1 ? 0.5 : i / (n - 1)) * (W - left - right);
  const y = (v) => top + (1 - (v - lo) / (hi - lo)) * (H - top - bottom);
  const svg = sv("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label });
  const ticks = 4;
  for (let k = 0; k <= ticks; k++) {
    const v = Math.round(lo + (k / ticks) * (hi - lo));
    svg.append(sv("line", { x1: left, y1: y(v), x2: W - right, y2: y(v), class: "grid" }),
      sv("text", { x: left - 6, y: y(v) + 4, class: "tick", "text-anchor": "end" }, v));
  }
  svg.append(sv("line", { x1: left, y1: H - bottom, x2: W - right, y2: H - bottom, class: "axis" }),
    sv("line", { x1: left, y1: top, x2: left, y2: H - bottom, class: "axis" }),
    sv("text", { x: (left + W - right) / 2, y: H - 8, class: "tick", "text-anchor": "middle" }, xLabel),
    sv("text", { x: left, y: H - bottom + 16, class: "tick", "text-anchor": "middle" }, 0),
    sv("text", { x: W - right, y: H - bottom + 16, class: "tick", "text-anchor": "end" }, n - 1));
  const pts = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  svg.append(sv("polyline", { points: pts, class: "line" }));
  values.forEach((v, i) => {
    const dot = sv("circle", { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 4, class: "dot" });
    dot.append(sv("title", {}, String(v)));
    svg.append(dot);
  });
  return svg;
}
