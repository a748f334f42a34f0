"""Table mode: record a physical game as it is played, scored by the engine's one code path.

At a real table the supplies are face-down stacks, so the engine cannot know which tile
comes next: a table game's placement names its tile (``S3@H7``, ``E@C4``) and a supply is
a *count* (S-1, S-2). A tile kind is legal for a seat while that colour still has one not
yet accounted for (placed, discarded or revealed; the set-aside tiles are unknown, so the
bound is the tiles in play) and the hex is legal for it (P-1…P-4). Chance is entered by
the user: on Ireland the token on a tower when a tile is first placed next to it (or all
tokens at setup), the kind of a revealed extra tile (I-7). Hidden draws (Scotland's
cathedral cards K-1, Ireland's mission tokens I-9) are recorded without the card; when
every seat has played its supply (tiles in play minus the set-aside ones, S-3/S-4; extra
tiles come on top), the user enters each player's drawn cards and the engine's own end
scoring runs (E-2…E-4).

:class:`TableState` is a :class:`~rebirth.engine.state.State`: placing, scoring, castles,
towers, public missions and the end are the engine's methods, unchanged; this module only
replaces where a tile, a token or a card comes from.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from rebirth.engine import explain
from rebirth.engine.actions import ActionError, IllegalActionError
from rebirth.engine.codec import TableCodec
from rebirth.engine.events import Event
from rebirth.engine.game import DISPLAY_SIZE, Game, Setup, SetupError
from rebirth.engine.messages import msg, render_value
from rebirth.engine.replay import log_of, replay_log
from rebirth.engine.state import (
    CHANCE,
    PHASE_CHANCE,
    PHASE_EXTRA,
    PHASE_MARK,
    PHASE_PLACE,
    TERMINAL,
    State,
)
from rebirth.engine.tiles import TILE_CODES, starting_tiles, tile_code

if TYPE_CHECKING:
    from rebirth.engine.position import Position
    from rebirth.engine.views import View

PHASE_TOKEN = 5
"""Table only: which token lies on the tower a placement is first next to (S-8, I-6)."""
PHASE_CARDS = 6
"""Table only: which mission card a seat drew (entered at the end, K-1 / I-9)."""
UNKNOWN = -1
"""A set-aside tile whose kind is not known (it lies face down at the table)."""

_NT = len(TILE_CODES)
_HIDDEN_KEYS = {"cathedral.empty": "cathedral.draw", "tower.mission.empty": "tower.mission"}


class TableError(IllegalActionError):
    """A table entry or setup the rules refuse; nothing was changed."""


@dataclass(frozen=True)
class TableSetup(Setup):
    """A table game's setup: start player, Ireland's display and the tower tokens entered
    before play (None where not entered yet). There are no supplies: they are counts."""

    entered_tokens: tuple[str | None, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"start_player": self.start_player}
        if self.display or self.entered_tokens:
            out["display"] = list(self.display)
            out["tower_tokens"] = list(self.entered_tokens)
        return out


def table_codec(game: Game) -> TableCodec:
    """The table codec of ``game`` (see :class:`~rebirth.engine.codec.TableCodec`)."""
    return TableCodec(game.board, game.cards, game.tokens)


class TableState(State):
    """A table game: the engine's state with supplies as counts and chance entered by hand."""

    __slots__ = ("card_queue", "codec", "deck_size", "entries", "hidden", "hidden_now",
                 "in_play", "moves", "pending", "supply_size", "token_queue", "used")

    def __init__(self, game: Game | None = None, start_player: int = 0, display: Sequence[str] = (),
                 tower_tokens: Sequence[str | None] | None = None) -> None:
        if game is None:
            # A bare instance for clone() to fill (see State.__init__).
            return
        b = game.board
        n = game.players
        if not 0 <= start_player < n:
            raise SetupError("setup.start_player_not_seat_0", start_player=start_player, n=n - 1)
        card_ids = {c.id for c in game.cards}
        if b.is_ireland:
            if len(display) != DISPLAY_SIZE or len(set(display)) != DISPLAY_SIZE:
                raise SetupError("setup.ireland_shows_different_public_missions", display=DISPLAY_SIZE)
            for cid in display:
                if cid not in card_ids:
                    raise SetupError("setup.unknown_mission_card", cid=repr(cid))
        elif display or tower_tokens:
            raise SetupError("setup.public_missions_tower_tokens_exist")
        toks: list[str | None] = list(tower_tokens or [None] * len(b.towers))
        if len(toks) != len(b.towers):
            raise SetupError("setup.towers_tower_tokens_given", n_towers=len(b.towers), n_toks=len(toks))
        tok_ix = {t.id: t.index for t in game.tokens}
        for tid in toks:
            if tid is not None and tid not in tok_ix:
                raise SetupError("setup.unknown_tower_token", tid=repr(tid))
        known = [t for t in toks if t is not None]
        if len(set(known)) != len(known):
            raise SetupError("setup.tower_token_appears_twice")
        tiles, _ = starting_tiles(n)
        k = game.set_aside_count
        # Set before State.__init__, whose first _start_turn is this class's.
        self.codec = table_codec(game)
        self.in_play = [tiles.count(t) for t in range(_NT)]
        self.used = [0] * (_NT * n)
        self.moves = [0] * n
        self.supply_size = len(tiles) - k
        self.deck_size = len(game.cards) - len(display)
        self.hidden = [0] * n
        self.hidden_now = 0
        self.pending: tuple[int, int, int] | None = None
        self.token_queue: list[int] = []
        self.card_queue: list[int] = []
        self.entries: list[tuple[int, int]] = []
        setup = TableSetup(supplies=((),) * n, set_aside=((UNKNOWN,) * k,) * n, mission_deck=(),
                           start_player=start_player, display=tuple(display),
                           entered_tokens=tuple(toks) if b.is_ireland else ())
        State.__init__(self, game, setup)
        self.tokens_on_towers = [UNKNOWN if t is None else tok_ix[t] for t in toks]

    # -------------------------------------------------------------- basics

    def clone(self) -> TableState:
        """An independent copy (table counters included)."""
        c = State.clone(self)
        assert isinstance(c, TableState)
        c.codec = self.codec
        c.in_play = self.in_play
        c.used = self.used[:]
        c.moves = self.moves[:]
        c.supply_size = self.supply_size
        c.deck_size = self.deck_size
        c.hidden = self.hidden[:]
        c.hidden_now = 0
        c.pending = self.pending
        c.token_queue = self.token_queue[:]
        c.card_queue = self.card_queue[:]
        c.entries = self.entries[:]
        c.tokens_on_towers = self.tokens_on_towers[:]
        return c

    @property
    def current_player(self) -> int:
        """The seat to act; CHANCE when the user must enter an outcome; TERMINAL when over."""
        if self.done:
            return TERMINAL
        return CHANCE if self.phase in (PHASE_CHANCE, PHASE_TOKEN, PHASE_CARDS) else self.cur

    def is_chance_node(self) -> bool:
        """True when an outcome must be entered: an extra tile's kind, a tower token, a card."""
        return self.phase in (PHASE_CHANCE, PHASE_TOKEN, PHASE_CARDS) and not self.done

    def remaining(self, p: int) -> list[int]:
        """Per tile kind, seat p's tiles not yet placed, discarded or revealed (S-1, S-2)."""
        u = self.used
        return [self.in_play[t] - u[p * _NT + t] for t in range(_NT)]

    def supply_left(self, p: int) -> int:
        """Tiles seat p still takes from its supply (tiles in play minus set-aside, S-3/S-4)."""
        return self.supply_size - self.moves[p]

    def asked(self, lang: str = "en") -> str:
        """What the pending chance node asks, e.g. ``token on tower T1`` (empty if none)."""
        m = self.asked_msg()
        return "" if m is None else render_value(m, lang, ())

    def asked_msg(self) -> dict[str, Any] | None:
        """What the pending chance node asks as a message value (None if nothing is asked)."""
        if self.phase == PHASE_TOKEN:
            return msg("table.asked.token", tower=dict(self.board.towers[self.token_queue[0]].name))
        if self.phase == PHASE_CARDS:
            return msg("table.asked.card", n=self.cur + 1)
        if self.phase == PHASE_CHANCE:
            return msg("table.asked.extra", n=self.cur + 1)
        return None

    # -------------------------------------------------------- legal entries

    def legal_action_ids(self) -> list[int]:
        """Legal table action ids, or at a chance node the outcomes that may be entered."""
        if self.done:
            return []
        if self.is_chance_node():
            return [o for o, _ in self.chance_outcomes()]
        codec = self.codec
        if self.phase == PHASE_MARK:
            return [codec.mark_id(m) for m in self._mark_options(self.cur)]
        if self.phase == PHASE_EXTRA:
            t = self.extra_tile
            return [codec.place_id(t, h) for h in self._spaces_for(t)]
        rem = self.remaining(self.cur)
        out: list[int] = []
        for t in range(_NT):
            if rem[t] <= 0:
                continue
            if self._has_space_for(t):
                out.extend(codec.place_id(t, h) for h in self._spaces_for(t))
            else:
                out.append(codec.discard_id(t))  # P-7: only a tile with no space is discarded
        return sorted(out)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes the user may enter, with a probability as far as counts tell."""
        codec = self.codec
        if self.phase == PHASE_CHANCE:
            rem = self.remaining(self.cur)
            tot = sum(rem)
            return [(t, rem[t] / tot) for t in range(_NT) if rem[t] > 0]
        if self.phase == PHASE_TOKEN:
            free = [t.index for t in self.game.tokens if t.index not in self.tokens_on_towers]
            return [(codec.token_outcome(t), 1 / len(free)) for t in free]
        if self.phase == PHASE_CARDS:
            free = self._free_cards()
            return [(codec.card_outcome(c), 1 / len(free)) for c in free]
        return []

    def _free_cards(self) -> list[int]:
        taken = set(self.cards.display)
        for q in range(self.n):
            taken.update(self.cards.cathedral_cards[q])
            taken.update(self.cards.tower_cards[q])
        return [c.index for c in self.game.cards if c.index not in taken]

    def sample_chance(self, rng: random.Random) -> int:
        outs = self.chance_outcomes()
        x = rng.random()
        for o, pr in outs:
            x -= pr
            if x < 0:
                return o
        return outs[-1][0]

    def random_action_id(self, rng: random.Random) -> int:
        if self.is_chance_node():
            return self.sample_chance(rng)
        ids = self.legal_action_ids()
        return ids[int(rng.random() * len(ids))]

    def action_text(self, aid: int) -> str:
        """The text of an id (``S3@H7``), or at a chance node of an outcome (``token x``)."""
        if self.is_chance_node():
            return self.codec.chance_text(aid)
        return self.codec.text(aid)

    # ------------------------------------------------------------------ apply

    def apply(self, action: Any, seat: int | None = None) -> list[Event]:
        """Apply an entry given as text (``S3@H7``, ``mark I03``, ``discard S3``, or at a
        chance node ``reveal S2`` / ``token ID`` / ``card ID``) after checking it; ``seat``,
        if given, must be the seat to act (CHANCE for an outcome).

        Raises :class:`ActionError` naming the hex or tile; then nothing has changed.
        """
        if self.done:
            raise TableError("error.game_over")
        text = str(action)
        if seat is not None and seat != self.current_player:
            if self.is_chance_node():
                raise TableError(
                    "error.not_seat_s_turn_first", text=text, n=seat + 1, value=self.asked_msg() or "")
            raise TableError("error.seat_s_turn_not_seat", text=text, n=self.cur + 1, n_a=seat + 1)
        if self.is_chance_node():
            try:
                outcome = self.codec.parse_chance(text)
            except ActionError as exc:
                raise TableError("error.asked_now", text=msg(exc.key, **exc.params),
                                 value=self.asked_msg() or "") from None
            return self.apply_chance(outcome)
        if text.strip().lower().split(" ")[0] in ("token", "card", "reveal"):
            raise TableError("error.no_outcome_asked_for_now", text=text, n=self.cur + 1)
        aid = self.codec.parse(text)
        if aid not in self.legal_action_ids():
            raise TableError.of(self._why_not(aid))
        return self._run(aid)

    def apply_chance(self, outcome: int) -> list[Event]:
        """Apply an entered outcome after checking it."""
        if not self.is_chance_node():
            raise TableError("error.no_outcome_asked_for_now_2")
        if outcome not in [o for o, _ in self.chance_outcomes()]:
            try:
                what = self.codec.chance_text(outcome)
            except ValueError:
                what = str(outcome)
            raise TableError.of(self._why_not_outcome(outcome, what))
        return self._run(outcome)

    def _run(self, aid: int) -> list[Event]:
        self.hidden_now = 0
        with self.recording() as ev:
            self.apply_id(aid)
        # A hidden draw reached the explainer as "deck empty": say "drew a card" instead.
        k = self.hidden_now
        out = []
        for e in ev:
            if k and e.key in _HIDDEN_KEYS:
                e = replace(e, key=_HIDDEN_KEYS[e.key])
                k -= 1
            out.append(e)
        self.hidden_now = 0
        return out

    def apply_id(self, aid: int) -> None:
        """Apply a legal entry (or outcome at a chance node) by id; no checks."""
        p = self.cur
        ph = self.phase
        if ph == PHASE_CHANCE:
            self.entries.append((-1, aid))
            State.apply_id(self, aid)  # -> _resolve_extra below, then the engine's turn
            return
        if ph == PHASE_TOKEN:
            self.entries.append((-1, aid))
            tw = self.token_queue.pop(0)
            self.tokens_on_towers[tw] = aid - _NT
            if not self.token_queue:
                assert self.pending is not None
                t, h, back = self.pending
                self.pending = None
                self.phase = back
                self._table_place(p, t, h)
            return
        if ph == PHASE_CARDS:
            self.entries.append((-1, aid))
            q = self.card_queue.pop(0)
            card = aid - _NT - len(self.game.tokens)
            cards = self.cards
            (cards.tower_cards[q] if self.board.is_ireland else cards.cathedral_cards[q]).append(card)
            if self.card_queue:
                self.cur = self.card_queue[0]
            else:
                self._finish()
            return
        self.entries.append((p, aid))
        kind, a, h = self.codec.split(aid)
        if kind == "mark":
            State.apply_id(self, self.game.codec.mark_id(a))
            return
        if kind == "discard":
            # P-7: the tile is shown and discarded; the turn passes on.
            self.used[p * _NT + a] += 1
            self.moves[p] += 1
            self.tiles.discarded[p].append(a)
            if self._events is not None:
                self._events.append(explain.discard(p, a))
            self.cur = (p + 1) % self.n
            self._start_turn()
            return
        unknown = [tw for tw in self.board.adj_towers[h] if self.tokens_on_towers[tw] < 0]
        if unknown:
            # The tower's token is needed to score this placement: ask for it first.
            self.pending = (a, h, ph)
            self.token_queue = unknown
            self.phase = PHASE_TOKEN
            return
        self._table_place(p, a, h)

    def _table_place(self, p: int, t: int, h: int) -> None:
        if self.phase == PHASE_PLACE:
            self.tiles.hand[p] = t  # the engine places the hand tile
            self.moves[p] += 1
            self.used[p * _NT + t] += 1
        State.apply_id(self, h)

    # ----------------------------------------- where tiles and cards come from

    def _draw(self, p: int) -> None:
        """No hand at the table: the tile is named when it is placed."""

    def _start_turn(self) -> None:
        """The next seat with supply left; when none has, the cards are entered, then E-2."""
        n = self.n
        for _ in range(n):
            if self.moves[self.cur] < self.supply_size:
                self.phase = PHASE_PLACE
                return
            self.cur = (self.cur + 1) % n
        self.card_queue = [q for q in range(n) for _ in range(self.hidden[q])]
        if self.card_queue:
            self.phase = PHASE_CARDS
            self.cur = self.card_queue[0]
            return
        self._finish()

    def _resolve_extra(self, p: int, t: int) -> None:
        # The face-down tile turned over is of kind t (entered): then the engine's I-7.
        a = self.tiles.set_aside[p]
        a[a.index(UNKNOWN)] = t
        self.used[p * _NT + t] += 1
        State._resolve_extra(self, p, t)

    def _draw_card(self, into: list[int]) -> int:
        """A hidden draw (K-1, I-9): counted, the card is entered at the end."""
        if self.cards.next_card >= self.deck_size:
            return -1
        self.cards.next_card += 1
        for q in range(self.n):
            if into is self.cards.cathedral_cards[q] or into is self.cards.tower_cards[q]:
                self.hidden[q] += 1
        self.hidden_now += 1
        return -1

    # ------------------------------------------------------------ messages

    def _why_not(self, aid: int) -> dict[str, Any]:
        p = self.cur
        kind, a, h = self.codec.split(aid)
        if self.phase == PHASE_MARK:
            if kind == "mark":
                return State._why_illegal(self, self.game.codec.mark_id(a))
            return msg("error.seat_must_put_x2_marker", n=p + 1, value=self.codec.text(aid))
        if kind == "mark":
            return msg("error.x2_marker_placed_only_right")
        code = tile_code(a)
        if self.phase == PHASE_EXTRA and (kind != "place" or a != self.extra_tile):
            xt = tile_code(self.extra_tile)
            return msg("error.seat_places_revealed_extra_tile", n=p + 1, xt=xt, code=code)
        rem = self.remaining(p)
        if self.phase == PHASE_PLACE and rem[a] <= 0:
            return msg("error.seat_has_no_left_all", n=p + 1, code=code, in_play=self.in_play[a],
                       tile=msg(f"tile.name.{TILE_CODES[a]}"))
        if kind == "discard":
            return msg("error.has_legal_space_so_cannot", code=code)
        # The hex is wrong for this tile: the engine's own reasons (P-1…P-4).
        hand = self.tiles.hand[p]
        self.tiles.hand[p] = a
        try:
            why = State._why_illegal(self, h)
        finally:
            self.tiles.hand[p] = hand
        return msg("table.entry.why", entry=f"{code}@{self.board.spaces[h].label}", why=why)

    def _why_not_outcome(self, outcome: int, what: str) -> dict[str, Any]:
        try:
            kind, k = self.codec.split_chance(outcome)
        except ValueError:
            kind, k = "", 0
        if kind == "reveal" and self.phase == PHASE_CHANCE:
            return msg("error.seat_has_no_left_reveal", what=what, n=self.cur + 1, value=tile_code(k))
        if kind == "token" and self.phase == PHASE_TOKEN:
            return msg("error.that_token_already_lies_another", what=what)
        if kind == "card" and self.phase == PHASE_CARDS:
            return msg("error.that_card_display_or_already", what=what)
        return msg("error.does_not_answer_what_asked", what=what, asked=self.asked_msg() or "")

    def view(self, seat: int | None, *, detail: bool = True) -> View:
        """The engine's view, with what a table knows: supplies as counts, no set-aside
        kinds (face down, unknown), hidden draws counted, tokens not entered as ``""``;
        phase ``token`` or ``cards`` while such an outcome is asked for."""
        ph = self.phase
        if ph in (PHASE_TOKEN, PHASE_CARDS):
            self.phase = PHASE_CHANCE  # the engine's views know only its own phases
        try:
            v = State.view(self, seat, detail=detail)
        finally:
            self.phase = ph
        n = self.n
        return replace(
            v,
            phase={PHASE_TOKEN: "token", PHASE_CARDS: "cards"}.get(ph, v.phase),
            supply_counts=tuple(self.supply_left(q) for q in range(n)),
            hand_counts=(0,) * n,
            set_aside=(),
            public_set_aside=tuple(tuple(tile_code(t) for t in a if t >= 0) for a in self.tiles.set_aside)
            if v.public_set_aside else (),
            mission_counts=tuple(self.hidden),
            deck_count=self.deck_size - self.cards.next_card,
            tower_tokens=tuple(self.game.tokens[t].id if t >= 0 else ""
                               for t in self.tokens_on_towers))

    # ---------------------------------------------------------- records

    def history_json(self) -> list[dict[str, Any]]:
        """The entries so far: placements with their tile, marks, discards, entered outcomes."""
        out: list[dict[str, Any]] = []
        for seat, aid in self.entries:
            if seat < 0:
                out.append({"chance": self.codec.chance_text(aid)})
            else:
                out.append({"seat": seat, "action": self.codec.text(aid)})
        return out

    def position(self) -> Position:
        """The public facts now as a :class:`~rebirth.engine.position.Position` (no secrets:
        the drawn cards are entered only at the end).

        A position names a token for every tower (S-8); a tower nobody has reached yet gets
        one of the tokens not entered so far. That token pays nothing until its tower is
        reached, so it changes no standing and no end scoring; what a placement next to
        that tower would score is not known before its token is entered."""
        from rebirth.engine.position import Position

        if self.is_chance_node():
            raise TableError("error.outcome_pending_enter_first", value=self.asked_msg() or "")
        toks = self.tokens_on_towers[:]
        spare = [t.index for t in self.game.tokens if t.index not in toks]
        for i, t in enumerate(toks):
            if t < 0:
                toks[i] = spare.pop(0)
        pos = Position.from_state(self)
        return replace(
            pos,
            tower_tokens=tuple((tw.id, self.game.tokens[toks[tw.index]].id)
                               for tw in self.board.towers),
            deck_count=self.deck_size - self.cards.next_card)


def new_table_game(board: str | Any, players: int, *, start_player: int = 0,
                   variants: Sequence[str] = (), display: Sequence[str] = (),
                   tower_tokens: Sequence[str | None] | None = None) -> TableState:
    """A new table game (raises SetupError on a bad configuration)."""
    game = Game.create(board, players, list(variants))
    return TableState(game, start_player, display, tower_tokens)


def apply_table_chance(state: TableState, text: str) -> list[Event]:
    """Apply a logged or entered outcome (``reveal S2``, ``token ID``, ``card ID``): the
    chance hook of :func:`~rebirth.engine.replay.replay_log` for table games."""
    return state.apply(text)


def rebuild(state: TableState, drop: int = 0) -> TableState:
    """The table game re-entered from its setup and entries, minus the last ``drop``
    (undo: table mistakes happen). Raises TableError if ``drop`` is out of range."""
    if not 0 <= drop <= len(state.entries):
        raise TableError("error.cannot_undo_entries_were_made", drop=drop, n_entries=len(state.entries))
    su = state.setup
    assert isinstance(su, TableSetup)
    fresh = TableState(state.game, su.start_player, su.display,
                       su.entered_tokens if state.board.is_ireland else None)
    log = log_of(state)
    return replay_log(fresh, log[:len(log) - drop], apply_chance=apply_table_chance)
