"""The PettingZoo environment (issue 11, item 6): PettingZoo's own API and seed tests,
chance (I-7) resolved inside, rewards, illegal actions."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from rebirth.engine.actions import IllegalActionError
from rebirth.engine.observer import Observer
from rebirth.engine.state import CHANCE
from rebirth.env import env, raw_env

# pettingzoo.classic's own dict-observation environments raise these two as well.
KNOWN_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
}


def _api_test(e: Any, cycles: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(e, num_cycles=cycles)
    assert {str(w.message) for w in caught} <= KNOWN_WARNINGS


@pytest.mark.parametrize(("board", "players"), [("scotland", 3), ("ireland", 4)])
def test_api_test_1000_cycles(board: str, players: int) -> None:
    _api_test(env(board=board, players=players), 1000)


@pytest.mark.parametrize(("board", "players", "reward"), [
    ("scotland", 2, "win"), ("scotland", 4, "margin"), ("ireland", 2, "margin"), ("ireland", 3, "win"),
])
def test_api_test_other_configurations(board: str, players: int, reward: str) -> None:
    _api_test(env(board=board, players=players, reward=reward), 200)


@pytest.mark.parametrize(("board", "players"), [("scotland", 3), ("ireland", 4)])
def test_seed_test(board: str, players: int) -> None:
    seed_test(lambda: env(board=board, players=players), num_cycles=500)


def _play(e: Any, seed: int, pick: random.Random) -> tuple[list[tuple[str, int]], dict[str, float]]:
    """A whole random game; the (agent, action) trajectory and the final rewards."""
    e.reset(seed=seed)
    trajectory: list[tuple[str, int]] = []
    final: dict[str, float] = {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        if terminated or truncated:
            final[agent] = float(reward)
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        aid = int(legal[pick.randrange(len(legal))])
        trajectory.append((agent, aid))
        e.step(aid)
    return trajectory, final


def test_same_seed_same_game_and_chance_inside_I7() -> None:
    """Same seed and same actions: the same deal and chance outcomes (I-7 reveals)."""
    e1, e2 = raw_env("ireland", 4), raw_env("ireland", 4)
    chance_seen = 0
    for seed in range(4):
        t1, r1 = _play(e1, seed, random.Random(seed))
        t2, r2 = _play(e2, seed, random.Random(seed))
        assert t1 == t2 and r1 == r2
        assert e1.game_state.history_json() == e2.game_state.history_json()
        chance_seen += sum(1 for h in e1.game_state.history_json() if "chance" in h)
    assert chance_seen > 0, "no extra tile was revealed: chance handling went untested"
    t3, _ = _play(e1, 99, random.Random(0))
    assert t3 != t1


def test_agents_never_see_a_chance_node_and_observation_is_the_views() -> None:
    e = raw_env("ireland", 3)
    obs_enc = Observer(e.game)
    pick = random.Random(1)
    for seed in range(3):
        e.reset(seed=seed)
        for agent in e.agent_iter():
            state = e.game_state
            assert state.current_player != CHANCE
            obs, _, terminated, _, _ = e.last()
            seat = int(agent.removeprefix("player_"))
            want = np.asarray(obs_enc.encode(state.view(seat)), dtype=np.float32)
            assert np.array_equal(obs["observation"], want)
            assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
            if terminated:
                e.step(None)
                continue
            assert seat == state.current_player
            mask = obs["action_mask"]
            assert sorted(np.flatnonzero(mask).tolist()) == sorted(state.legal_action_ids())
            e.step(int(pick.choice(np.flatnonzero(mask).tolist())))
    # Another agent's mask is all zeros.
    e.reset(seed=5)
    others = [a for a in e.possible_agents if a != e.agent_selection]
    assert not e.observe(others[0])["action_mask"].any()


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_rewards_margin_and_win_E3(board: str) -> None:
    """Final rewards: score margin, or the win share after the tiebreak (E-3, E-4)."""
    for scheme in ("margin", "win"):
        e = raw_env(board, 3, reward=scheme)
        _, final = _play(e, 11, random.Random(2))
        s = e.game_state
        assert s.is_terminal()
        for q in range(3):
            if scheme == "margin":
                want = float(s.score[q] - max(s.score[o] for o in range(3) if o != q))
            else:
                want = s.returns()[q]
            assert final[f"player_{q}"] == want
        if scheme == "win":
            assert sum(final.values()) == pytest.approx(1.0)


def test_illegal_action_raises_and_changes_nothing() -> None:
    e = env("scotland", 3)
    e.reset(seed=4)
    agent = e.agent_selection
    before = e.observe(agent)
    mask = before["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    history = list(e.unwrapped.game_state.history)
    with pytest.raises(IllegalActionError, match="is not legal for player_"):
        e.step(illegal)
    assert e.agent_selection == agent
    assert e.unwrapped.game_state.history == history
    after = e.observe(agent)
    assert np.array_equal(after["observation"], before["observation"])
    assert np.array_equal(after["action_mask"], mask)
    with pytest.raises(AssertionError):  # AssertOutOfBoundsWrapper: outside Discrete(n)
        e.step(e.unwrapped.num_actions)
    with pytest.raises(IllegalActionError, match="must act"):
        e.unwrapped.step(None)
    e.step(int(np.flatnonzero(mask)[0]))  # the game goes on normally
    assert len(e.unwrapped.game_state.history) == len(history) + 1


def test_illegal_reward_ends_the_game_as_pettingzoo_classic() -> None:
    e = env("scotland", 3, illegal_reward=-1)
    e.reset(seed=4)
    agent = e.agent_selection
    illegal = int(np.flatnonzero(e.observe(agent)["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(illegal)
    assert all(e.terminations.values())
    assert e.unwrapped._cumulative_rewards[agent] == -1


def test_bad_configuration_is_refused_and_render() -> None:
    with pytest.raises(ValueError, match="reward must be one of margin, win"):
        raw_env(reward="points")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="2 to 4 players"):
        raw_env(players=5)
    e = raw_env("scotland", 3, render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert isinstance(text, str) and "view of spectator" in text
    assert raw_env("scotland", 3).render() is None


def test_random_games_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "random_games.py"
    spec = importlib.util.spec_from_file_location("random_games", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--games", "2", "--board", "ireland", "--players", "2", "--reward", "win"])
    out = capsys.readouterr().out
    assert "ireland 2p: 2 games" in out and "steps/s" in out and "games/s" in out
    with pytest.raises(SystemExit):
        module.main(["--games", "0"])
