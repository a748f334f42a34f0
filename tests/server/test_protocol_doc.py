"""docs/protocol.md's WebSocket tables agree with the declared frame types
(server/realtime/protocol.py, issue 24 item 3): the same types in each direction and, per type,
the same fields. A field added to a frame and not to the document (or the reverse) fails."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from rebirth.server.realtime import protocol

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
IDENT = re.compile(r"`([a-z_]+)`")


def tables(text: str) -> dict[str, dict[str, set[str]]]:
    """The WebSocket section's tables: direction -> {type: the fields its row names}."""
    section = text.split("## WebSocket", 1)[1].split("\n## ", 1)[0]
    out: dict[str, dict[str, set[str]]] = {}
    for direction, marker in (("in", "Client → server"), ("out", "Server → client")):
        part = section.split(marker, 1)[1]
        rows: dict[str, set[str]] = {}
        for line in part.splitlines():
            if not line.startswith("| `"):
                if rows and not line.startswith("|"):
                    break
                continue
            cells = [c.strip() for c in line.strip("|").split("|")]
            kind = IDENT.fullmatch(cells[0])
            assert kind is not None, line
            rows[kind.group(1)] = set(IDENT.findall(_outside_parentheses(cells[1])))
        out[direction] = rows
    return out


def _outside_parentheses(cell: str) -> str:
    depth, kept = 0, []
    for ch in cell:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            kept.append(ch)
    return "".join(kept)


def declared(types: tuple[type[msgspec.Struct], ...]) -> dict[str, set[str]]:
    """Per frame type (its tag): the fields of every struct with that tag."""
    out: dict[str, set[str]] = {}
    for t in types:
        tag = str(t.__struct_config__.tag)
        out.setdefault(tag, set()).update(f for f in t.__struct_fields__)
    return out


def mismatches(doc: dict[str, dict[str, set[str]]]) -> list[str]:
    found: list[str] = []
    for direction, types in (("in", protocol.INBOUND), ("out", protocol.OUTBOUND)):
        have, says = declared(types), doc[direction]
        names = set(declared(protocol.INBOUND)) | set(declared(protocol.OUTBOUND))
        for kind in sorted(set(have) | set(says)):
            if kind not in says:
                found.append(f"{direction}: `{kind}` is declared, not documented")
            elif kind not in have:
                found.append(f"{direction}: `{kind}` is documented, not declared")
            elif says[kind] - (names - have[kind]) != have[kind]:
                # A row may name other frame types (``the answer to `chat_history```).
                found.append(f"{direction}: `{kind}` documents {sorted(says[kind] - (names - have[kind]))}, "
                             f"declares {sorted(have[kind])}")
    return found


def test_the_websocket_tables_name_every_frame_and_field() -> None:
    assert mismatches(tables(DOC.read_text(encoding="utf-8"))) == []


def test_a_field_missing_from_the_document_is_caught() -> None:
    text = DOC.read_text(encoding="utf-8").replace("| `pong` | — |", "| `pong` | `at` |")
    planted = text.replace("`since` (last version seen, `-1` for all)", "(last version seen)")
    found = mismatches(tables(planted))
    assert "out: `pong` documents ['at'], declares []" in found
    assert "in: `hello` documents ['token'], declares ['since', 'token']" in found
