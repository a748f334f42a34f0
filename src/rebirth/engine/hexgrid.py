"""Axial hex coordinates (pointy-top) and the odd-r offset labels used by maps and actions."""

from __future__ import annotations

import re

Hex = tuple[int, int]
"""An axial coordinate ``(q, r)``."""

DIRECTIONS: tuple[Hex, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


def neighbours(h: Hex) -> list[Hex]:
    """The six axial neighbours of ``h``."""
    q, r = h
    return [(q + dq, r + dr) for dq, dr in DIRECTIONS]


def to_offset(h: Hex) -> tuple[int, int]:
    """Axial to odd-r offset ``(col, row)``: odd rows sit half a hex to the right."""
    q, r = h
    return q + (r - (r & 1)) // 2, r


def from_offset(col: int, row: int) -> Hex:
    """Odd-r offset ``(col, row)`` to axial."""
    return col - (row - (row & 1)) // 2, row


def column_letters(col: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA (spreadsheet style)."""
    out = ""
    n = col + 1
    while n:
        n, rem = divmod(n - 1, 26)
        out = chr(65 + rem) + out
    return out


def column_index(letters: str) -> int:
    """Inverse of :func:`column_letters`."""
    n = 0
    for ch in letters:
        n = n * 26 + (ord(ch) - 64)
    return n - 1


LABEL_RE = re.compile(r"^([A-Z]{1,2})([1-9][0-9]{0,2})$")


def parse_label(label: str) -> tuple[int, int] | None:
    """A label such as ``C7`` to ``(col, row)`` counted from 0, or None if malformed."""
    m = LABEL_RE.match(label.strip().upper())
    if not m:
        return None
    return column_index(m.group(1)), int(m.group(2)) - 1
