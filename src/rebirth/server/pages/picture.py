"""The public board as a picture (issue 26 item 5): the same SVG the page draws
(web/board.js), written on the server from a public view, rasterised with ``cairosvg`` to a
PNG and, frame by frame, to an animated GIF with Pillow.

Only a **public** view goes in (``infoset.view(state, None)``: the spectator's), and only its
board fields are read (spaces, structure owners, scores) plus the seats' public names, so a
picture can hold nothing a spectator could not see.

The geometry and the colours are board.js's; ``tests/server/test_share.py`` reads board.js and
checks that its constants (hex size, region tints, glyph paths) are these, so the two drawings
cannot drift apart unnoticed.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from rebirth.engine.board import builtin_board
from rebirth.server.pages.facts import board_facts

SIZE = 20.0
"""A hex's corner radius in board units (board.js ``SIZE``)."""
SQ3 = math.sqrt(3)
REGION_TINTS = ("#e8efe0", "#f3ead9", "#e3ecf3", "#efe3ec", "#f2f0d8", "#e0efed", "#ece6f5", "#f5e6e0")
"""board.js ``REGION_TINTS``: the regions' ground colours, by region index."""
NEUTRAL_COLOUR = "#777777"
"""common.js ``NEUTRAL_COLOUR``."""
SEAT_LETTERS = ("A", "B", "C", "D")
NEUTRAL = 4
"""The owner of a neutral tile in a view's ``spaces``."""
SEA = "#cfe0ea"
"""The board's background (style.css ``.board``)."""
STRUCTURE_FILL = {"castle": "#5b5147", "tower": "#3d5366", "cathedral": "#6a4c7a"}
"""style.css ``.structure .hex`` per kind."""

# board.js kindGlyph/structureGlyph, as paths relative to the hex's centre ("M x,y" + these).
KIND_GLYPHS = {
    "energy": "m2,-8 l-6,9 h4 l-2,7 l6,-9 h-4 z",
    "settlement": "m-5,5 v-6 l5,-5 l5,5 v6 z",
    "flexible": "m0,-6 l6,6 l-6,6 l-6,-6 z",
}
STRUCTURE_GLYPHS = {
    "castle": "m-8,7 v-12 h3 v3 h3 v-3 h4 v3 h3 v-3 h3 v12 z",
    "cathedral": "m-2,-9 h4 v5 h5 v4 h-5 v9 h-4 v-9 h-5 v-4 h5 z",
    "tower": "m-4,8 v-12 l4,-5 l4,5 v12 z",
}
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
BAR = 34.0
"""Board units above the board for the seats' names and scores."""


def _corners(x: float, y: float, s: float) -> str:
    pts = []
    for i in range(6):
        a = math.radians(60 * i - 30)
        pts.append(f"{x + s * math.cos(a):.2f},{y + s * math.sin(a):.2f}")
    return " ".join(pts)


def _edge_facing(x: float, y: float, nx: float, ny: float) -> int:
    return (round(math.atan2(ny - y, nx - x) / (math.pi / 3)) + 6) % 6


@lru_cache(maxsize=8)
def _ground(board: str) -> tuple[str, tuple[tuple[float, float], ...],
                                 tuple[tuple[str, float, float], ...], tuple[float, float, float, float]]:
    """What never changes on a board: the hexes, glyphs and district edges (an SVG fragment),
    the spaces' centres, the structures (kind, centre) and the box, computed once per board."""
    b = builtin_board(board)
    src = b.source
    facts = board_facts(board)
    regions = {r["id"]: i for i, r in enumerate(src["regions"])}
    centres = [(SIZE * SQ3 * (s["q"] + s["r"] / 2), SIZE * 1.5 * s["r"]) for s in src["spaces"]]
    structs = [(str(s["kind"]), SIZE * SQ3 * (s["q"] + s["r"] / 2), SIZE * 1.5 * s["r"])
               for s in src["structures"]]
    out: list[str] = []
    edges: list[str] = []
    for i, s in enumerate(src["spaces"]):
        x, y = centres[i]
        tint = REGION_TINTS[regions.get(s.get("region"), 0) % len(REGION_TINTS)]
        out.append(f'<polygon points="{_corners(x, y, SIZE)}" fill="{tint}" stroke="#8a8a8a" '
                   'stroke-width=".8"/>')
        kind = s.get("kind")
        if kind == "food":
            out.append(f'<circle cx="{x:.2f}" cy="{y:.2f}" r="4" fill="#6d6d6d" fill-opacity=".55"/>')
        elif kind in KIND_GLYPHS:
            out.append(f'<path d="M{x:.2f},{y:.2f} {KIND_GLYPHS[kind]}" fill="#6d6d6d" fill-opacity=".55"/>')
        markers = s.get("markers") or ()
        if "port" in markers:
            out.append(f'<text x="{x + 9:.2f}" y="{y - 7:.2f}" font-size="9" fill="#1c3d66">⚓</text>')
        if "offshore" in markers:
            out.append(f'<text x="{x + 8:.2f}" y="{y - 7:.2f}" font-size="9" fill="#1c3d66">≈</text>')
        district = s.get("district")
        if district:
            inside = {_edge_facing(x, y, *centres[n]) for n in facts["neighbours"][i]
                      if src["spaces"][n].get("district") == district}
            angles = [math.radians(60 * k - 30) for k in range(6)]
            pts = [(x + SIZE * math.cos(a), y + SIZE * math.sin(a)) for a in angles]
            for k in range(6):
                if k in inside:
                    continue
                (ax, ay), (bx, by) = pts[k], pts[(k + 1) % 6]
                edges.append(f'<line x1="{ax:.2f}" y1="{ay:.2f}" x2="{bx:.2f}" y2="{by:.2f}"/>')
    out.append('<g stroke="#2b2b2b" stroke-width="2.4" stroke-linecap="round">' + "".join(edges) + "</g>")
    for kind, x, y in structs:
        out.append(f'<polygon points="{_corners(x, y, SIZE)}" fill="{STRUCTURE_FILL.get(kind, "#5b5147")}" '
                   f'stroke="#2b2b2b"/>')
        glyph = STRUCTURE_GLYPHS.get(kind, STRUCTURE_GLYPHS["tower"])
        out.append(f'<path d="M{x:.2f},{y:.2f} {glyph}" fill="#fff"/>')
    xs = [c[0] for c in centres] + [s[1] for s in structs]
    ys = [c[1] for c in centres] + [s[2] for s in structs]
    box = (min(xs) - SIZE * 1.5, min(ys) - SIZE * 1.5,
           max(xs) - min(xs) + SIZE * 3, max(ys) - min(ys) + SIZE * 3)
    return "".join(out), tuple(centres), tuple(structs), box


def board_svg(board: str, view: Mapping[str, Any], names: Sequence[str], *, width: int = 1000,
              caption: str = "", layer: str = "all") -> str:
    """The public ``view`` (a spectator's View JSON) on ``board`` as an SVG document
    ``width`` px wide: the seats' names and scores above, then the board as board.js draws it
    (tiles with their seat's letter and code, structure owners). ``caption`` (e.g. "Move 12 of
    80") is written at the top right. ``layer``: ``all``; ``ground`` (the sea and the empty
    board only) or ``top`` (everything else, on a transparent ground): the GIF draws the
    ground once and lays each move's top over it."""
    ground, _, _, (bx, by, bw, bh) = _ground(board)
    top = by - BAR
    height = bh + BAR
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{round(width * height / bw)}" '
            f'viewBox="{bx:.2f} {top:.2f} {bw:.2f} {height:.2f}" font-family={quoteattr(FONT)} '
            f'text-anchor="middle">')
    back = (f'<rect x="{bx:.2f}" y="{top:.2f}" width="{bw:.2f}" height="{height:.2f}" fill="{SEA}"/>'
            f'<rect x="{bx:.2f}" y="{top:.2f}" width="{bw:.2f}" height="{BAR - 4:.2f}" fill="#fff"/>')
    if layer == "ground":
        return f"{head}{back}<g>{ground}</g></svg>"
    upper = _top(board, view, names, caption)
    if layer == "top":
        return f"{head}{upper}</svg>"
    return f"{head}{back}<g>{ground}</g>{upper}</svg>"


def _top(board: str, view: Mapping[str, Any], names: Sequence[str], caption: str) -> str:
    """The tiles, the structures' owners and the score bar of ``view``."""
    _, centres, structs, (bx, by, bw, _bh) = _ground(board)
    colours = board_facts(board)["colours"][:4]
    tiles: list[str] = []
    for (owner, code), (x, y) in zip(view["spaces"], centres, strict=True):
        if owner is None or owner < 0:
            continue
        fill = NEUTRAL_COLOUR if owner == NEUTRAL else colours[owner]
        letter = "×" if owner == NEUTRAL else SEAT_LETTERS[owner]
        tiles.append(f'<polygon points="{_corners(x, y, SIZE - 3)}" fill="{fill}" stroke="#1b1b1b" '
                     f'stroke-width="1.2"/>'
                     f'<text x="{x:.2f}" y="{y - 1:.2f}" font-size="12" font-weight="800">{letter}</text>')
        if code:
            tiles.append(f'<text x="{x:.2f}" y="{y + 10:.2f}" font-size="7">{escape(str(code))}</text>')
    owners: list[str] = []
    index: dict[str, int] = {}
    for kind, x, y in structs:
        k = index.get(kind, 0)
        index[kind] = k + 1
        for j, seat in enumerate(_owners(view, kind, k)):
            cx, cy = x - 10.5 + j * 7, y + 11
            owners.append(f'<circle cx="{cx:.2f}" cy="{cy:.2f}" r="3.8" fill="{colours[seat]}" stroke="#000" '
                          f'stroke-width=".8"/><text x="{cx:.2f}" y="{cy + 2.3:.2f}" font-size="5.5" '
                          f'font-weight="700">{SEAT_LETTERS[seat]}</text>')
    # The seats' names and scores in a bar above the board (what the page's score strip shows).
    scores = view.get("scores") or ()
    bar: list[str] = []
    step = bw / max(1, len(scores))
    for q, score in enumerate(scores):
        x = bx + q * step + 4
        name = names[q] if q < len(names) else SEAT_LETTERS[q]
        label = f"{SEAT_LETTERS[q]} {name}"[:24]
        bar.append(f'<rect x="{x:.2f}" y="{by - BAR + 6:.2f}" width="14" height="14" rx="3" '
                   f'fill="{colours[q]}" stroke="#1b1b1b"/><text x="{x + 18:.2f}" y="{by - BAR + 17.5:.2f}" '
                   f'font-size="11" text-anchor="start">{escape(label)}: '
                   f'<tspan font-weight="800">{int(score)}</tspan></text>')
    if caption:
        bar.append(f'<text x="{bx + bw - 4:.2f}" y="{by - 4:.2f}" font-size="9" text-anchor="end" '
                   f'fill="#1b3d66">{escape(caption)}</text>')
    return f'<g>{"".join(tiles)}</g><g>{"".join(owners)}</g>{"".join(bar)}'


def png(svg: str) -> bytes:
    """An SVG document as a PNG (its own width and height in px), by cairosvg; ImportError or
    OSError when cairosvg or Debian's libcairo2 is missing."""
    # Imported here: a server without libcairo2 still starts (board.png is 503).
    import cairosvg

    out = cairosvg.svg2png(bytestring=svg.encode())
    assert isinstance(out, bytes)
    return out


MAX_FRAMES = 160
"""A GIF's frames at most: a longer game shows every k-th move (and always the last)."""
GIF_WIDTH = 640
"""A GIF frame's width in px (smaller than the PNG: a GIF of 100 frames stays some 1-2 MB)."""


def _sprite(fragment: str, half: float, px: int) -> Any:
    """An SVG fragment drawn around (0, 0) within ``half`` board units, as a Pillow RGBA image
    ``px`` px square."""
    from PIL import Image

    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{px}" height="{px}" '
           f'viewBox="{-half} {-half} {2 * half} {2 * half}" font-family={quoteattr(FONT)} '
           f'text-anchor="middle">{fragment}</svg>')
    return Image.open(io.BytesIO(png(svg))).convert("RGBA")


def gif(board: str, views: Sequence[Mapping[str, Any]], names: Sequence[str], captions: Sequence[str],
        *, frame_ms: int = 700, last_ms: int = 4000) -> bytes:
    """The public ``views`` (one per move, in order) as an animated GIF that loops; the last
    frame stays ``last_ms``. At most :data:`MAX_FRAMES` frames (every k-th move, the last kept).

    Rasterising a whole board per frame costs about a second; so the empty board is drawn once,
    each kind of tile (seat and code) and owner mark once, from the same SVG fragments as
    :func:`board_svg`, and each frame pastes them at their hexes, with its score bar drawn
    anew."""
    from PIL import Image

    n = len(views)
    keep = list(range(n))
    if n > MAX_FRAMES:
        k = math.ceil(n / MAX_FRAMES)
        keep = [*range(0, n - 1, k), n - 1]
    _, centres, structs, (bx, by, bw, _bh) = _ground(board)
    colours = board_facts(board)["colours"][:4]
    top = by - BAR
    scale = GIF_WIDTH / bw
    ground = Image.open(io.BytesIO(png(board_svg(board, views[0], names, width=GIF_WIDTH,
                                                 layer="ground")))).convert("RGBA")
    tile_px = math.ceil(2 * SIZE * scale)
    sprites: dict[tuple[int, str], Any] = {}
    marks: dict[int, Any] = {}
    mark_px = math.ceil(9.2 * scale)

    def tile(owner: int, code: str) -> Any:
        if (owner, code) not in sprites:
            fill = NEUTRAL_COLOUR if owner == NEUTRAL else colours[owner]
            letter = "×" if owner == NEUTRAL else SEAT_LETTERS[owner]
            frag = (f'<polygon points="{_corners(0, 0, SIZE - 3)}" fill="{fill}" stroke="#1b1b1b" '
                    f'stroke-width="1.2"/><text x="0" y="-1" font-size="12" '
                    f'font-weight="800">{letter}</text>')
            if code:
                frag += f'<text x="0" y="10" font-size="7">{escape(code)}</text>'
            sprites[(owner, code)] = _sprite(frag, SIZE, tile_px)
        return sprites[(owner, code)]

    def mark(seat: int) -> Any:
        if seat not in marks:
            marks[seat] = _sprite(f'<circle cx="0" cy="0" r="3.8" fill="{colours[seat]}" stroke="#000" '
                                  f'stroke-width=".8"/><text x="0" y="2.3" font-size="5.5" '
                                  f'font-weight="700">{SEAT_LETTERS[seat]}</text>', 4.6, mark_px)
        return marks[seat]

    def at(x: float, y: float, half: float) -> tuple[int, int]:
        return round((x - half - bx) * scale), round((y - half - top) * scale)

    frames = []
    palette: Any = None
    for i in reversed(keep):  # the last frame first: it has every colour, its palette serves all
        v = views[i]
        img = ground.copy()
        for (owner, code), (x, y) in zip(v["spaces"], centres, strict=True):
            if owner is not None and owner >= 0:
                img.alpha_composite(tile(owner, str(code or "")), at(x, y, SIZE))
        index: dict[str, int] = {}
        for kind, x, y in structs:
            k = index.get(kind, 0)
            index[kind] = k + 1
            for j, seat in enumerate(_owners(v, kind, k)):
                img.alpha_composite(mark(seat), at(x - 10.5 + j * 7, y + 11, 4.6))
        empty = {"spaces": [(-1, None)] * len(centres), "scores": v.get("scores")}
        bar = _top(board, empty, names, captions[i])
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{GIF_WIDTH}" height="{round(BAR * scale)}" '
                f'viewBox="{bx:.2f} {top:.2f} {bw:.2f} {BAR:.2f}" font-family={quoteattr(FONT)} '
                f'text-anchor="middle">')
        img.alpha_composite(Image.open(io.BytesIO(png(f"{head}{bar}</svg>"))).convert("RGBA"), (0, 0))
        rgb = img.convert("RGB")
        if palette is None:
            palette = rgb.quantize(colors=64, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
            frames.append(palette)
        else:
            frames.append(rgb.quantize(palette=palette, dither=Image.Dither.NONE))
    frames.reverse()
    buf = io.BytesIO()
    durations = [frame_ms] * (len(frames) - 1) + [last_ms]
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0,
                   optimize=True, disposal=1)
    return buf.getvalue()


def _owners(view: Mapping[str, Any], kind: str, k: int) -> list[int]:
    """The seats marked on the ``k``-th structure of ``kind`` in ``view`` (castle holder,
    cathedral pieces, tower visits)."""
    if kind == "castle":
        holders = view.get("castle_holders") or ()
        return [holders[k]] if k < len(holders) and holders[k] is not None and holders[k] >= 0 else []
    field = {"cathedral": "cathedral_pieces", "tower": "tower_visits"}.get(kind)
    rows = (view.get(field) or ()) if field else ()
    return list(rows[k]) if k < len(rows) else []


__all__ = ["GIF_WIDTH", "MAX_FRAMES", "board_svg", "gif", "png"]
