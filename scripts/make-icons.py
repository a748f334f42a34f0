"""Draw the app's icons (issue 26 item 2): a cluster of hexes in the board's look — the header's
navy, the sea of the board, three region tints and an Okabe–Ito tile — as SVG, rendered to the
PNGs the web app manifest names (src/rebirth/web/icon-192.png, icon-512.png, and the 180 px
apple-touch-icon). Run: .venv/bin/python scripts/make-icons.py (needs cairosvg)."""

from __future__ import annotations

import math
from pathlib import Path

import cairosvg

WEB = Path(__file__).resolve().parents[1] / "src" / "rebirth" / "web"


def hexagon(cx: float, cy: float, r: float) -> str:
    pts = [(cx + r * math.cos(math.radians(60 * i - 30)), cy + r * math.sin(math.radians(60 * i - 30)))
           for i in range(6)]
    return " ".join(f"{x:.2f},{y:.2f}" for x, y in pts)


def svg() -> str:
    """A 512-unit square: navy ground (maskable: the hexes keep inside the safe 80 % circle)."""
    r = 62.0
    w = math.sqrt(3) * r  # flat side to flat side (pointy-top hexes)
    cx, cy = 256.0, 262.0
    cells = [(0, 0, "#e69f00"), (-1, 0, "#e8efe0"), (1, 0, "#f3ead9"), (-0.5, -1, "#e3ecf3"),
             (0.5, -1, "#e8efe0"), (-0.5, 1, "#f3ead9"), (0.5, 1, "#e3ecf3")]
    polys = "".join(
        f'<polygon points="{hexagon(cx + dx * w, cy + dy * 1.5 * r, r - 5)}" fill="{fill}" '
        f'stroke="#3a3a3a" stroke-width="6"/>' for dx, dy, fill in cells)
    # The tile in the middle carries a letter like every tile of the board.
    letter = (f'<text x="{cx}" y="{cy + 22}" font-family="DejaVu Sans, sans-serif" font-weight="bold" '
              f'font-size="64" text-anchor="middle" fill="#1b1b1b">R</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512" viewBox="0 0 512 512">'
            f'<rect width="512" height="512" fill="#23395b"/>'
            f'<circle cx="256" cy="262" r="200" fill="#cfe0ea"/>{polys}{letter}</svg>')


def main() -> None:
    src = svg().encode()
    for name, px in (("icon-192.png", 192), ("icon-512.png", 512), ("apple-touch-icon.png", 180)):
        cairosvg.svg2png(bytestring=src, write_to=str(WEB / name), output_width=px, output_height=px)
    (WEB / "icon.svg").write_bytes(src)


if __name__ == "__main__":
    main()
