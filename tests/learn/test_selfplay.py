"""Self-play data: files, determinism, refusals, and observations built from views only."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from rebirth.app.match import Match
from rebirth.bots.value import observer_fingerprint
from rebirth.cli.main import main
from rebirth.engine.game import Game
from rebirth.engine.observer import Observer
from rebirth.learn.selfplay import (
    SelfPlayConfig,
    SelfPlayError,
    load_dataset,
    play_selfplay_game,
    run_selfplay,
)

BOARD = "scotland"


def test_cli_writes_the_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "data"
    rc = main(["selfplay", "--board", BOARD, "--players", "2", "--games", "3", "--seed", "5",
               "--out", str(out), "--seats", "greedy,random"])
    assert rc == 0, capsys.readouterr().err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["games"] == 3 and manifest["players"] == 2 and manifest["board"] == BOARD
    obs = Observer(Game.create(BOARD, 2))
    assert manifest["observer_size"] == obs.size
    assert manifest["observer_fingerprint"] == observer_fingerprint(obs)
    # Seat rotation as in the arena: entry k sits at seat (k + index) mod N.
    assert [g["seats"] for g in manifest["per_game"]] == [["greedy", "random"], ["random", "greedy"],
                                                         ["greedy", "random"]]
    assert len({g["deal_seed"] for g in manifest["per_game"]}) == 3  # every game its own deal
    data = load_dataset(out)
    assert data.x.shape == (manifest["positions"], obs.size)
    assert sum(g["positions"] for g in manifest["per_game"]) == manifest["positions"]
    # Outcomes from the acting seat's side: win shares sum to 1, margin = own - best rival.
    assert np.allclose(data.win_share.sum(axis=1), 1.0)
    assert np.array_equal(data.margin, data.scores[:, 0] - data.scores[:, 1])
    for g in manifest["per_game"]:
        rows = data.game == g["index"]
        # E-3: the top score wins (ties may share); slot 0 is the acting seat.
        assert set(np.unique(data.scores[rows].max(axis=1))) == {max(g["scores"])}
    # The "current player" piece of every row names relative seat 0: the acting seat's view.
    cp = next(p for p in obs.pieces if p[0] == "current_player")
    assert np.all(data.x[:, cp[1]] == 1.0)
    assert "3 games" in capsys.readouterr().out


def test_same_seed_same_data_other_seed_other_data() -> None:
    args = (BOARD, 2, (), ("greedy", "greedy"), 11, 1, 0.1)
    a, b = play_selfplay_game(*args), play_selfplay_game(*args)
    assert np.array_equal(a.indices, b.indices) and np.array_equal(a.values, b.values)
    assert a.final_scores == b.final_scores
    c = play_selfplay_game(BOARD, 2, (), ("greedy", "greedy"), 12, 1, 0.1)
    assert c.deal_seed != a.deal_seed


@pytest.mark.parametrize("argv, message", [
    (["--seats", "greedy,nobody,greedy"], "unknown bot"),
    (["--seats", "greedy,greedy"], "3 players need 3 seats"),
    (["--seats", "human,greedy,greedy"], "bots only"),
    (["--epsilon", "1.5"], "--epsilon must be from 0 to 1"),
    (["--board", "atlantis"], "atlantis"),
])
def test_bad_input_is_refused_and_writes_nothing(tmp_path: Path, argv: list[str], message: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "data"
    rc = main(["selfplay", "--players", "3", "--games", "2", "--out", str(out), *argv])
    assert rc == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_an_out_folder_with_data_or_a_file_is_refused(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    full = tmp_path / "full"
    full.mkdir()
    (full / "manifest.json").write_text("{}")
    assert main(["selfplay", "--players", "2", "--games", "1", "--out", str(full)]) == 2
    assert "already holds self-play data" in capsys.readouterr().err
    assert (full / "manifest.json").read_text() == "{}"
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main(["selfplay", "--players", "2", "--games", "1", "--out", str(afile)]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert main(["selfplay", "--players", "2", "--games", "0", "--out", str(tmp_path / "z")]) == 2
    assert not (tmp_path / "z").exists()


def test_load_refuses_a_folder_without_manifest(tmp_path: Path) -> None:
    with pytest.raises(SelfPlayError, match=r"no manifest\.json"):
        load_dataset(tmp_path)
    (tmp_path / "manifest.json").write_text('{"format": "other"}')
    with pytest.raises(SelfPlayError, match="not a manifest of format rebirth-selfplay/1"):
        load_dataset(tmp_path)


def test_batches_split_and_join(tmp_path: Path) -> None:
    config = SelfPlayConfig(BOARD, 2, ("random", "random"), 3, seed=2)
    m = run_selfplay(config, tmp_path / "d", batch_games=2)
    assert [b["games"] for b in m["batches"]] == [[0, 2], [2, 3]]
    run_selfplay(config, tmp_path / "e", batch_games=10)
    a, b = load_dataset(tmp_path / "d"), load_dataset(tmp_path / "e")
    assert np.array_equal(a.x, b.x) and np.array_equal(a.scores, b.scores)


@pytest.mark.parametrize("board, players", [("scotland", 3), ("ireland", 4)])
def test_observation_uses_the_view_only(board: str, players: int) -> None:
    """A seat's observation is unchanged when what it cannot see is redrawn (other seats'
    hands, supplies, set-aside tiles and missions; the deck): it is built from the view."""
    game = Game.create(board, players)
    obs = Observer(game)
    m = Match.start(game, ["random"] * players, seed=77)
    for _ in range(25):
        m.step_bot()
    st = m.state
    changed = 0
    for seat in range(players):
        twin = st.resample_from_infostate(seat, random.Random(seat + 1))
        others = [q for q in range(players) if q != seat]
        a, b = twin.tiles, st.tiles
        changed += any(a.hand[q] != b.hand[q]
                       or a.supply[q][a.drawn[q]:] != b.supply[q][b.drawn[q]:] for q in others)
        assert obs.encode(twin.view(seat)) == obs.encode(st.view(seat))
    assert changed  # the hidden information really was redrawn
