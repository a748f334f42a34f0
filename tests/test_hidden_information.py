"""Hidden information is a security property (docs/security.md).

* A cheating bot that uses everything it is given (its view, the public history and its
  own seed) to deal the game again cannot recover another seat's hand — while the same
  bot does recover it under the old, leaky seed derivation (so the test can fail).
* Canaries: every per-seat output (views, events, mid-game records) is scanned for the
  seed and for the ids of mission cards the seat cannot see; a twin in which everything
  hidden from the seat is drawn again gives byte-identical per-seat output.
"""

from __future__ import annotations

import json
import random

import pytest

from canaries import SEED_CANARY, canary_game, hidden_card_ids
from rebirth.app.match import Match, bot_seed
from rebirth.bots.base import Bot
from rebirth.bots.greedy import GreedyBot
from rebirth.engine.game import Game
from rebirth.engine.tiles import tile_code
from rebirth.engine.views import View


class CheatingBot(GreedyBot):
    """Plays greedy, and on every turn tries to deal the game again from what it was given:
    candidate seeds from inverting the old ``seed * 1009 + seat`` derivation of its own seed,
    its seed itself, and every small seed. A candidate deal is accepted when it agrees with
    everything the seat knows — the start player and the order of every tile it has drawn
    (at least ``evidence`` of them, so that a chance agreement is vanishingly rare) — and
    then predicts every other seat's hand."""

    kind = "cheater"
    small_seeds = 2000
    evidence = 12

    def __init__(self, game: Game, seat: int, seed: int | None = None) -> None:
        super().__init__(game, seat, seed)
        self.given_seed = seed
        self.guesses: list[dict[int, str]] = []

    def candidates(self) -> list[int]:
        out: list[int] = []
        s = self.given_seed
        if s is not None:
            if (s - self.seat) % 1009 == 0:
                out.append((s - self.seat) // 1009)
            out += [s, s - self.seat]
        return out + list(range(self.small_seeds))

    def drawn(self, view: View) -> list[str]:
        """The tiles this seat drew, in order: its hand placements, then its hand."""
        out: list[str] = []
        after_chance = False
        for e in view.history:
            if "chance" in e:
                after_chance = True
                continue
            # An extra tile (I-7), placed right after its reveal, comes from the set-aside tiles.
            if (e.get("seat") == self.seat and not str(e["action"]).startswith("mark")
                    and not after_chance):
                out.append(str(view.spaces[self.game.board.by_label[str(e["action"])]][1]))
            after_chance = False
        return out + ([view.hand] if view.hand else [])

    def recover(self, view: View) -> dict[int, str] | None:
        me = self.seat
        seq = self.drawn(view)
        if len(seq) < self.evidence:
            return None
        start = next((int(e["seat"]) for e in view.history if "seat" in e), view.current_player)
        for c in self.candidates():
            setup = self.game.deal(c)
            if setup.start_player != start:
                continue
            if [tile_code(t) for t in setup.supplies[me][: len(seq)]] != seq:
                continue
            return {q: tile_code(setup.supplies[q][len(setup.supplies[q]) - view.supply_counts[q] - 1])
                    for q in range(view.players) if q != me and view.hand_counts[q]}
        return None

    def choose(self, view: View) -> str:
        guess = self.recover(view)
        if guess is not None:
            self.guesses.append(guess)
        return super().choose(view)


def _run(board: str, seed: int | None, cheater_seed: int | None) -> tuple[CheatingBot, list[bool]]:
    """20 actions of the cheater (seat 0) against two greedy bots; whether each guess was right."""
    game = Game.create(board, 3)
    m = Match.start(game, ["human", "greedy", "greedy"], seed)
    cheater = CheatingBot(game, 0, cheater_seed)
    right: list[bool] = []
    turns = 0
    while not m.state.is_terminal() and turns < 20:
        if m.is_human_turn():
            before = len(cheater.guesses)
            m.submit(0, cheater.act(m.view(0)))
            turns += 1
            if len(cheater.guesses) > before:
                right.append(all(tile_code(m.state.tiles.hand[q]) == g
                                 for q, g in cheater.guesses[-1].items()))
        else:
            m.step_bot()
    assert turns == 20
    return cheater, right


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_cheating_bot_learns_nothing_from_its_seed(board: str) -> None:
    """S-5: a game with the authority's secret seed; the bot's own seed is fresh secret bits
    (as :func:`rebirth.app.match.bot_seed` gives it): no candidate deal agrees with its view."""
    cheater, right = _run(board, None, bot_seed(None, 0))
    assert cheater.guesses == [] and right == []


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_cheating_bot_learns_nothing_in_a_reproducible_game(board: str) -> None:
    """An explicit game seed (for reproducible bot games): the bot's seed is a keyed hash
    of it, which cannot be inverted."""
    cheater, right = _run(board, 987_654_321, bot_seed(987_654_321, 0))
    assert cheater.guesses == [] and right == []


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_cheating_bot_would_succeed_with_the_old_seed_derivation(board: str) -> None:
    """The control: under the old bot seed ``seed * 1009 + seat`` the same bot deals the game
    again and names every other hand on every turn — so the tests above can fail."""
    _cheater, right = _run(board, 1_234_567, 1_234_567 * 1009 + 0)
    assert len(right) >= 2 and all(right)


# ----------------------------------------------------------------- canaries


def _outputs(m: Match, seat: int | None) -> str:
    return json.dumps([m.view(seat).to_json(), m.events_for(seat), m.record(for_seat=seat)])


CONFIGS = [(b, n) for b in ("scotland", "ireland") for n in (2, 3, 4)]


@pytest.mark.parametrize(("board", "players"), CONFIGS)
def test_no_seat_output_contains_another_seats_hidden_items(board: str, players: int) -> None:
    game = canary_game(board, players)
    m = Match.start(game, ["greedy"] * players, SEED_CANARY)
    rng = random.Random(players)
    checked = 0
    while not m.state.is_terminal():
        m.step_bot()
        if rng.random() < 0.25 and not m.state.is_terminal():
            for seat in [None, *range(players)]:
                text = _outputs(m, seat)
                assert str(SEED_CANARY) not in text and hex(SEED_CANARY)[2:] not in text
                for cid in hidden_card_ids(m, seat):
                    assert cid not in text, f"seat {seat} can see hidden card {cid}"
                if seat is not None:
                    # Non-interference: redraw everything hidden from the seat; its view and
                    # its record are byte-identical.
                    twin = m.state.resample_from_infostate(seat, rng)
                    assert json.dumps(twin.view(seat).to_json()) == json.dumps(
                        m.view(seat).to_json())
                checked += 1
    assert checked > 0
    final = json.dumps(m.record(for_seat=0))
    assert str(SEED_CANARY) in final  # the canary is detectable: after the game it is shown


def test_canary_hidden_tiles_differ_in_the_twin() -> None:
    """The twin of the non-interference check really differs in hidden tiles."""
    m = Match.start(Game.create("scotland", 3), ["greedy"] * 3, 5)
    for _ in range(4):
        m.step_bot()
    twin = m.state.resample_from_infostate(0, random.Random(1))
    real = m.state.tiles
    diff = [q for q in (1, 2) if twin.tiles_of(q)["supply"] != m.state.tiles_of(q)["supply"]
            or twin.tiles.hand[q] != real.hand[q] or twin.tiles.set_aside[q] != real.set_aside[q]]
    assert diff


def test_bots_get_only_views() -> None:
    """The Bot interface offers a view and nothing else (no state, no game seed)."""
    m = Match.start(Game.create("scotland", 2), ["greedy", "heuristic"])
    for bot in m.bots.values():
        assert isinstance(bot, Bot)
        assert not any(isinstance(v, type(m.state)) for v in vars(bot).values())
        assert m.seed not in vars(bot).values()
