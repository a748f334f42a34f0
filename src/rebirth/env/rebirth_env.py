"""Rebirth as a PettingZoo AEC environment (needs the ``rl`` extra: pettingzoo, gymnasium, numpy).

========================  ==========================================================
Agents                    ``player_0`` .. ``player_{n-1}`` (seat numbers), 2 to 4
Action space              ``Discrete(game.num_actions)``: ids of ``game.codec``
                          (place on space i; put an x2 marker on card c, Ireland I-8)
Observation               ``{"observation": float32[observer.size],
                          "action_mask": int8[num_actions]}``
Observation values        see ``docs/observations.md`` (0..1, scores 0..10)
Rewards                   0 until the game ends, then by ``reward``:
                          ``"margin"``: own score minus the best other score;
                          ``"win"``: the win share (1/k for each of k winners, else 0)
========================  ==========================================================

Turns do not simply rotate: an extra tile (I-7) or x2 marker (I-8) keeps the same
player, so ``agent_selection`` is always the seat the rules say moves next. Chance
(the reveal of an extra tile, I-7) never reaches an agent: the environment draws the
outcome with its own random generator, seeded by ``reset(seed=...)``, right after the
action that caused it. The same seed gives the same deal, the same chance outcomes and
so the same trajectory for the same actions.

The observation comes from ``state.view(seat)`` through
:class:`rebirth.engine.observer.Observer` and nothing else, so no agent sees another
seat's hidden tiles or missions. With the native core built (:mod:`rebirth.engine.native`)
the environment steps and encodes in it — the same vectors, masks and trajectories,
byte for byte (tests/core/test_native_observe.py) — and replays its steps into the reference
``game_state`` only when that is read; reading ``game_state`` hands the position to the
caller, so until the next reset the environment works on it with the reference engine.
An action outside the mask raises :class:`IllegalActionError` and changes nothing
(``env(illegal_reward=-1)`` instead ends the game with that reward for the offender, as
PettingZoo's classic games do).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from rebirth.engine import native
from rebirth.engine.actions import IllegalActionError
from rebirth.engine.game import Game
from rebirth.engine.observer import Observer
from rebirth.engine.state import State, returns_of
from rebirth.engine.tables import Phase
from rebirth.env.observe import observe

_CHANCE = int(Phase.CHANCE)
REWARDS = ("margin", "win")
"""The reward schemes of :class:`raw_env` (see the module doc)."""
RENDER_MODES = ("human", "ansi")


def env(
    board: str = "scotland",
    players: int = 3,
    variants: tuple[str, ...] | list[str] | frozenset[str] = (),
    reward: str = "margin",
    render_mode: str | None = None,
    illegal_reward: float | None = None,
) -> Any:
    """The environment with PettingZoo's usual wrappers (bounds and call-order checks).

    ``illegal_reward`` None: an illegal action raises :class:`IllegalActionError`;
    a number: it ends the game with that reward for the offender (TerminateIllegalWrapper).
    """
    e: Any = raw_env(board, players, variants, reward, render_mode)
    if illegal_reward is not None:
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=illegal_reward)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def _agent(seat: int) -> str:
    return f"player_{seat}"


class raw_env(AECEnv):  # type: ignore[misc]  # pettingzoo ships no type information
    """The unwrapped AEC environment of one board, player count and set of variants."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": "rebirth_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        board: str = "scotland",
        players: int = 3,
        variants: tuple[str, ...] | list[str] | frozenset[str] = (),
        reward: str = "margin",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(
                f"render_mode must be None or one of {', '.join(RENDER_MODES)}, not {render_mode!r}")
        self.game = Game.create(board, players, tuple(variants))
        self.observer = Observer(self.game)
        self.reward_scheme = reward
        self.render_mode = render_mode
        self.num_actions = self.game.num_actions
        self.possible_agents = [_agent(q) for q in range(players)]
        self.agents = self.possible_agents[:]
        self._seat = {a: q for q, a in enumerate(self.possible_agents)}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        low = np.array(self.observer.low, dtype=np.float32)
        high = np.array(self.observer.high, dtype=np.float32)
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low=low, high=high, dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8),
            })
            for a in self.possible_agents
        }
        bridge = native.for_game(self.game)
        self._native = bridge.observing(self.observer.layout()) if bridge is not None else None
        self._c: native.CStateLike | None = None
        self._behind: list[int] = []
        """Ids the native state has applied and the reference state not yet."""
        # Seeded by reset(seed=...); until then from the OS, as gymnasium does.
        self._rng = random.Random()
        self._state = self.game.new_state(self._rng.getrandbits(64))
        self._c = self._native.load(self._state) if self._native is not None else None
        self._obs_cache: dict[str, dict[str, Any]] = {}
        self._init_dicts()
        self.agent_selection = _agent(self._state.current_player)

    # ---------------------------------------------------------------- the position

    @property
    def game_state(self) -> State:
        """The position as the reference engine's :class:`State`. Reading it hands the
        position to the caller, who may change it: until the next :meth:`reset` the
        environment then steps and observes it with the reference engine."""
        self._synced()
        self._c = None
        return self._state

    @game_state.setter
    def game_state(self, state: State) -> None:
        self._state = state
        self._behind = []
        self._c = None
        self._obs_cache = {}

    @property
    def native(self) -> bool:
        """Whether the native core steps and encodes the current game."""
        return self._c is not None

    def _synced(self) -> State:
        """The reference state with every native step replayed into it."""
        if self._behind:
            for aid in self._behind:
                self._state.apply_id(aid)
            self._behind = []
        return self._state

    # ---------------------------------------------------------------- spaces

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The (cached) observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The (cached) action space of ``agent``."""
        return self.action_spaces[agent]

    # ---------------------------------------------------------------- the loop

    def _init_dicts(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new deal. With ``seed`` the deal and every later chance outcome follow from it;
        without, the generator goes on from the previous game."""
        if seed is not None:
            self._rng = random.Random(seed)
        self._state = self.game.new_state(self._rng.getrandbits(64))
        self._behind = []
        self._c = self._native.load(self._state) if self._native is not None else None
        self._resolve_chance()
        self._obs_cache = {}
        self._init_dicts()
        self.agent_selection = _agent(self._state.current_player)

    def _resolve_chance(self) -> None:
        c = self._c
        if c is not None:
            # The core draws as State.sample_chance does: one rng.random() of the same stream.
            while c.phase == _CHANCE and not c.done:
                aid = c.random_action(self._rng)
                c.apply(aid)
                self._behind.append(aid)
            return
        s = self._state
        while s.is_chance_node():
            s.apply_id(s.sample_chance(self._rng))

    def observe(self, agent: str) -> dict[str, Any]:
        """``{"observation": float32 vector, "action_mask": int8 vector}`` of ``agent``'s view
        (the mask is all zeros unless ``agent`` is to move)."""
        cached = self._obs_cache.get(agent)
        if cached is not None:
            return cached
        c = self._c
        if c is not None:
            out = {"observation": np.zeros(self.observer.size, dtype=np.float32),
                   "action_mask": np.zeros(self.num_actions, dtype=np.int8)}
            c.observe(self._seat[agent], out["observation"], out["action_mask"])
        else:
            # The observer needs no history or action texts: the light view is much faster.
            view = self._state.view(self._seat[agent], detail=False)
            out = observe(self.observer, view, self.num_actions)
        self._obs_cache[agent] = out
        return out

    def step(self, action: Any) -> None:
        """Apply the selected agent's action id; chance that follows is resolved at once."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self._state
        c = self._c
        if action is None:
            raise IllegalActionError("error.must_act_none_only_for", agent=agent)
        aid = int(action)
        legal = c.legal() if c is not None else s.legal_action_ids()
        if aid not in legal:
            what = self.game.codec.text(aid) if self.game.codec.is_action(aid) else "no action"
            raise IllegalActionError(
                "error.action_not_legal_for_now", aid=aid, what=what, agent=agent, value=sorted(legal),
            )
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if c is not None:
            c.apply(aid)
            self._behind.append(aid)
        else:
            s.apply_id(aid)
        self._resolve_chance()
        self._obs_cache = {}
        if c.done if c is not None else s.is_terminal():
            self._finish()
        else:
            # After chance is resolved the seat to act is the state's seat (never chance).
            self.agent_selection = _agent(c.cur if c is not None else s.current_player)
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        n = self.game.players
        c = self._c
        score = c.score if c is not None else self._state.score
        if self.reward_scheme == "win":
            values = returns_of(n, c.winners if c is not None else self._state.winners)
        else:
            values = [float(score[q] - max(score[o] for o in range(n) if o != q)) for q in range(n)]
        for q in range(n):
            self.rewards[_agent(q)] = values[q]
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()

    # ---------------------------------------------------------------- display

    def render(self) -> str | None:
        """The public position as text (a spectator's view): printed for ``"human"``,
        returned for ``"ansi"``."""
        if self.render_mode is None:
            return None
        text = self.observer.string_from(self._synced().view(None))
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        """Nothing to release."""
