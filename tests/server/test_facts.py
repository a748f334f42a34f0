"""``GET /api/boards/{board}`` sends the board's facts (server/pages/facts.py) so the pages re-derive no
rule: hex labels, neighbours, tile codes, categories, the neutral tiles of S-6, the display size
of S-8, what a secret mission pays (K-2, I-9) and the seat colours."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from rebirth.engine.board import builtin_board
from rebirth.engine.game import Game
from rebirth.engine.hexgrid import neighbours
from rebirth.engine.tiles import TILE_CODES
from server.kit import client


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client(tmp_path_factory.mktemp("facts")) as c:
        yield c


def facts(api: TestClient, board: str) -> dict[str, Any]:
    r = api.get(f"/api/boards/{board}")
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()["facts"]
    return out


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_labels_neighbours_and_tiles_are_the_engines(api: TestClient, board: str) -> None:
    f = facts(api, board)
    b = builtin_board(board)
    raw = b.source["structures"]
    assert f["labels"] == [s.label for s in b.spaces]
    # Every label parses back to its space, as an action "C7" does (P-1).
    assert all(b.space(label).index == i for i, label in enumerate(f["labels"]))
    assert [b.structure_at[(s["q"], s["r"])].label for s in raw] == f["structure_labels"]
    for i, near in enumerate(f["neighbours"]):
        hexes = set(neighbours(b.spaces[i].hex))
        assert {b.spaces[j].hex for j in near} == {h for h in hexes if h in b.by_hex}
        assert all(i in f["neighbours"][j] for j in near)
    assert f["tiles"] == list(TILE_CODES)
    assert len(f["colours"]) >= 4 and len(set(f["colours"])) == len(f["colours"])


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_S6_neutral_tiles_only_on_blockers_with_two_players(api: TestClient, board: str) -> None:
    f = facts(api, board)
    b = builtin_board(board)
    assert f["neutral"]["2"] == [b.spaces[i].label for i in b.blockers] and f["neutral"]["2"]
    assert f["neutral"]["3"] == [] and f["neutral"]["4"] == []


def test_S8_display_size_and_categories(api: TestClient) -> None:
    ire, sco = facts(api, "ireland"), facts(api, "scotland")
    assert ire["display_size"] == len(Game.builtin("ireland", 3).deal(5).display)
    assert sco["display_size"] == 0 and Game.builtin("scotland", 3).deal(5).display == ()
    for board, f in (("ireland", ire), ("scotland", sco)):
        view = Game.builtin(board, 4).new_state(9).view(0)
        assert f["categories"] == list(view.breakdown[0])
    # The calculator's empty 2-player Scotland position (neutral tiles of S-6) scores with the
    # same categories as the page shows before its first answer.
    pos = {"format": "rebirth-position", "version": 1, "board": "scotland", "players": 2, "variants": [],
           "tiles": [{"hex": h, "neutral": True} for h in sco["neutral"]["2"]], "castles": {},
           "district_last": {}, "cathedrals": {}, "tower_visits": {}, "tower_tokens": {}, "secrets": None}
    r = api.post("/api/score", json={"position": pos})
    assert r.status_code == 200, r.text
    assert r.json()["categories"] == sco["categories"]


def test_K2_I9_what_a_secret_mission_pays(api: TestClient) -> None:
    for board in ("scotland", "ireland"):
        f = facts(api, board)
        cards = Game.builtin(board, 3).cards
        assert set(f["secret_points"]) == {c.id for c in cards}
        for c in cards:
            # I-9: a secret Ireland card pays its first value; K-2: a Scotland card its points.
            assert f["secret_points"][c.id] == (c.values[0] if board == "ireland" else c.points) > 0


def test_unknown_board_has_no_facts(tmp_path: Path) -> None:
    with client(tmp_path) as c:
        r = c.get("/api/boards/atlantis")
        assert r.status_code == 404 and "facts" not in r.json()
