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

:class:`TableGame` *holds* an engine :class:`~rebirth.engine.state.State`: placing, scoring,
castles, towers, public missions and the end are that state's methods, unchanged. The table
game adds only what a table knows and asks: its :class:`TableSupply` (the state's
:class:`~rebirth.engine.state.Source`) counts tiles and hidden draws instead of dealing them,
and the game asks for tower tokens and drawn cards as the players turn them over. Its
entries are value types with text forms (:class:`TablePlace` ``S3@H7``,
:class:`TableDiscard` ``discard S3``, :class:`~rebirth.engine.actions.Mark` ``mark I03``,
:class:`~rebirth.engine.actions.Reveal` ``reveal S2``, :class:`TokenEntry` ``token ID``,
:class:`CardEntry` ``card ID``); :attr:`TableGame.legal_actions` lists them (grouped by hex
with :meth:`TableEntries.by_hex`) and every listed entry is accepted by :meth:`TableGame.apply`.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from rebirth.engine import infoset
from rebirth.engine.actions import ActionError, IllegalActionError, Mark, Reveal
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
    Source,
    State,
)
from rebirth.engine.tiles import TILE_CODES, starting_tiles, tile_code

if TYPE_CHECKING:
    from rebirth.engine.position import Position
    from rebirth.engine.views import View

ASK_TOKEN = "token"
"""Asked: which token lies on the tower a placement is first next to (S-8, I-6)."""
ASK_CARDS = "cards"
"""Asked: which mission card a seat drew (entered at the end, K-1 / I-9)."""
ASK_REVEAL = "reveal"
"""Asked: which kind the face-down tile turned over as an extra tile is (I-7)."""
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


@dataclass(frozen=True, slots=True)
class TablePlace:
    """A placement naming its tile: ``S3@H7`` (a tile of kind ``tile`` on hex ``label``)."""

    tile: str
    label: str

    def __str__(self) -> str:
        return f"{self.tile}@{self.label}"


@dataclass(frozen=True, slots=True)
class TableDiscard:
    """P-7: a tile of kind ``tile`` with no legal space anywhere is shown and discarded."""

    tile: str

    def __str__(self) -> str:
        return f"discard {self.tile}"


@dataclass(frozen=True, slots=True)
class TokenEntry:
    """An entered outcome: the token ``token`` lies on the tower asked about (S-8, I-6)."""

    token: str

    def __str__(self) -> str:
        return f"token {self.token}"


@dataclass(frozen=True, slots=True)
class CardEntry:
    """An entered outcome: the seat asked about drew mission card ``card`` (K-1, I-9)."""

    card: str

    def __str__(self) -> str:
        return f"card {self.card}"


TableEntry = TablePlace | TableDiscard | Mark | Reveal | TokenEntry | CardEntry
"""Anything entered at a table: a seat's move, or an outcome the table turned over."""
_OUTCOMES = (Reveal, TokenEntry, CardEntry)


def entry_json(entry: TableEntry) -> dict[str, str]:
    """An entry as JSON facts for a page: its kind, its parts and its text (the wire form
    sent back to enter it), so that no page splits entry texts."""
    out: dict[str, str] = {"text": str(entry)}
    if isinstance(entry, TablePlace):
        out.update(kind="place", tile=entry.tile, hex=entry.label)
    elif isinstance(entry, TableDiscard):
        out.update(kind="discard", tile=entry.tile)
    elif isinstance(entry, Mark):
        out.update(kind="mark", mission=entry.mission)
    elif isinstance(entry, Reveal):
        out.update(kind="reveal", tile=entry.tile)
    elif isinstance(entry, TokenEntry):
        out.update(kind="token", token=entry.token)
    else:
        out.update(kind="card", card=entry.card)
    return out
_OUTCOME_WORDS = ("token", "card", "reveal")


class TableSupply(Source):
    """Where a table game's turns and cards come from: counts, not a deal (S-1…S-4).

    A seat's turn comes while it has supply left (tiles in play minus the set-aside ones);
    a card drawn at a cathedral or tower is counted, unknown, until the cards are entered
    at the end (K-1, I-9)."""

    __slots__ = ("card_queue", "deck_size", "drawn_now", "hidden", "moves", "supply_size")

    def __init__(self, n: int = 0, supply_size: int = 0, deck_size: int = 0) -> None:
        # (Also run with no arguments by a compiled class's __new__: clone() fills it.)
        self.moves = [0] * n
        """Per seat, tiles taken from its supply so far (placed or discarded)."""
        self.supply_size = supply_size
        self.deck_size = deck_size
        self.hidden = [0] * n
        """Per seat, mission cards drawn and not entered yet."""
        self.drawn_now = 0
        """Hidden draws during the entry being applied (their events say "drew a card")."""
        self.card_queue: list[int] = []
        """Once every supply is played: the seat of each drawn card still to be entered."""

    def start_turn(self, state: State) -> None:
        """The next seat with supply left; when none has, the drawn cards are asked for,
        then the engine's end scoring (E-2) runs."""
        n = state.n
        for _ in range(n):
            if self.moves[state.cur] < self.supply_size:
                state.phase = PHASE_PLACE
                return
            state.cur = (state.cur + 1) % n
        self.card_queue = [q for q in range(n) for _ in range(self.hidden[q])]
        if self.card_queue:
            state.cur = self.card_queue[0]
            return
        state.finish()

    def draw_card(self, state: State, into: list[int]) -> int:
        """A hidden draw (K-1, I-9): counted; the card itself is entered at the end."""
        cards = state.cards
        if cards.next_card >= self.deck_size:
            return -1
        cards.next_card += 1
        for q in range(state.n):
            if into is cards.cathedral_cards[q] or into is cards.tower_cards[q]:
                self.hidden[q] += 1
        self.drawn_now += 1
        return -1

    def clone(self) -> TableSupply:
        c = TableSupply.__new__(TableSupply)
        c.moves = self.moves[:]
        c.supply_size = self.supply_size
        c.deck_size = self.deck_size
        c.hidden = self.hidden[:]
        c.drawn_now = 0
        c.card_queue = self.card_queue[:]
        return c


class TableEntries:
    """A lazy view of what may be entered now: ``entry in game.legal_actions``, ``len``,
    iteration (in id order), and :meth:`by_hex` for the placements per hex."""

    __slots__ = ("_game",)

    def __init__(self, game: TableGame) -> None:
        self._game = game

    def __iter__(self) -> Iterator[TableEntry]:
        g = self._game
        return iter([g.entry_of(i) for i in g.legal_ids()])

    def __len__(self) -> int:
        return len(self._game.legal_ids())

    def __contains__(self, entry: object) -> bool:
        g = self._game
        if isinstance(entry, str):
            try:
                entry = g.parse(entry)
            except ActionError:
                return False
        if not isinstance(entry, TablePlace | TableDiscard | Mark | Reveal | TokenEntry | CardEntry):
            return False
        try:
            return g.id_of(entry) in g.legal_ids()
        except ActionError:
            return False

    def by_hex(self) -> dict[str, list[TablePlace]]:
        """The legal placements per hex label (tiles in tile order), hexes in board order."""
        out: dict[str, list[TablePlace]] = {}
        for e in self:
            if isinstance(e, TablePlace):
                out.setdefault(e.label, []).append(e)
        by_label = self._game.board.by_label
        return {k: sorted(v, key=lambda e: TILE_CODES.index(e.tile))
                for k, v in sorted(out.items(), key=lambda kv: by_label[kv[0]])}

    def of_kind(self, kind: type[TableEntry]) -> list[TableEntry]:
        """The legal entries of one type (e.g. :class:`TableDiscard`), in id order."""
        return [e for e in self if isinstance(e, kind)]

    def __repr__(self) -> str:
        return f"<TableEntries {' '.join(str(e) for e in self)}>"


class TableGame:
    """A physical game recorded as it is played: an engine state that is told each tile as
    it is placed, each token and card as it is turned over (see the module docstring)."""

    __slots__ = ("codec", "entries", "in_play", "pending", "state", "supply", "token_queue", "used")

    def __init__(self, game: Game | None = None, start_player: int = 0, display: Sequence[str] = (),
                 tower_tokens: Sequence[str | None] | None = None) -> None:
        if game is None:
            # A bare instance for clone() to fill: a compiled class (mypyc) runs __init__
            # with no arguments inside __new__.
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
        self.codec = table_codec(game)
        self.in_play = [tiles.count(t) for t in range(_NT)]
        """Per tile kind, the tiles one seat has in play (S-1, S-2)."""
        self.used = [0] * (_NT * n)
        """Per seat and kind, tiles placed, discarded or revealed so far."""
        self.pending: tuple[int, int] | None = None
        """A placement (tile, space) waiting for the tokens of its towers."""
        self.token_queue: list[int] = []
        """The towers whose tokens are asked for before ``pending`` is placed."""
        self.entries: list[tuple[int, int]] = []
        """Every entry so far: (seat, table action id), or (-1, outcome) for an outcome."""
        self.supply = TableSupply(n, len(tiles) - k, len(game.cards) - len(display))
        setup = TableSetup(supplies=((),) * n, set_aside=((UNKNOWN,) * k,) * n, mission_deck=(),
                           start_player=start_player, display=tuple(display),
                           entered_tokens=tuple(toks) if b.is_ireland else ())
        self.state = State(game, setup, source=self.supply)
        self.state.tokens_on_towers = [UNKNOWN if t is None else tok_ix[t] for t in toks]

    # -------------------------------------------------------------- basics

    @property
    def game(self) -> Game:
        return self.state.game

    @property
    def board(self) -> Any:
        return self.state.board

    @property
    def n(self) -> int:
        return self.state.n

    @property
    def setup(self) -> TableSetup:
        su = self.state.setup
        assert isinstance(su, TableSetup)
        return su

    @property
    def score(self) -> list[int]:
        """The running scores (a copy)."""
        return self.state.score[:]

    @property
    def winners(self) -> list[int]:
        return self.state.winners

    @property
    def cur(self) -> int:
        """The seat the next entry is for (the seat to move, or whose outcome is asked)."""
        return self.state.cur

    def clone(self) -> TableGame:
        """An independent copy."""
        c = TableGame.__new__(TableGame)
        c.codec = self.codec
        c.in_play = self.in_play
        c.used = self.used[:]
        c.pending = self.pending
        c.token_queue = self.token_queue[:]
        c.entries = self.entries[:]
        c.state = self.state.clone()
        sup = c.state.source
        assert isinstance(sup, TableSupply)
        c.supply = sup
        c.state.tokens_on_towers = self.state.tokens_on_towers[:]
        return c

    def board_copy(self) -> TableGame:
        """A copy that is not over (as :meth:`State.board_copy`): the same board and tables,
        to ask standings and the position of a finished game."""
        c = self.clone()
        c.state = c.state.board_copy()
        sup = c.state.source
        assert isinstance(sup, TableSupply)
        c.supply = sup
        return c

    @property
    def asking(self) -> str | None:
        """What the table is asked for now: ``"token"``, ``"cards"``, ``"reveal"`` or None."""
        if self.state.done:
            return None
        if self.token_queue:
            return ASK_TOKEN
        if self.supply.card_queue:
            return ASK_CARDS
        if self.state.phase == PHASE_CHANCE:
            return ASK_REVEAL
        return None

    @property
    def current_player(self) -> int:
        """The seat to act; CHANCE when an outcome must be entered; TERMINAL when over."""
        if self.state.done:
            return TERMINAL
        return CHANCE if self.asking is not None else self.state.cur

    def is_chance_node(self) -> bool:
        """True when an outcome must be entered: an extra tile's kind, a tower token, a card."""
        return self.asking is not None

    def is_terminal(self) -> bool:
        return self.state.done

    def remaining(self, p: int) -> list[int]:
        """Per tile kind, seat p's tiles not yet placed, discarded or revealed (S-1, S-2)."""
        u = self.used
        return [self.in_play[t] - u[p * _NT + t] for t in range(_NT)]

    def supply_left(self, p: int) -> int:
        """Tiles seat p still takes from its supply (tiles in play minus set-aside, S-3/S-4)."""
        return self.supply.supply_size - self.supply.moves[p]

    def asked(self, lang: str = "en") -> str:
        """What the pending outcome asks, e.g. ``token on tower T1`` (empty if none)."""
        m = self.asked_msg()
        return "" if m is None else render_value(m, lang, ())

    def asked_msg(self) -> dict[str, Any] | None:
        """What the pending outcome asks as a message value (None if nothing is asked)."""
        ask = self.asking
        if ask == ASK_TOKEN:
            return msg("table.asked.token", tower=dict(self.board.towers[self.token_queue[0]].name))
        if ask == ASK_CARDS:
            return msg("table.asked.card", n=self.state.cur + 1)
        if ask == ASK_REVEAL:
            return msg("table.asked.extra", n=self.state.cur + 1)
        return None

    # -------------------------------------------------------- legal entries

    @property
    def legal_actions(self) -> TableEntries:
        """What may be entered now (moves, or the outcomes asked for), as a lazy view."""
        return TableEntries(self)

    def legal_ids(self) -> list[int]:
        """The legal entries as ids (:class:`~rebirth.engine.codec.TableCodec`): table action
        ids, or while an outcome is asked the outcomes that may be entered; ascending."""
        st = self.state
        if st.done:
            return []
        if self.asking is not None:
            return sorted(o for o, _ in self.chance_outcomes())
        codec = self.codec
        if st.phase == PHASE_MARK:
            return sorted(codec.mark_id(m) for m in st.mark_options(st.cur))
        if st.phase == PHASE_EXTRA:
            t = st.extra_tile
            return sorted(codec.place_id(t, h) for h in st.spaces_for(t))
        rem = self.remaining(st.cur)
        out: list[int] = []
        for t in range(_NT):
            if rem[t] <= 0:
                continue
            if st.has_space_for(t):
                out.extend(codec.place_id(t, h) for h in st.spaces_for(t))
            else:
                out.append(codec.discard_id(t))  # P-7: only a tile with no space is discarded
        return sorted(out)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes that may be entered, with a probability as far as counts tell."""
        codec = self.codec
        ask = self.asking
        st = self.state
        if ask == ASK_REVEAL:
            rem = self.remaining(st.cur)
            tot = sum(rem)
            return [(t, rem[t] / tot) for t in range(_NT) if rem[t] > 0]
        if ask == ASK_TOKEN:
            free = [t.index for t in self.game.tokens if t.index not in st.tokens_on_towers]
            return [(codec.token_outcome(t), 1 / len(free)) for t in free]
        if ask == ASK_CARDS:
            free = self._free_cards()
            return [(codec.card_outcome(c), 1 / len(free)) for c in free]
        return []

    def _free_cards(self) -> list[int]:
        cards = self.state.cards
        taken = set(cards.display)
        for q in range(self.n):
            taken.update(cards.cathedral_cards[q])
            taken.update(cards.tower_cards[q])
        return [c.index for c in self.game.cards if c.index not in taken]

    def random_entry(self, rng: random.Random) -> TableEntry:
        """A random legal entry (outcomes with their probability as far as counts tell)."""
        if self.is_chance_node():
            outs = self.chance_outcomes()
            x = rng.random()
            for o, pr in outs:
                x -= pr
                if x < 0:
                    return self.entry_of(o)
            return self.entry_of(outs[-1][0])
        ids = self.legal_ids()
        return self.entry_of(ids[int(rng.random() * len(ids))])

    # ----------------------------------------------------- entries and text

    def entry_of(self, aid: int) -> TableEntry:
        """The entry of an id: a move, or while an outcome is asked an outcome."""
        codec = self.codec
        if self.is_chance_node():
            kind, k = codec.split_chance(aid)
            if kind == "reveal":
                return Reveal(tile_code(k))
            if kind == "token":
                return TokenEntry(self.game.tokens[k].id)
            return CardEntry(self.game.cards[k].id)
        kind, a, h = codec.split(aid)
        if kind == "place":
            return TablePlace(tile_code(a), self.board.spaces[h].label)
        if kind == "mark":
            return Mark(self.game.cards[a].id)
        return TableDiscard(tile_code(a))

    def parse(self, text: str) -> TableEntry:
        """The entry of a text (``S3@H7``, ``discard S3``, ``mark I03``, ``reveal S2``,
        ``token ID``, ``card ID``); ActionSyntaxError / IllegalActionError when it names nothing."""
        t = text.strip()
        word = t.lower().split(" ")[0] if t else ""
        codec = self.codec
        if word in _OUTCOME_WORDS:
            kind, k = codec.split_chance(codec.parse_chance(t))
            if kind == "reveal":
                return Reveal(tile_code(k))
            if kind == "token":
                return TokenEntry(self.game.tokens[k].id)
            return CardEntry(self.game.cards[k].id)
        kind, a, h = codec.split(codec.parse(t))
        if kind == "place":
            return TablePlace(tile_code(a), self.board.spaces[h].label)
        if kind == "mark":
            return Mark(self.game.cards[a].id)
        return TableDiscard(tile_code(a))

    def id_of(self, entry: TableEntry) -> int:
        """The id of an entry (an outcome id for an outcome); raises for what names nothing."""
        if isinstance(entry, _OUTCOMES):
            return self.codec.parse_chance(str(entry))
        return self.codec.parse(str(entry))

    def action_text(self, aid: int) -> str:
        """The text of an id (``S3@H7``), or while an outcome is asked of an outcome."""
        return str(self.entry_of(aid))

    def last_placement(self) -> tuple[int, TablePlace] | None:
        """The seat and entry of the last placement entered (None before the first)."""
        for seat, aid in reversed(self.entries):
            if seat >= 0:
                kind, a, h = self.codec.split(aid)
                if kind == "place":
                    return seat, TablePlace(tile_code(a), self.board.spaces[h].label)
        return None

    # ------------------------------------------------------------------ apply

    def apply(self, entry: TableEntry | str, seat: int | None = None) -> list[Event]:
        """Apply an entry (a value or its text) after checking it; ``seat``, if given, must be
        the seat to act (CHANCE for an outcome). Returns the entry's events.

        Raises :class:`ActionError` naming the hex or tile; then nothing has changed.
        """
        if self.state.done:
            raise TableError("error.game_over")
        text = str(entry)
        if seat is not None and seat != self.current_player:
            if self.is_chance_node():
                raise TableError(
                    "error.not_seat_s_turn_first", text=text, n=seat + 1, value=self.asked_msg() or "")
            raise TableError("error.seat_s_turn_not_seat", text=text, n=self.state.cur + 1, n_a=seat + 1)
        if isinstance(entry, str):
            if not self.is_chance_node() and text.strip().lower().split(" ")[0] in _OUTCOME_WORDS:
                raise TableError("error.no_outcome_asked_for_now", text=text, n=self.state.cur + 1)
            try:
                entry = self.parse(entry)
            except ActionError as exc:
                if not self.is_chance_node():
                    raise
                raise TableError("error.asked_now", text=msg(exc.key, **exc.params),
                                 value=self.asked_msg() or "") from None
        is_outcome = isinstance(entry, _OUTCOMES)
        if self.is_chance_node():
            if not is_outcome:
                raise TableError("error.asked_now",
                                 text=msg("error.not_entered_outcome_type_reveal", text=repr(text)),
                                 value=self.asked_msg() or "")
            outcome = self.id_of(entry)
            if outcome not in [o for o, _ in self.chance_outcomes()]:
                raise TableError.of(self._why_not_outcome(outcome, text))
            return self._run(outcome)
        if is_outcome:
            raise TableError("error.no_outcome_asked_for_now", text=text, n=self.state.cur + 1)
        aid = self.id_of(entry)
        if aid not in self.legal_ids():
            raise TableError.of(self._why_not(aid))
        return self._run(aid)

    def _run(self, aid: int) -> list[Event]:
        st = self.state
        self.supply.drawn_now = 0
        with st.recording() as ev:
            self._enter(aid)
        # A hidden draw reached the explainer as "deck empty": say "drew a card" instead.
        k = self.supply.drawn_now
        out = []
        for e in ev:
            if k and e.key in _HIDDEN_KEYS:
                e = replace(e, key=_HIDDEN_KEYS[e.key])
                k -= 1
            out.append(e)
        self.supply.drawn_now = 0
        return out

    def _enter(self, aid: int) -> None:
        """Apply a legal entry (or outcome while one is asked) by id; no checks."""
        st = self.state
        p = st.cur
        ask = self.asking
        if ask == ASK_REVEAL:
            self.entries.append((-1, aid))
            _, tile = self.codec.split_chance(aid)
            self.used[p * _NT + tile] += 1
            st.reveal_named(p, tile, UNKNOWN)  # I-7, then the engine's turn
            return
        if ask == ASK_TOKEN:
            self.entries.append((-1, aid))
            tw = self.token_queue.pop(0)
            _, token = self.codec.split_chance(aid)
            st.tokens_on_towers[tw] = token
            if not self.token_queue:
                assert self.pending is not None
                t, h = self.pending
                self.pending = None
                self._place(p, t, h)
            return
        if ask == ASK_CARDS:
            self.entries.append((-1, aid))
            queue = self.supply.card_queue
            q = queue.pop(0)
            _, card = self.codec.split_chance(aid)
            cards = st.cards
            (cards.tower_cards[q] if self.board.is_ireland else cards.cathedral_cards[q]).append(card)
            if queue:
                st.cur = queue[0]
            else:
                st.finish()
            return
        self.entries.append((p, aid))
        kind, a, h = self.codec.split(aid)
        if kind == "mark":
            st.apply_id(self.game.codec.mark_id(a))
            return
        if kind == "discard":
            # P-7: the tile is shown and discarded; the turn passes on.
            self.used[p * _NT + a] += 1
            self.supply.moves[p] += 1
            st.discard_named(p, a)
            return
        unknown = [tw for tw in self.board.adj_towers[h] if st.tokens_on_towers[tw] < 0]
        if unknown:
            # The tower's token is needed to score this placement: ask for it first.
            self.pending = (a, h)
            self.token_queue = unknown
            return
        self._place(p, a, h)

    def _place(self, p: int, t: int, h: int) -> None:
        st = self.state
        if st.phase != PHASE_EXTRA:
            self.supply.moves[p] += 1
            self.used[p * _NT + t] += 1
        st.place_named(p, t, h)

    # ------------------------------------------------------------ messages

    def _why_not(self, aid: int) -> dict[str, Any]:
        st = self.state
        p = st.cur
        kind, a, h = self.codec.split(aid)
        if st.phase == PHASE_MARK:
            if kind == "mark":
                return st.why_not_mark(a)
            return msg("error.seat_must_put_x2_marker", n=p + 1, value=self.codec.text(aid))
        if kind == "mark":
            return msg("error.x2_marker_placed_only_right")
        code = tile_code(a)
        if st.phase == PHASE_EXTRA and (kind != "place" or a != st.extra_tile):
            xt = tile_code(st.extra_tile)
            return msg("error.seat_places_revealed_extra_tile", n=p + 1, xt=xt, code=code)
        rem = self.remaining(p)
        if st.phase != PHASE_EXTRA and rem[a] <= 0:
            return msg("error.seat_has_no_left_all", n=p + 1, code=code, in_play=self.in_play[a],
                       tile=msg(f"tile.name.{TILE_CODES[a]}"))
        if kind == "discard":
            return msg("error.has_legal_space_so_cannot", code=code)
        # The hex is wrong for this tile: the engine's own reasons (P-1…P-4).
        return msg("table.entry.why", entry=f"{code}@{self.board.spaces[h].label}",
                   why=st.why_not_place(h, a))

    def _why_not_outcome(self, outcome: int, what: str) -> dict[str, Any]:
        try:
            kind, k = self.codec.split_chance(outcome)
        except ValueError:
            kind, k = "", 0
        ask = self.asking
        if kind == "reveal" and ask == ASK_REVEAL:
            return msg("error.seat_has_no_left_reveal", what=what, n=self.state.cur + 1, value=tile_code(k))
        if kind == "token" and ask == ASK_TOKEN:
            return msg("error.that_token_already_lies_another", what=what)
        if kind == "card" and ask == ASK_CARDS:
            return msg("error.that_card_display_or_already", what=what)
        return msg("error.does_not_answer_what_asked", what=what, asked=self.asked_msg() or "")

    def view(self, seat: int | None = None, *, detail: bool = True) -> View:
        """What the table knows, for everyone at it: the engine's public view of the board
        with supplies as counts, no set-aside kinds (face down, unknown), hidden draws
        counted, tokens not entered as ``""`` and the table's own entries (what may be entered
        is :attr:`legal_actions`); phase ``token``, ``cards`` or ``chance`` while an outcome
        is asked for."""
        st = self.state
        v = infoset.view(st, None, detail=detail)
        n = self.n
        ask = self.asking
        return replace(
            v,
            seat=seat if seat is not None and 0 <= seat < n else None,
            phase={ASK_TOKEN: "token", ASK_CARDS: "cards", ASK_REVEAL: "chance"}.get(ask or "", v.phase),
            current_player=self.current_player,
            supply_counts=tuple(self.supply_left(q) for q in range(n)),
            hand_counts=(0,) * n,
            set_aside=(),
            public_set_aside=tuple(tuple(tile_code(t) for t in a if t >= 0) for a in st.tiles.set_aside)
            if v.public_set_aside else (),
            mission_counts=tuple(self.supply.hidden),
            deck_count=self.supply.deck_size - st.cards.next_card,
            tower_tokens=tuple(self.game.tokens[t].id if t >= 0 else ""
                               for t in st.tokens_on_towers),
            history=tuple(self.history_json()) if detail else ())

    # ---------------------------------------------------------- records

    def history_json(self) -> list[dict[str, Any]]:
        """The entries so far: placements with their tile, marks, discards, entered outcomes."""
        out: list[dict[str, Any]] = []
        codec = self.codec
        for seat, aid in self.entries:
            if seat < 0:
                out.append({"chance": codec.chance_text(aid)})
            else:
                out.append({"seat": seat, "action": codec.text(aid)})
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
        st = self.state
        toks = st.tokens_on_towers[:]
        spare = [t.index for t in self.game.tokens if t.index not in toks]
        for i, t in enumerate(toks):
            if t < 0:
                toks[i] = spare.pop(0)
        pos = Position.from_state(st)
        return replace(
            pos,
            tower_tokens=tuple((tw.id, self.game.tokens[toks[tw.index]].id)
                               for tw in self.board.towers),
            deck_count=self.supply.deck_size - st.cards.next_card)


def new_table_game(board: str | Any, players: int, *, start_player: int = 0,
                   variants: Sequence[str] = (), display: Sequence[str] = (),
                   tower_tokens: Sequence[str | None] | None = None) -> TableGame:
    """A new table game (raises SetupError on a bad configuration)."""
    game = Game.create(board, players, list(variants))
    return TableGame(game, start_player, display, tower_tokens)


def apply_table_chance(state: TableGame, text: str) -> list[Event]:
    """Apply a logged or entered outcome (``reveal S2``, ``token ID``, ``card ID``): the
    chance hook of :func:`~rebirth.engine.replay.replay_log` for table games."""
    return state.apply(text)


def rebuild(state: TableGame, drop: int = 0) -> TableGame:
    """The table game re-entered from its setup and entries, minus the last ``drop``
    (undo: table mistakes happen). Raises TableError if ``drop`` is out of range."""
    if not 0 <= drop <= len(state.entries):
        raise TableError("error.cannot_undo_entries_were_made", drop=drop, n_entries=len(state.entries))
    su = state.setup
    fresh = TableGame(state.game, su.start_player, su.display,
                       su.entered_tokens if state.board.is_ireland else None)
    log = log_of(state)
    return replay_log(fresh, log[:len(log) - drop], apply_chance=apply_table_chance)
