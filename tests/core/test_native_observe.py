"""The native core's observations against the reference encoder (issue 28 item 4): the
PettingZoo environment steps and encodes in the core, so ``CState.observe`` must give every
seat, at every step, the bytes :class:`rebirth.engine.observer.Observer` makes of that seat's
:func:`rebirth.engine.infoset.view` — on both boards with 2-4 players, every variant alone
(the set-aside visibility rules I-7, ``ireland_set_aside_known``, ``set_aside_public``),
capacity-tight and hand-made maps (tests/core/corekit.py). Equal bytes from the view also mean
the core's encoder shows a seat nothing the view does not: its own hand, missions and
set-aside tiles only (K-1, I-9, S-3). And the environment itself gives the same observations,
masks, seats to act and rewards on either core, for the same seed and the same actions."""

from __future__ import annotations

import os
import random
from typing import Any

import numpy as np
import pytest

from core.corekit import configs, make_game
from rebirth.bots.mcts import fast_policy
from rebirth.engine import native
from rebirth.engine.config import IRELAND_VARIANTS, SCOTLAND_VARIANTS
from rebirth.engine.game import Game
from rebirth.engine.observer import Observer
from rebirth.env.observe import observe

SEEDS = max(1, int(os.environ.get("REBIRTH_DIFF_SEEDS", "210")) // 30)
"""Games per configuration (7 by default; the sanitizer run's REBIRTH_DIFF_SEEDS lowers it)."""


def _native_observation(c: native.CStateLike, seat: int, size: int, actions: int) -> tuple[bytes, bytes]:
    obs = np.full(size, 7.0, dtype=np.float32)  # not zeros: the core must clear what it reuses
    mask = np.full(actions, 3, dtype=np.int8)
    c.observe(seat, obs, mask)
    return obs.tobytes(), mask.tobytes()


def _compare(game: Game, seed: int, *, policy: bool) -> int:
    bridge = native.for_game(game)
    assert bridge is not None
    observer = Observer(game)
    bridge.observing(observer.layout())
    st = game.new_state(seed)
    c = bridge.load(st)
    assert c is not None
    rng = random.Random(seed)
    steps = 0
    while True:
        where = f"{game.board.id}/{game.players}/{sorted(game.variants)} seed {seed} step {steps}"
        for seat in range(game.players):
            ref = observe(observer, st.view(seat, detail=False), game.num_actions)
            got = _native_observation(c, seat, observer.size, game.num_actions)
            assert got[0] == ref["observation"].tobytes(), f"{where} seat {seat}: observation"
            assert got[1] == ref["action_mask"].tobytes(), f"{where} seat {seat}: mask"
        if st.done:
            return steps
        aid = fast_policy(st, rng) if policy else st.random_action_id(rng)
        st.apply_id(aid)
        c.apply(aid)
        steps += 1


@pytest.mark.parametrize(("board", "players", "variants"), configs(),
                         ids=[f"{b}-{n}-{'+'.join(sorted(v)) or 'plain'}" for b, n, v in configs()])
def test_every_seats_observation_at_every_step_is_the_reference_encoders(
        board: str, players: int, variants: frozenset[str]) -> None:
    game = make_game(board, players, variants)
    steps = sum(_compare(game, seed, policy=seed % 2 == 1) for seed in range(SEEDS))
    assert steps >= SEEDS


def _play(env: Any, seed: int, pick: random.Random) -> list[Any]:
    """A whole game of the environment by seeded random legal actions: every observation of
    the seat to act, the seat, and the rewards at the end."""
    env.reset(seed=seed)
    out: list[Any] = []
    while not all(env.terminations.values()):
        agent = env.agent_selection
        seen = env.observe(agent)
        out.append((agent, seen["observation"].tobytes(), seen["action_mask"].tobytes()))
        env.step(int(pick.choice(seen["action_mask"].nonzero()[0])))
    out.append(dict(env.rewards))
    return out


CASES = [("scotland", n, v) for n in (2, 3, 4) for v in [(), *[(x,) for x in sorted(SCOTLAND_VARIANTS)]]]
CASES += [("ireland", n, v) for n in (2, 3, 4) for v in [(), *[(x,) for x in sorted(IRELAND_VARIANTS)]]]


@pytest.mark.parametrize(("board", "players", "variants"), CASES,
                         ids=[f"{b}-{n}-{'+'.join(v) or 'plain'}" for b, n, v in CASES])
def test_the_environment_is_the_same_on_either_core(board: str, players: int, variants: tuple[str, ...],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pettingzoo")
    from rebirth.env.rebirth_env import raw_env

    for reward in ("margin", "win"):
        fast = raw_env(board, players, variants, reward=reward)
        assert fast.native
        monkeypatch.setenv("REBIRTH_CORE", "pure")
        slow = raw_env(board, players, variants, reward=reward)
        monkeypatch.delenv("REBIRTH_CORE")
        assert not slow.native
        for seed in range(2):
            a = _play(fast, seed, random.Random(seed))
            b = _play(slow, seed, random.Random(seed))
            assert a == b, f"{board} {players} {variants} {reward} seed {seed}"
            # The native steps replayed into the reference state: the same position.
            assert native.pack(fast.game_state) == native.pack(slow.game_state)


def test_reading_the_state_hands_the_position_to_the_caller() -> None:
    """A caller that changes ``game_state`` in place (tests/server/botkit.py replays a record
    into it) sees observations of the changed position: the environment leaves the core."""
    pytest.importorskip("pettingzoo")
    from rebirth.env.rebirth_env import raw_env

    env = raw_env("ireland", 3)
    env.reset(seed=5)
    for _ in range(7):
        env.step(int(env.observe(env.agent_selection)["action_mask"].nonzero()[0][0]))
    assert env.native
    st = env.game_state  # seven native steps replayed into it
    assert not env.native
    rng = random.Random(2)
    for _ in range(5):
        st.apply_id(st.random_action_id(rng))
        env._obs_cache = {}
        for q in range(3):
            ref = observe(env.observer, st.view(q, detail=False), env.num_actions)
            got = env.observe(f"player_{q}")
            assert got["observation"].tobytes() == ref["observation"].tobytes()
            assert got["action_mask"].tobytes() == ref["action_mask"].tobytes()
    env.reset(seed=6)
    assert env.native


@pytest.mark.parametrize("bad", [
    lambda c, s, a: c.observe(3, np.zeros(s, np.float32), np.zeros(a, np.int8)),
    lambda c, s, a: c.observe(-1, np.zeros(s, np.float32), np.zeros(a, np.int8)),
    lambda c, s, a: c.observe(0, np.zeros(s + 1, np.float32), np.zeros(a, np.int8)),
    lambda c, s, a: c.observe(0, np.zeros(s, np.float64), np.zeros(a, np.int8)),
    lambda c, s, a: c.observe(0, np.zeros(s, np.float32), np.zeros(a, np.int32)),
    lambda c, s, a: c.observe(0, np.zeros(s, np.float32)[::1].view(np.int32), np.zeros(a, np.int8)),
    lambda c, s, a: c.observe(0, np.zeros(s, np.float32).tobytes(), np.zeros(a, np.int8)),
    lambda c, s, a: c.observe(0, np.zeros(2 * s, np.float32)[::2], np.zeros(a, np.int8)),
    lambda c, s, a: c.observe(0, None, None),
    lambda c, s, a: c.observe("0", np.zeros(s, np.float32), np.zeros(a, np.int8)),
])
def test_bad_buffers_and_seats_are_refused(bad: Any) -> None:
    game = make_game("scotland", 3)
    bridge = native.for_game(game)
    assert bridge is not None
    observer = Observer(game)
    bridge.observing(observer.layout())
    c = bridge.load(game.new_state(1))
    assert c is not None
    with pytest.raises((ValueError, TypeError, BufferError)):
        bad(c, observer.size, game.num_actions)


def test_a_short_mask_is_filled_as_far_as_it_goes_and_bad_layouts_are_refused() -> None:
    game = make_game("small_scotland", 2)
    bridge = native.for_game(game)
    assert bridge is not None
    observer = Observer(game)
    c = bridge.load(game.new_state(1))
    assert c is not None
    ext = native.extension()
    fresh = ext.Tables(native.tables_spec(game))
    unset = ext.CState(fresh, native.pack(game.new_state(1)))
    with pytest.raises(ValueError, match="no observation layout"):
        unset.observe(0, np.zeros(observer.size, np.float32), np.zeros(4, np.int8))
    layout = native.observation_layout(observer.layout())
    for broken in ([], layout[:-1], [*layout, 0], [-1, *layout[1:]], [0, *layout[1:]],
                   [*layout[:-9], 9, *layout[-8:]], [*layout[:-8], 8, *layout[-7:]],
                   ["x", *layout[1:]], [2**40, *layout[1:]]):
        with pytest.raises((ValueError, TypeError, OverflowError)):
            fresh.set_observation(broken)
    bridge.observing(observer.layout())
    mask = np.zeros(3, np.int8)
    c.observe(c.cur, np.zeros(observer.size, np.float32), mask)  # ids past the mask: not written
    legal = sorted(game.new_state(1).legal_action_ids())
    assert mask.tolist() == [1 if i in legal else 0 for i in range(3)]
