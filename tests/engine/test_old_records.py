"""Records written before the engine API change (explicit chance steps, codec, catalogs)
still replay exactly: tests/data/records/v1-*.json were written by commit 024bc10."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rebirth.engine.records import replay, result_json

RECORDS = sorted((Path(__file__).resolve().parents[1] / "data" / "records").glob("v1-*.json"))


def test_old_records_are_there() -> None:
    assert len(RECORDS) == 4
    assert any("chance" in p.read_text(encoding="utf-8") for p in RECORDS)  # I-7 reveals


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_old_record_replays_to_its_result(path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    state = replay(record)  # verifies every action and the recorded result
    assert state.is_terminal()
    assert result_json(state) == record["result"]
