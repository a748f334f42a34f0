"""Hot-seat: two humans at one terminal never see each other's hand, set-aside tiles or
secret missions (issue 7; S-4, S-5, K-1: what is private to a seat)."""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from rebirth.app.match import Match
from rebirth.cli.main import main
from rebirth.engine.game import Game, Setup
from rebirth.engine.records import Seat, make_record
from rebirth.engine.tiles import TILE_CODES


def _scripted(game: Game) -> Setup:
    """A deal where Ann holds only farms first and set E E aside, while Bob holds settlements
    first and set S4 S3 aside: every private item names its owner."""
    base = game.new_state(5).setup.to_json()
    tiles = [Counter(s) + Counter(a) for s, a in zip(base["supplies"], base["set_aside"],
                                                     strict=True)]
    ann = tiles[0] - Counter(["E", "E"])
    bob = tiles[1] - Counter(["S4", "S3"])
    order_ann = ["F", "E", "S1", "S2", "S3", "S4"]
    order_bob = ["S1", "S2", "S3", "S4", "F", "E"]
    base["supplies"] = [
        [c for c in order_ann for _ in range(ann[c])],
        [c for c in order_bob for _ in range(bob[c])],
    ]
    base["set_aside"] = [["E", "E"], ["S4", "S3"]]
    base["start_player"] = 0
    return Setup.from_json(base)


def _moves(game: Game, setup: Setup, turns: int) -> tuple[list[str], Match]:
    """Moves for both seats; Bob goes next to a cathedral when he can, to draw missions (K-1)."""
    state = game.from_setup(setup)
    m = Match.resume(game, state, [Seat("Ann", "human"), Seat("Bob", "human")], None)
    b = game.board
    moves: list[str] = []
    for _ in range(turns):
        seat = m.to_move()
        legal = sorted(m.view(seat).legal_actions)
        near = [a for a in legal if a in b.by_label and b.adj_cathedrals[b.by_label[a]]]
        move = near[0] if seat == 1 and near else legal[0]
        moves.append(move)
        m.submit(seat, move)
    return moves, m


def test_hot_seat_hides_the_other_seat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    game = Game.create("scotland", 2)
    setup = _scripted(game)
    turns = 16
    moves, sim = _moves(game, setup, turns)
    private = {
        0: {"Set aside (out of play): E E", *sim.view(0).missions},
        1: {"Set aside (out of play): S4 S3", *sim.view(1).missions, "Your tile: Settlement"},
    }
    assert sim.view(1).missions, "the script must give Bob a secret mission"
    assert not set(sim.view(0).missions) & set(sim.view(1).missions)
    start = tmp_path / "start.json"
    start.write_text(json.dumps(make_record(game.from_setup(setup),
                                            [Seat("Ann", "human"), Seat("Bob", "human")])))
    feed = "".join(f"\n{mv}\ny\n" for mv in moves) + "quit\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(feed))
    rec = tmp_path / "out.json"
    assert main(["play", "--resume", str(start), "--record", str(rec)]) == 0
    out = capsys.readouterr().out
    parts = re.split(r"Pass to (Ann|Bob) — press Enter", out)
    # parts: [before, name, segment, name, segment, ...]; one hand-over per turn.
    names = parts[1::2]
    assert names[:turns] == ["Ann", "Bob"] * (turns // 2)
    for name, seg in zip(names, parts[2::2], strict=True):
        me = 0 if name == "Ann" else 1
        other = private[1 - me]
        leaked = [p for p in other if p in seg]
        assert not leaked, f"{name}'s screens show {leaked}"
    # The owners do see their own private items.
    ann_segs = "".join(seg for n, seg in zip(names, parts[2::2], strict=True) if n == "Ann")
    bob_segs = "".join(seg for n, seg in zip(names, parts[2::2], strict=True) if n == "Bob")
    assert "Set aside (out of play): E E" in ann_segs
    assert "Set aside (out of play): S4 S3" in bob_segs and "Your tile: Settlement" in bob_segs
    assert all(mid in bob_segs for mid in sim.view(1).missions)
    # Nothing private before the first hand-over either.
    assert not any(p in parts[0] for q in (0, 1) for p in private[q])
    assert all(t in TILE_CODES for t in ("E", "S4"))
    assert [a["action"] for a in json.loads(rec.read_text())["actions"]] == moves
