"""The page modules (src/rebirth/web/*.js) hold no rule the server knows and share by import
only: no module writes into another one's exports (the table page once recoloured every page by
writing into common.js's SEAT_COLOURS), and the facts the server sends (tile codes, neighbour
directions, categories, blockers S-6, display size S-8, seat colours) are not written out again.
A static check: it needs no browser."""

from __future__ import annotations

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "src" / "rebirth" / "web"
MODULES = sorted(WEB.glob("*.js"))
IMPORT = re.compile(r"import\s*\{([^}]*)\}\s*from")


def imported(text: str) -> set[str]:
    return {n.strip() for m in IMPORT.finditer(text) for n in m.group(1).split(",") if n.strip()}


def test_no_module_writes_into_an_import() -> None:
    assert len(MODULES) >= 10
    for path in MODULES:
        text = path.read_text("utf-8")
        for name in imported(text):
            # `X = …`, `X[i] = …`, `X.y = …`, `X.push(…)` on an imported binding.
            write = re.compile(rf"(?<![\w.$#?&]){re.escape(name)}(\[[^\]]*\]|\.\w+)?\s*=(?!=)"
                               rf"|(?<![\w.$#?&]){re.escape(name)}\.(push|splice|pop|shift|unshift|fill)\(")
            assert not write.search(text), f"{path.name} writes into the imported {name}"


def test_pages_do_not_restate_the_servers_facts() -> None:
    facts = {
        "tile codes": re.compile(r"\[\s*\"E\",\s*\"F\",\s*\"S1\""),
        "neighbour directions": re.compile(r"\[\s*\[\s*1,\s*0\s*\],\s*\[\s*-?[01],\s*-?[01]\s*\]"),
        "colours": re.compile(r"#E69F00", re.IGNORECASE),
        "categories": re.compile(r"\"public_missions\"\s*\]"),
        "blockers (S-6)": re.compile(r"includes\(\"blocker\"\)"),
        "display size (S-8)": re.compile(r"/8\b|> 8\b"),
    }
    for path in MODULES:
        text = path.read_text("utf-8")
        for what, pattern in facts.items():
            assert not pattern.search(text), f"{path.name} restates the {what} the server sends"
