"""The hand-built positions of docs/positions.md (issue 9): ``rebirth score`` prints exactly the
breakdown worked out there by hand (T-2, T-4, T-7, C-1…C-5, I-12, K-1…K-3, S-6, E-2…E-4)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rebirth.cli.main import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "positions.md"
SECTION = re.compile(r"<!-- position: (\w+) -->\n```json\n(.*?)\n```.*?```text\n(.*?)\n```", re.S)


def cases() -> list[tuple[str, str, str]]:
    found = [(m[1], m[2], m[3]) for m in SECTION.finditer(DOC.read_text("utf-8"))]
    assert [n for n, _, _ in found] == ["scotland3", "ireland3", "scotland2"]
    return found


@pytest.mark.parametrize(("name", "position", "printed"), cases())
def test_rebirth_score_prints_the_hand_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               name: str, position: str, printed: str) -> None:
    path = tmp_path / f"{name}.json"
    path.write_text(position, encoding="utf-8")
    assert main(["score", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    table = lines[1:lines.index("")]
    assert table == printed.splitlines()


def test_hand_totals_match_the_prose() -> None:
    """The totals stated in bold by hand are those of the printed table."""
    text = DOC.read_text("utf-8")
    want = {"scotland3": [16, 16, 8], "ireland3": [5, 5, 5], "scotland2": [13, 13]}
    for name, _, printed in cases():
        rows = [r for r in printed.splitlines() if r.startswith("Player")]
        assert [int(r.split()[-1]) for r in rows] == want[name]
    assert "Player 1 **wins**" in text and "Player 2 **wins**" in text


def test_positions_are_valid_json_with_neutral_tiles() -> None:
    data = {n: json.loads(p) for n, p, _ in cases()}
    assert sum(1 for t in data["scotland2"]["tiles"] if t.get("neutral")) == 32
