// The SVG hex board, drawn from the map file (docs/maps.md) and the board's facts from the
// server (labels like C7, neighbours, seat colours): axial pointy-top layout, regions tinted,
// districts outlined, structures as symbols with <title>.
import { NEUTRAL_COLOUR, SEAT_LETTERS, h, sv, t, txt } from "./common.js";

const SIZE = 20;
const SQ3 = Math.sqrt(3);
/** A hex's width (flat side to flat side) in board units: the phone layout sizes taps by it. */
export const HEX_WIDTH = SIZE * SQ3;
const REGION_TINTS = ["#e8efe0", "#f3ead9", "#e3ecf3", "#efe3ec", "#f2f0d8", "#e0efed", "#ece6f5", "#f5e6e0"];

function corners(x, y, s) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = (Math.PI / 180) * (60 * i - 30);
    pts.push([x + s * Math.cos(a), y + s * Math.sin(a)]);
  }
  return pts;
}
const pointsAttr = (pts) => pts.map(([a, b]) => `${a.toFixed(2)},${b.toFixed(2)}`).join(" ");

/** The edge of a hex at (x, y) that faces the point (nx, ny): edge i joins corners i and i+1,
 * whose middle lies at 60°·i from the centre. */
const edgeFacing = (x, y, nx, ny) => (Math.round(Math.atan2(ny - y, nx - x) / (Math.PI / 3)) + 6) % 6;

/** Map geometry and the server's facts, shared by the board and the replay. `data` is the
 * answer of GET /api/boards/{board}: `map` (the map file) and `facts` (server/pages/facts.py). */
export class MapModel {
  constructor(data) {
    const { map, facts } = data;
    this.map = map;
    this.facts = facts;
    // The seats' default colours: the first four a table seat may take.
    this.colours = facts.colours.slice(0, 4);
    this.spaces = map.spaces.map((s, i) => ({ ...s, index: i, label: facts.labels[i],
      neighbours: facts.neighbours[i], x: SIZE * SQ3 * (s.q + s.r / 2), y: SIZE * 1.5 * s.r }));
    this.byLabel = new Map(this.spaces.map((s) => [s.label, s.index]));
    this.structures = map.structures.map((s, i) => ({ ...s, label: facts.structure_labels[i],
      x: SIZE * SQ3 * (s.q + s.r / 2), y: SIZE * 1.5 * s.r }));
    // Index per kind in file order: the view's castle_holders / cathedral_pieces / tower_visits.
    const count = {};
    for (const s of this.structures) { s.kindIndex = count[s.kind] ?? 0; count[s.kind] = s.kindIndex + 1; }
    this.regions = new Map(map.regions.map((r, i) => [r.id, { ...r, index: i }]));
    const xs = [...this.spaces, ...this.structures].map((s) => s.x);
    const ys = [...this.spaces, ...this.structures].map((s) => s.y);
    this.box = [Math.min(...xs) - SIZE * 1.5, Math.min(...ys) - SIZE * 1.5,
      Math.max(...xs) - Math.min(...xs) + SIZE * 3, Math.max(...ys) - Math.min(...ys) + SIZE * 3];
  }
}

/** Draws one board into an <svg>; `update` paints the tiles, legal spaces and highlights. */
export class BoardView {
  constructor(svg, model, lang, { onHover, onPick, colours } = {}) {
    this.svg = svg;
    this.model = model;
    this.colours = colours || model.colours;
    this.lang = lang;
    this.onHover = onHover || (() => {});
    this.onPick = onPick || (() => {});
    this.vb = [...model.box];
    this.spaceEls = [];
    this.draw();
    this.panZoom();
  }

  draw() {
    const { model, lang } = this;
    const svg = this.svg;
    svg.replaceChildren();
    svg.setAttribute("viewBox", this.vb.join(" "));
    const root = sv("g", { class: "board-root" });
    const ground = sv("g", { class: "ground" });
    const edges = sv("g", { class: "district-edges" });
    const tiles = sv("g", { class: "tiles" });
    const structs = sv("g", { class: "structures" });
    for (const s of model.spaces) {
      const region = model.regions.get(s.region);
      const districtName = s.district ? txt(model.map.districts?.[s.district], lang) || s.district : "";
      const kind = t(lang, `space.${s.kind}`);
      const marks = (s.markers || []).filter((m) => m !== "blocker").map((m) => t(lang, `space.${m}`));
      const title = [s.label, kind, txt(region?.name, lang), districtName, ...marks].filter(Boolean).join(" · ");
      const g = sv("g", { class: `space kind-${s.kind}`, "data-label": s.label, "data-index": s.index },
        sv("title", {}, title),
        sv("polygon", { class: "hex", points: pointsAttr(corners(s.x, s.y, SIZE)),
          fill: REGION_TINTS[(region?.index ?? 0) % REGION_TINTS.length] }),
        this.kindGlyph(s));
      if ((s.markers || []).includes("port")) g.append(sv("text", { x: s.x + 9, y: s.y - 7, class: "marker" }, "⚓"));
      if ((s.markers || []).includes("offshore")) g.append(sv("text", { x: s.x + 8, y: s.y - 7, class: "marker" }, "≈"));
      g.append(sv("g", { class: "tile" }));
      // The hex's label (e.g. C7), shown when the board has the class show-labels.
      g.append(sv("text", { x: s.x, y: s.y - 11, class: "hex-label" }, s.label));
      g.addEventListener("pointerenter", () => this.onHover(s.label));
      g.addEventListener("click", (e) => { if (!this.dragged) this.onPick(s.label, e); });
      ground.append(g);
      this.spaceEls[s.index] = g;
      if (s.district) {
        // Outline every edge that does not face a space of the same district.
        const pts = corners(s.x, s.y, SIZE);
        const inside = new Set(s.neighbours.map((n) => model.spaces[n])
          .filter((n) => n.district === s.district).map((n) => edgeFacing(s.x, s.y, n.x, n.y)));
        for (let i = 0; i < 6; i++) {
          if (inside.has(i)) continue;
          const [a, b] = [pts[i], pts[(i + 1) % 6]];
          edges.append(sv("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1] }));
        }
      }
    }
    for (const s of model.structures) {
      const g = sv("g", { class: `structure ${s.kind}`, "data-label": s.label },
        sv("title", {}, `${txt(s.name, lang)} (${s.label})`),
        sv("polygon", { class: "hex", points: pointsAttr(corners(s.x, s.y, SIZE)) }),
        this.structureGlyph(s), sv("g", { class: "owners" }));
      s.el = g;
      structs.append(g);
    }
    root.append(ground, edges, tiles, structs);
    this.tilesLayer = tiles;
    svg.append(root);
  }

  kindGlyph(s) {
    const { x, y } = s;
    if (s.kind === "energy") return sv("path", { class: "glyph", d: `M${x + 2},${y - 8} L${x - 4},${y + 1} L${x},${y + 1} L${x - 2},${y + 8} L${x + 4},${y - 1} L${x},${y - 1} Z` });
    if (s.kind === "food") return sv("circle", { class: "glyph", cx: x, cy: y, r: 4 });
    if (s.kind === "settlement") return sv("path", { class: "glyph", d: `M${x - 5},${y + 5} V${y - 1} L${x},${y - 6} L${x + 5},${y - 1} V${y + 5} Z` });
    if (s.kind === "flexible") return sv("path", { class: "glyph", d: `M${x},${y - 6} L${x + 6},${y} L${x},${y + 6} L${x - 6},${y} Z` });
    return sv("g", {});
  }

  structureGlyph(s) {
    const { x, y } = s;
    if (s.kind === "castle") {
      return sv("path", { class: "sglyph", d: `M${x - 8},${y + 7} V${y - 5} h3 v3 h3 v-3 h4 v3 h3 v-3 h3 V${y + 7} Z` });
    }
    if (s.kind === "cathedral") return sv("path", { class: "sglyph", d: `M${x - 2},${y - 9} h4 v5 h5 v4 h-5 v9 h-4 v-9 h-5 v-4 h5 Z` });
    return sv("path", { class: "sglyph", d: `M${x - 4},${y + 8} V${y - 4} L${x},${y - 9} L${x + 4},${y - 4} V${y + 8} Z` });
  }

  /** Paint a view: tiles, structure owners, legal spaces, last placements, cursor, ghost. */
  update(view, { legal = new Set(), last = new Map(), cursor = null, ghost = null, names = [] } = {}) {
    const lang = this.lang;
    const lastBy = new Map([...last].map(([seat, label]) => [label, seat]));
    view.spaces.forEach(([owner, code], i) => {
      const s = this.model.spaces[i];
      const g = this.spaceEls[i];
      const tile = g.querySelector(".tile");
      tile.replaceChildren();
      g.classList.toggle("legal", legal.has(s.label));
      g.classList.toggle("cursor", cursor === s.label);
      g.classList.toggle("last", lastBy.has(s.label));
      if (owner >= 0) tile.append(...this.tileShape(s.x, s.y, owner, code, names));
      else if (ghost && ghost.label === s.label) {
        const shape = this.tileShape(s.x, s.y, ghost.seat, ghost.code, names);
        tile.append(sv("g", { class: "ghost" }, ...shape));
      }
      if (lastBy.has(s.label)) {
        tile.append(sv("polygon", { class: "last-ring", points: pointsAttr(corners(s.x, s.y, SIZE - 1.5)),
          stroke: this.colours[lastBy.get(s.label)] }));
      }
      const title = g.querySelector("title");
      const base = title.textContent.split(" — ")[0];
      const who = owner === 4 ? t(lang, "tile.neutral") : owner >= 0
        ? `${names[owner] ?? ""} (${SEAT_LETTERS[owner]}): ${code ? t(lang, `tile.${code}`) : ""}` : t(lang, "space.free");
      title.textContent = `${base} — ${who}${legal.has(s.label) ? ` — ${t(lang, "space.legal")}` : ""}`;
    });
    for (const s of this.model.structures) {
      const owners = s.el.querySelector(".owners");
      owners.replaceChildren();
      let seats = [];
      if (s.kind === "castle") seats = [view.castle_holders?.[s.kindIndex]].filter((x) => x !== undefined && x >= 0);
      if (s.kind === "cathedral") seats = view.cathedral_pieces?.[s.kindIndex] || [];
      if (s.kind === "tower") seats = view.tower_visits?.[s.kindIndex] || [];
      seats.forEach((seat, k) => {
        // Inside the structure's own hex, so that they never cover a neighbouring space.
        const cx = s.x - 10.5 + k * 7;
        const cy = s.y + 11;
        owners.append(sv("circle", { cx, cy, r: 3.8, fill: this.colours[seat], class: "owner" }),
          sv("text", { x: cx, y: cy + 2.3, class: "owner-letter" }, SEAT_LETTERS[seat]));
      });
      const title = s.el.querySelector("title");
      const base = title.textContent.split(" — ")[0];
      title.textContent = seats.length ? `${base} — ${seats.map((q) => names[q]).join(", ")}` : base;
    }
  }

  tileShape(x, y, owner, code, names) {
    const colour = owner === 4 ? NEUTRAL_COLOUR : this.colours[owner];
    const letter = owner === 4 ? "×" : SEAT_LETTERS[owner];
    void names;
    const out = [sv("polygon", { class: "tile-hex", points: pointsAttr(corners(x, y, SIZE - 3)), fill: colour }),
      sv("text", { x, y: y - 1, class: "tile-letter" }, letter)];
    if (code) out.push(sv("text", { x, y: y + 10, class: "tile-code" }, code));
    return out;
  }

  /** Centre of a space in board coordinates. */
  centre(label) {
    const s = this.model.spaces[this.model.byLabel.get(label)];
    return s ? [s.x, s.y] : null;
  }

  setViewBox(vb) {
    this.vb = vb;
    this.svg.setAttribute("viewBox", vb.map((v) => v.toFixed(1)).join(" "));
  }

  zoom(factor, cx, cy) {
    const [x, y, w, hh] = this.vb;
    const nw = Math.min(this.model.box[2] * 2, Math.max(this.model.box[2] / 8, w / factor));
    const f = w / nw;
    const px = cx ?? x + w / 2;
    const py = cy ?? y + hh / 2;
    this.setViewBox([px - (px - x) / f, py - (py - y) / f, nw, hh / f]);
  }

  reset() { this.setViewBox([...this.model.box]); }

  toBoard(clientX, clientY) {
    const r = this.svg.getBoundingClientRect();
    const [x, y, w, hh] = this.vb;
    const scale = Math.max(w / r.width, hh / r.height);
    const ox = x + (w - r.width * scale) / 2;
    const oy = y + (hh - r.height * scale) / 2;
    return [ox + (clientX - r.left) * scale, oy + (clientY - r.top) * scale, scale];
  }

  /** Pan with one pointer, pinch-zoom with two, wheel zoom: on the board only. */
  panZoom() {
    const svg = this.svg;
    const pts = new Map();
    let start = null;
    this.dragged = false;
    svg.addEventListener("wheel", (e) => {
      e.preventDefault();
      const [bx, by] = this.toBoard(e.clientX, e.clientY);
      this.zoom(e.deltaY < 0 ? 1.2 : 1 / 1.2, bx, by);
    }, { passive: false });
    svg.addEventListener("pointerdown", (e) => {
      pts.set(e.pointerId, [e.clientX, e.clientY]);
      start = { vb: [...this.vb], pts: new Map(pts) };
      this.dragged = false;
    });
    svg.addEventListener("pointermove", (e) => {
      if (!pts.has(e.pointerId) || !start) return;
      pts.set(e.pointerId, [e.clientX, e.clientY]);
      const [, , scale] = this.toBoard(0, 0);
      if (pts.size === 1) {
        const [sx, sy] = start.pts.get(e.pointerId) || [e.clientX, e.clientY];
        const dx = e.clientX - sx;
        const dy = e.clientY - sy;
        if (!this.dragged && Math.hypot(dx, dy) < 6) return;
        if (!this.dragged) svg.setPointerCapture(e.pointerId);
        this.dragged = true;
        this.setViewBox([start.vb[0] - dx * scale, start.vb[1] - dy * scale, start.vb[2], start.vb[3]]);
      } else if (pts.size === 2 && start.pts.size === 2) {
        const [a, b] = [...pts.values()];
        const [a0, b0] = [...start.pts.values()];
        const d = Math.hypot(a[0] - b[0], a[1] - b[1]);
        const d0 = Math.hypot(a0[0] - b0[0], a0[1] - b0[1]) || 1;
        this.dragged = true;
        this.setViewBox(start.vb);
        const [mx, my] = this.toBoard((a[0] + b[0]) / 2, (a[1] + b[1]) / 2);
        this.zoom(d / d0, mx, my);
      }
    });
    const end = (e) => {
      pts.delete(e.pointerId);
      start = pts.size ? { vb: [...this.vb], pts: new Map(pts) } : null;
      // A click follows pointerup; keep `dragged` for it, clear afterwards.
      setTimeout(() => { if (!pts.size) this.dragged = false; }, 0);
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
  }
}
