"""The game state: position, legal actions, apply, clone, scoring (RULES.md P-, F-, T-, C-, K-, I-, E-).

One code path serves both the explaining mode (``apply``: checks legality and
returns events) and the fast mode (``apply_id``: no checks, no events), so the
two cannot drift apart; the events (worded in :mod:`rebirth.engine.explain`) are
only built when a list is there to take them. All per-player tables are flat
lists (index ``x * n + seat``) so that ``clone`` is a handful of list copies.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from rebirth.engine import explain
from rebirth.engine.actions import (
    Action,
    ActionSyntaxError,
    IllegalActionError,
    Mark,
    Place,
    Reveal,
    parse_action,
)
from rebirth.engine.board import BLANK, ENERGY, FLEXIBLE, FOOD, SETTLEMENT
from rebirth.engine.codec import unknown_action
from rebirth.engine.events import Event
from rebirth.engine.tiles import NEUTRAL, TILE_NAMES_DE, parse_tile, starting_tiles, tile_code

if TYPE_CHECKING:
    from rebirth.engine.game import Game, Setup

CATEGORIES = ("farms", "settlements", "ports", "castles", "missions", "offshore", "towers",
              "public_missions")
SCOTLAND_CATEGORIES = CATEGORIES[:5]
IRELAND_CATEGORIES = ("farms", "settlements", "castles", "missions", "offshore", "towers",
                      "public_missions")
C_FARMS, C_SETTLE, C_PORTS, C_CASTLES, C_MISSIONS, C_OFFSHORE, C_TOWERS, C_PUBLIC = range(8)
NCAT = 8

# Free-space lists: which list a space of each kind lives in.
L_ENERGY, L_FOOD, L_EITHER, L_SETTLE = 0, 1, 2, 3
_LIST_OF_KIND = {ENERGY: L_ENERGY, FOOD: L_FOOD, BLANK: L_EITHER, FLEXIBLE: L_EITHER,
                 SETTLEMENT: L_SETTLE}

PHASE_PLACE, PHASE_EXTRA, PHASE_MARK, PHASE_END, PHASE_CHANCE = 0, 1, 2, 3, 4

CHANCE = -2
"""``current_player`` at a chance node (OpenSpiel's chance player): an outcome is pending."""
TERMINAL = -1
"""``current_player`` once the game is over."""

RANKS = {2: (5, 3), 3: (8, 5), 4: (12, 8, 5)}
CASTLE_POINTS = 5

_COND_KINDS = ("farm_group", "castles_held", "towers_adjacent", "district_firsts",
               "offshore_farms", "tiles_in_provinces")


def _compile_condition(cond: dict[str, Any]) -> tuple[int, int, int]:
    """An Ireland condition as (kind, a, b) for the per-placement check (I-10, I-11)."""
    t = cond.get("type")
    if t not in _COND_KINDS:
        return (-1, 0, 0)  # Scotland cards are evaluated once, at the end.
    if t == "farm_group":
        return (0, cond["size"], 0)
    if t == "tiles_in_provinces":
        return (5, cond["tiles"], cond["provinces"])
    return (_COND_KINDS.index(t), cond["count"], 0)


def uf_find(parent: list[int], x: int) -> int:
    """The root of ``x``'s farm group (F-1): union-find with path halving. The one copy
    of the walk; halving changes no group, only how fast the next walk is."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def rank_order(present: list[int], infl: list[int], base: int, completer: int, n: int,
               completer_wins: bool) -> None:
    """Sort ``present`` into rank order in place (T-3, T-4): influence, then the completer
    loses every tie and the others follow clockwise from the player after the completer."""

    def order(q: int) -> int:
        if q == completer:
            return -1 if completer_wins else n
        return (q - completer - 1) % n

    present.sort(key=lambda q: (-infl[base + q], order(q)))


class LegalActions:
    """A lazy view of the legal actions: ``action in state.legal_actions``, ``len``, iteration."""

    __slots__ = ("_state",)

    def __init__(self, state: State) -> None:
        self._state = state

    def _ids(self) -> list[int]:
        return sorted(self._state.legal_action_ids())

    def __iter__(self) -> Iterator[Action]:
        s = self._state
        return iter([s.action_from_id(i) for i in self._ids()])

    def __len__(self) -> int:
        return len(self._state.legal_action_ids())

    def __contains__(self, action: object) -> bool:
        s = self._state
        if isinstance(action, str):
            try:
                action = parse_action(action)
            except ActionSyntaxError:
                return False
        if not isinstance(action, Place | Mark | Reveal):
            return False
        if isinstance(action, Reveal) != s.is_chance_node():
            return False
        aid = s.action_id(action)
        return aid is not None and aid in s.legal_action_ids()

    def __repr__(self) -> str:
        return f"<LegalActions {' '.join(str(a) for a in self)}>"


class State:
    """A position of one game. Create with :meth:`Game.new_state` or :meth:`Game.from_setup`."""

    __slots__ = (
        "_events",
        "aside",
        "board",
        "cadj",
        "cat",
        "cath",
        "ccond",
        "cfarm",
        "cur",
        "deck",
        "deck_pos",
        "dfill",
        "dfirst",
        "discarded",
        "display",
        "dlast",
        "done",
        "extra_tile",
        "final_events",
        "first_paid",
        "free",
        "fulfilled",
        "game",
        "hand",
        "held",
        "history",
        "hjson",
        "holder",
        "infl",
        "initial_events",
        "known_aside",
        "marks",
        "maxgroup",
        "missions",
        "n",
        "nfarm_off",
        "occ",
        "pending_double",
        "pending_extra",
        "phase",
        "placed",
        "pos",
        "rcount",
        "returned",
        "rng",
        "score",
        "secret",
        "setup",
        "sptr",
        "supply",
        "tile",
        "tmask",
        "tokens_on_towers",
        "towers_seen",
        "turn",
        "uf_parent",
        "uf_size",
        "winners_",
    )

    def __init__(self, game: Game | None = None, setup: Setup | None = None, *,
                 seed: int | None = None) -> None:
        if game is None or setup is None:
            # A bare instance for clone() to fill: a compiled class (mypyc) runs __init__
            # with no arguments inside __new__.
            return
        b = game.board
        n = game.players
        self.game = game
        self.board = b
        self.n = n
        self.setup = setup
        self.rng = random.Random(seed)
        ns = len(b.spaces)
        self.occ = [-1] * ns
        self.tile = [-1] * ns
        self.uf_parent = list(range(ns))
        self.uf_size = [1] * ns
        self.free: list[list[int]] = [[], [], [], []]
        self.pos = [0] * ns
        for s in b.spaces:
            lst = self.free[_LIST_OF_KIND[s.kind]]
            self.pos[s.index] = len(lst)
            lst.append(s.index)
        nd = len(b.districts)
        self.dfill = [0] * nd
        self.dlast = [-1] * nd
        self.infl = [0] * (nd * n)
        nc = len(b.castles)
        self.cadj = [0] * (nc * n)
        self.cfarm = [0] * (nc * n)
        self.holder = [-1] * nc
        self.held = [0] * n
        self.cath = [0] * len(b.cathedrals)
        self.tmask = [0] * len(b.towers)
        self.towers_seen = [0] * n
        self.rcount = [0] * (len(b.regions) * n)
        self.maxgroup = [0] * n
        self.dfirst = [0] * n
        self.nfarm_off = [0] * n
        self.score = [0] * n
        self.cat = [0] * (NCAT * n)
        card_ix = {c.id: c.index for c in game.cards}
        # The deck is drawn from the front; deck_pos is the next card.
        self.deck = [card_ix[c] for c in setup.mission_deck]
        self.deck_pos = 0
        self.missions: list[list[int]] = [[] for _ in range(n)]
        self.secret: list[list[int]] = [[] for _ in range(n)]
        self.display = [card_ix[c] for c in setup.display]
        self.fulfilled = [0] * len(game.cards)
        self.first_paid = [False] * len(game.cards)
        self.marks: list[list[int]] = [[] for _ in range(n)]
        tok_ix = {t.id: t.index for t in game.tokens}
        # Tower i carries token tokens[i]; stored on the state so clone shares it.
        self.pending_extra = 0
        self.pending_double = 0
        self.extra_tile = -1
        self.supply = [list(s) for s in setup.supplies]
        self.sptr = [0] * n
        self.hand = [-1] * n
        self.aside = [list(a) for a in setup.set_aside]
        self.known_aside: list[list[int]] = [[] for _ in range(n)]
        _, ret = starting_tiles(n)
        self.returned = [list(ret) for _ in range(n)]
        self.discarded: list[list[int]] = [[] for _ in range(n)]
        self.placed = [0] * n
        self.history: list[tuple[int, int]] = []
        self.hjson: list[dict[str, Any]] = []
        self.winners_: list[int] = []
        self.final_events: list[Event] = []
        self._events: list[Event] | None = None
        self.done = False
        self.turn = 0
        self.phase = PHASE_PLACE
        self.cur = setup.start_player
        self.tokens_on_towers = [tok_ix[t] for t in setup.tower_tokens]
        self.ccond = [_compile_condition(c.condition) for c in game.cards]
        # S-6: neutral tiles on every blocker hex with 2 players.
        if n == 2:
            for h in b.blockers:
                self._remove_free(h)
                self.occ[h] = NEUTRAL
                self.tile[h] = -1
        for p in range(n):
            self._draw(p)
        # A P-7 discard can happen before the first turn on a custom map; keep its event.
        self._events = []
        if n == 4:
            # The S-2 ruling is one tables miss: say it in the log.
            for p in range(n):
                self._events.append(explain.returned_4p(p, [tile_code(t) for t in ret]))
        self._start_turn()
        self.initial_events: list[Event] = self._events
        self._events = None

    # ------------------------------------------------------------------ basics

    def clone(self) -> State:
        """An independent copy (the RNG state included)."""
        cls = type(self)  # a subclass (table mode, engine/table.py) clones as itself
        c = cls.__new__(cls)
        c.game = self.game
        c.board = self.board
        c.n = self.n
        c.setup = self.setup
        # Random(0) is cheap to build; a seedless Random() would read the OS entropy pool.
        c.rng = random.Random(0)
        c.rng.setstate(self.rng.getstate())
        c.occ = self.occ[:]
        c.tile = self.tile[:]
        c.uf_parent = self.uf_parent[:]
        c.uf_size = self.uf_size[:]
        c.free = [lst[:] for lst in self.free]
        c.pos = self.pos[:]
        c.dfill = self.dfill[:]
        c.dlast = self.dlast[:]
        c.infl = self.infl[:]
        c.cadj = self.cadj[:]
        c.cfarm = self.cfarm[:]
        c.holder = self.holder[:]
        c.held = self.held[:]
        c.cath = self.cath[:]
        c.tmask = self.tmask[:]
        c.towers_seen = self.towers_seen[:]
        c.rcount = self.rcount[:]
        c.maxgroup = self.maxgroup[:]
        c.dfirst = self.dfirst[:]
        c.nfarm_off = self.nfarm_off[:]
        c.score = self.score[:]
        c.cat = self.cat[:]
        c.deck = self.deck
        c.deck_pos = self.deck_pos
        c.missions = [m[:] for m in self.missions]
        c.secret = [m[:] for m in self.secret]
        c.display = self.display
        c.fulfilled = self.fulfilled[:]
        c.first_paid = self.first_paid[:]
        c.marks = [m[:] for m in self.marks]
        c.pending_extra = self.pending_extra
        c.pending_double = self.pending_double
        c.extra_tile = self.extra_tile
        c.supply = self.supply
        c.sptr = self.sptr[:]
        c.hand = self.hand[:]
        c.aside = [a[:] for a in self.aside]
        c.known_aside = [k[:] for k in self.known_aside]
        c.returned = self.returned
        c.discarded = [d[:] for d in self.discarded]
        c.placed = self.placed[:]
        c.history = self.history[:]
        c.hjson = []
        c.winners_ = self.winners_[:]
        c.final_events = self.final_events[:]
        c.initial_events = self.initial_events
        c._events = None
        c.done = self.done
        c.turn = self.turn
        c.phase = self.phase
        c.cur = self.cur
        c.tokens_on_towers = self.tokens_on_towers
        c.ccond = self.ccond
        return c

    @property
    def current_player(self) -> int:
        """The seat to act; :data:`CHANCE` at a chance node, :data:`TERMINAL` when over."""
        if self.done:
            return TERMINAL
        return CHANCE if self.phase == PHASE_CHANCE else self.cur

    def is_chance_node(self) -> bool:
        """True when a chance outcome (an extra tile's reveal, I-7) must be applied next."""
        return self.phase == PHASE_CHANCE

    def face_down(self, p: int) -> list[int]:
        """Seat p's set-aside tiles still face down (I-7: a revealed tile is never drawn again)."""
        known = self.known_aside[p]
        if not known:
            return self.aside[p][:]
        rest = self.aside[p][:]
        for t in known:
            rest.remove(t)
        return rest

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """At a chance node: each possible outcome (a tile kind) with its probability."""
        if self.phase != PHASE_CHANCE:
            return []
        fd = self.face_down(self.cur)
        return [(t, fd.count(t) / len(fd)) for t in sorted(set(fd))]

    def sample_chance(self, rng: random.Random) -> int:
        """A chance outcome drawn with its probability (one ``rng.random()`` call)."""
        fd = self.face_down(self.cur)
        return fd[int(rng.random() * len(fd))]

    def is_terminal(self) -> bool:
        return self.done

    @property
    def tile_to_place(self) -> int:
        """The tile the current player must place now (-1 outside a placement)."""
        if self.phase == PHASE_PLACE:
            return self.hand[self.cur]
        if self.phase == PHASE_EXTRA:
            return self.extra_tile
        return -1

    def group_root(self, h: int) -> int:
        """The root space of the farm group on space ``h`` (``h`` itself when alone)."""
        return uf_find(self.uf_parent, h)

    def best_farm_spaces(self, spaces: list[int], p: int, t: int) -> list[int]:
        """Among free ``spaces``, those where a farm ``t`` of seat ``p`` would form the
        largest group (what F-1 pays most for), in the order given: the playout policy's
        question, answered in one call."""
        parent = self.uf_parent
        size = self.uf_size
        occ = self.occ
        tile = self.tile
        nbrs = self.board.nbrs
        best_g = -1
        best: list[int] = []
        for h in spaces:
            g = 1
            roots: list[int] = []
            for nb in nbrs[h]:
                if occ[nb] == p and tile[nb] == t:
                    # uf_find inlined, read-only: this is the playouts' inner loop.
                    r = nb
                    while parent[r] != r:
                        r = parent[r]
                    if r not in roots:
                        roots.append(r)
                        g += size[r]
            if g > best_g:
                best_g, best = g, [h]
            elif g == best_g:
                best.append(h)
        return best

    # ------------------------------------------------------------ legal actions

    def _spaces_for(self, t: int) -> list[int]:
        free = self.free
        if t >= 2:
            return free[L_SETTLE][:]
        own = L_ENERGY if t == 0 else L_FOOD
        out = free[own] + free[L_EITHER]
        if out:
            return out
        # P-3: emergency rule, the other farm type, never a settlement space.
        return free[L_FOOD if t == 0 else L_ENERGY][:]

    def _has_space_for(self, t: int) -> bool:
        free = self.free
        if t >= 2:
            return bool(free[L_SETTLE])
        return bool(free[0] or free[1] or free[2])

    def _mark_options(self, p: int) -> list[int]:
        f = self.fulfilled
        bit = 1 << p
        mine = self.marks[p]
        return [m for m in self.display if not f[m] & bit and m not in mine]

    def legal_action_ids(self) -> list[int]:
        """Legal action ids (see :mod:`rebirth.engine.codec`); the possible outcomes at a chance node."""
        if self.done:
            return []
        if self.phase == PHASE_MARK:
            codec = self.game.codec
            return [codec.mark_id(m) for m in self._mark_options(self.cur)]
        if self.phase == PHASE_CHANCE:
            return sorted(set(self.face_down(self.cur)))
        return self._spaces_for(self.tile_to_place)

    @property
    def legal_actions(self) -> LegalActions:
        """The legal actions of the player to act, as a lazy view."""
        return LegalActions(self)

    def random_action_id(self, rng: random.Random) -> int:
        """A uniformly random legal action without building the list (fast path for playouts);
        at a chance node an outcome drawn with its probability."""
        if self.phase == PHASE_CHANCE:
            return self.sample_chance(rng)
        if self.phase == PHASE_MARK:
            opts = self.legal_action_ids()
            return opts[int(rng.random() * len(opts))]
        t = self.tile_to_place
        free = self.free
        if t >= 2:
            lst = free[L_SETTLE]
            return lst[int(rng.random() * len(lst))]
        a = free[L_ENERGY if t == 0 else L_FOOD]
        e = free[L_EITHER]
        k = len(a) + len(e)
        if k:
            i = int(rng.random() * k)
            return a[i] if i < len(a) else e[i - len(a)]
        o = free[L_FOOD if t == 0 else L_ENERGY]
        return o[int(rng.random() * len(o))]

    def action_from_id(self, aid: int) -> Action:
        """The action of an id (see :class:`~rebirth.engine.codec.ActionCodec`); at a chance
        node, the outcome."""
        if self.phase == PHASE_CHANCE:
            return self.game.codec.decode_chance(aid)
        return self.game.codec.decode(aid)

    def action_id(self, action: Action) -> int | None:
        """The id of an action, or None if it names no hex/mission of this game."""
        return self.game.codec.encode(action)

    def action_text(self, aid: int) -> str:
        """The text of an id: an action, or at a chance node an outcome (``reveal S2``)."""
        if self.phase == PHASE_CHANCE:
            return self.game.codec.chance_text(aid)
        return self.game.codec.text(aid)

    # ------------------------------------------------------------------- apply

    def apply(self, action: Action | str) -> list[Event]:
        """Apply a player's action after checking it; returns the events it caused.

        Raises :class:`ActionSyntaxError` or :class:`IllegalActionError` and then
        changes nothing.
        """
        if self.done:
            raise IllegalActionError("the game is over", "die Partie ist vorbei")
        if isinstance(action, str):
            action = parse_action(action)
        if self.phase == PHASE_CHANCE:
            if isinstance(action, Reveal):
                return self.apply_chance(parse_tile(action.tile))
            raise IllegalActionError(
                "a chance outcome (the extra tile's reveal, I-7) is pending, not a player's action",
                "ein Zufallsergebnis (das Aufdecken des Extra-Plättchens, I-7) steht aus, "
                "keine Spieleraktion")
        aid = self.action_id(action)
        if aid is None:
            raise unknown_action(action)
        if aid not in self.legal_action_ids():
            en, de = self._why_illegal(aid)
            raise IllegalActionError(en, de)
        self._events = []
        try:
            self.apply_id(aid)
            return self._events
        finally:
            self._events = None

    def apply_chance(self, outcome: int) -> list[Event]:
        """Apply a chance outcome (a tile kind revealed as extra tile, I-7) after checking it."""
        if self.phase != PHASE_CHANCE:
            raise IllegalActionError("no chance outcome is pending", "kein Zufallsergebnis steht aus")
        if outcome not in self.face_down(self.cur):
            code = tile_code(outcome) if 0 <= outcome < 6 else str(outcome)
            raise IllegalActionError(
                f"a {code} is not among the face-down set-aside tiles of the player (I-7)",
                f"ein {code} ist nicht unter den verdeckt beiseitegelegten Plättchen (I-7)")
        self._events = []
        try:
            self.apply_id(outcome)
            return self._events
        finally:
            self._events = None

    def _why_illegal(self, aid: int) -> tuple[str, str]:
        b = self.board
        if self.phase == PHASE_MARK:
            return ("an x2 marker must go on a public mission on display that you have not "
                    "fulfilled or marked yet (I-8)",
                    "ein x2-Marker muss auf eine ausliegende öffentliche Mission, die du noch "
                    "nicht erfüllt oder markiert hast (I-8)")
        if aid >= len(b.spaces):
            return ("you must place a tile now, not an x2 marker",
                    "du musst jetzt ein Plättchen legen, keinen x2-Marker")
        s = b.spaces[aid]
        t = self.tile_to_place
        if self.occ[aid] != -1:
            return (f"{s.label} is already occupied (P-1)", f"{s.label} ist schon belegt (P-1)")
        if t >= 2:
            return (f"{s.label} is not a settlement space; a settlement goes only there (P-4)",
                    f"{s.label} ist kein Siedlungsfeld; eine Siedlung darf nur dorthin (P-4)")
        if s.kind == SETTLEMENT:
            return (f"{s.label} is a settlement space; a farm never goes there (P-3)",
                    f"{s.label} ist ein Siedlungsfeld; eine Farm darf nie dorthin (P-3)")
        kind_de = {"energy": "Energie", "food": "Nahrungs"}.get(s.kind_name, s.kind_name)
        return (f"{s.label} is a {s.kind_name} space; {explain.A_EN[t]} may use it only when "
                "no matching, blank or flexible space is free (P-2, P-3)",
                f"{s.label} ist ein {kind_de}-Feld; eine {TILE_NAMES_DE[t]} darf nur dorthin, "
                "wenn kein passendes, leeres oder flexibles Feld frei ist (P-2, P-3)")

    def apply_id(self, aid: int) -> None:
        """Apply a legal action (or at a chance node, an outcome) given as int. Fast path:
        no legality check."""
        p = self.cur
        if self.phase == PHASE_CHANCE:
            self._resolve_extra(p, aid)
            return
        if self.phase == PHASE_MARK:
            m = aid - len(self.board.spaces)
            self.marks[p].append(m)
            self.pending_double -= 1
            self.history.append((p, aid))
            ev = self._events
            if ev is not None:
                ev.append(explain.double_marker(p, self.game.cards[m]))
            self._continue_turn()
            return
        if self.phase == PHASE_PLACE:
            t = self.hand[p]
            self.hand[p] = -1
        else:
            t = self.extra_tile
            self.extra_tile = -1
        self.history.append((p, aid))
        self._place(p, aid, t)
        self._continue_turn()

    # ---------------------------------------------------------------- the turn

    def _remove_free(self, h: int) -> None:
        lst = self.free[_LIST_OF_KIND[self.board.spaces[h].kind]]
        i = self.pos[h]
        last = lst.pop()
        if last != h:
            lst[i] = last
            self.pos[last] = i

    def _draw(self, p: int) -> None:
        """P-6: draw the next supply tile into the hand, if any is left."""
        i = self.sptr[p]
        sup = self.supply[p]
        if i < len(sup):
            self.hand[p] = sup[i]
            self.sptr[p] = i + 1

    def _start_turn(self) -> None:
        """Find the next player able to act, applying P-7 discards; end the game when none."""
        n = self.n
        for _ in range(64 * n):
            p = self.cur
            if self.hand[p] < 0:
                # Equal supplies make this a full stop: every hand is empty (E-1).
                if all(h < 0 for h in self.hand):
                    self._finish()
                    return
                self.cur = (p + 1) % n
                continue
            t = self.hand[p]
            if self._has_space_for(t):
                self.phase = PHASE_PLACE
                return
            # P-7: no legal space at all: reveal, discard, draw, pass on.
            self.hand[p] = -1
            self.discarded[p].append(t)
            ev = self._events
            if ev is not None:
                ev.append(explain.discard(p, t))
            self._draw(p)
            self.cur = (p + 1) % n
        raise RuntimeError("no player can act")  # pragma: no cover

    def _continue_turn(self) -> None:
        p = self.cur
        while self.pending_extra:
            self.pending_extra -= 1
            if len(self.aside[p]) > len(self.known_aside[p]):
                # I-7: a face-down tile is revealed at random: a chance node.
                self.phase = PHASE_CHANCE
                return
            ev = self._events
            if ev is not None:
                ev.append(explain.extra_lost(p))
        while self.pending_double:
            if self._mark_options(p):
                self.phase = PHASE_MARK
                return
            self.pending_double -= 1
            ev = self._events
            if ev is not None:
                ev.append(explain.double_lost(p))
        # P-6 and pass clockwise.
        self._draw(p)
        self.turn += 1
        self.cur = (p + 1) % self.n
        self._start_turn()

    def _resolve_extra(self, p: int, t: int) -> None:
        """I-7: the revealed tile ``t`` is placed as an extra tile, or, with no legal space,
        stays set aside face up (public from then on); then the turn goes on."""
        ev = self._events
        self.history.append((-1, t))
        if not self._has_space_for(t):
            self.known_aside[p].append(t)
            self.phase = PHASE_PLACE
            if ev is not None:
                ev.append(explain.extra_unplaceable(p, t))
            self._continue_turn()
            return
        self.aside[p].remove(t)
        self.extra_tile = t
        self.phase = PHASE_EXTRA
        if ev is not None:
            ev.append(explain.extra_tile(p, t))

    # ---------------------------------------------------------- scoring (P-5)

    def _pay(self, p: int, pts: int, cat: int) -> None:
        self.score[p] += pts
        self.cat[cat * self.n + p] += pts

    def _place(self, p: int, h: int, t: int) -> None:
        b = self.board
        n = self.n
        occ = self.occ
        tl = self.tile
        ev = self._events
        self._remove_free(h)
        occ[h] = p
        tl[h] = t
        self.placed[p] += 1
        sp = b.spaces[h]
        self.rcount[sp.region * n + p] += 1
        farm = t < 2
        completed = False
        if ev is not None:
            emergency = farm and sp.kind in (ENERGY, FOOD) and sp.kind != t
            ev.append(explain.place(p, t, sp, emergency))
        if farm:
            # F-1: union-find over same-owner, same-type neighbours.
            parent = self.uf_parent
            size = self.uf_size
            root = h
            for nb in b.nbrs[h]:
                if occ[nb] == p and tl[nb] == t:
                    r = uf_find(parent, nb)
                    if r != root:
                        if size[r] > size[root]:
                            parent[root] = r
                            size[r] += size[root]
                            root = r
                        else:
                            parent[r] = root
                            size[root] += size[r]
            g = size[root]
            self.score[p] += g
            self.cat[p] += g  # C_FARMS == 0
            if g > self.maxgroup[p]:
                self.maxgroup[p] = g
            if ev is not None:
                ev.append(explain.farm(p, t, g))
            if sp.offshore:
                self._pay(p, 1, C_OFFSHORE)
                self.nfarm_off[p] += 1
                if ev is not None:
                    ev.append(explain.offshore(p, sp))
        else:
            d = sp.district
            dist = b.districts[d]
            inf = t - 1
            self.infl[d * n + p] += inf
            self.dfill[d] += 1
            self.dlast[d] = p
            size_d = len(dist.spaces)
            if size_d == 1:
                self._pay(p, inf, C_SETTLE)
                if ev is not None:
                    ev.append(explain.small_district(p, dist, inf))
            if sp.port:
                self._pay(p, 1, C_PORTS)
                if ev is not None:
                    ev.append(explain.port(p, sp))
            if size_d > 1 and self.dfill[d] == size_d:
                completed = True
                self._score_district(d, p, final=False)
        # C-1…C-4
        for c in b.adj_castles[h]:
            k = c * n
            self.cadj[k + p] += 1
            if farm:
                self.cfarm[k + p] += 1
            hol = self.holder[c]
            if hol == p:
                continue
            if hol < 0:
                self.holder[c] = p
                self.held[p] += 1
                if ev is not None:
                    ev.append(explain.castle_claim(p, b.castles[c]))
                continue
            mine, theirs = self.cadj[k + p], self.cadj[k + hol]
            take = mine > theirs
            rule = "C-2"
            if mine == theirs:
                mf, tf = self.cfarm[k + p], self.cfarm[k + hol]
                rule = "C-3"
                take = mf > tf or (mf == tf and "castle_tie_to_active" in self.game.variants)
            if take:
                self.holder[c] = p
                self.held[p] += 1
                self.held[hol] -= 1
            if ev is not None:
                ev.append(explain.castle_contest(
                    p, hol, b.castles[c], take=take, rule=rule, mine=mine, theirs=theirs,
                    my_farms=self.cfarm[k + p], their_farms=self.cfarm[k + hol]))
        if b.adj_cathedrals[h]:
            self._cathedrals(p, h)
        if b.adj_towers[h]:
            self._towers(p, h)
        if self.display:
            self._public_missions(p, completed)

    def _draw_card(self, into: list[int]) -> int:
        """Draw the top mission card into a player's hidden cards (K-1, I-9); -1 if empty."""
        if self.deck_pos >= len(self.deck):
            return -1
        card = self.deck[self.deck_pos]
        self.deck_pos += 1
        into.append(card)
        return card

    def _cathedrals(self, p: int, h: int) -> None:
        b = self.board
        bit = 1 << p
        ev = self._events
        for k in b.adj_cathedrals[h]:
            if self.cath[k] & bit:
                continue
            self.cath[k] |= bit
            card = self._draw_card(self.missions[p])
            if ev is not None:
                ev.append(explain.cathedral(p, b.cathedrals[k],
                                            self.game.cards[card] if card >= 0 else None))

    def _towers(self, p: int, h: int) -> None:
        b = self.board
        bit = 1 << p
        ev = self._events
        # Adjacent towers resolve in the map's tower order (P-5); the table is built that way.
        for tw in b.adj_towers[h]:
            if self.tmask[tw] & bit:
                continue
            self.tmask[tw] |= bit
            self.towers_seen[p] += 1
            tok = self.game.tokens[self.tokens_on_towers[tw]]
            card = -1
            if tok.kind == "points":
                self._pay(p, tok.points, C_TOWERS)
            elif tok.kind == "extra_tile":
                self.pending_extra += 1
            elif tok.kind == "double":
                self.pending_double += 1
            else:
                card = self._draw_card(self.secret[p])
            if ev is not None:
                ev.append(explain.tower(p, b.towers[tw], tok,
                                        self.game.cards[card] if card >= 0 else None))

    def _score_district(self, d: int, completer: int, *, final: bool) -> None:
        """T-3…T-5 (final=False, at completion) and T-7 (final=True, at game end)."""
        n = self.n
        dist = self.board.districts[d]
        size = len(dist.spaces)
        base = d * n
        infl = self.infl
        present = [q for q in range(n) if infl[base + q] > 0]
        if not present:
            return
        ev = self._events
        ranks = RANKS[size]
        if final and "incomplete_as_small" in self.game.variants:
            for q in present:
                self._pay(q, infl[base + q], C_SETTLE)
                if ev is not None:
                    ev.append(explain.incomplete_as_small(q, dist, infl[base + q]))
            return
        if len(present) == 1 and not final:
            q = present[0]
            pts = sum(ranks)
            self._pay(q, pts, C_SETTLE)
            if self.display:
                self.dfirst[q] += 1
            if ev is not None:
                ev.append(explain.district_alone(q, dist, pts))
            return
        completer_wins = size == 2 and "medium_completer_wins" in self.game.variants
        rank_order(present, infl, base, completer, n, completer_wins)
        for i, q in enumerate(present[: len(ranks)]):
            pts = ranks[i]
            self._pay(q, pts, C_SETTLE)
            if i == 0 and not final and self.display:
                self.dfirst[q] += 1
            if ev is not None:
                v = infl[base + q]
                tied = any(o != q and infl[base + o] == v for o in present)
                ev.append(explain.district_rank(q, dist, i + 1, pts, v, tied=tied,
                                                completer_wins=completer_wins, final=final))

    # ---------------------------------------------------- Ireland public missions

    def _meets(self, card: int, q: int) -> bool:
        kind, a, b = self.ccond[card]
        if kind == 0:
            return self.maxgroup[q] >= a
        if kind == 1:
            return self.held[q] >= a
        if kind == 2:
            return self.towers_seen[q] >= a
        if kind == 3:
            return self.dfirst[q] >= a
        if kind == 4:
            return self.nfarm_off[q] >= a
        if kind == 5:
            n = self.n
            rc = self.rcount
            return sum(1 for r in range(len(self.board.regions)) if rc[r * n + q] >= a) >= b
        return False

    def mission_progress(self, card: int, q: int) -> tuple[int, int]:
        """How far seat q is on a card, as (have, need): on Ireland the card's measure and its
        threshold (I-11); on Scotland q's count and the most any other seat has (K-3: q needs
        at least that, and at least 1, K-7)."""
        kind, a, b = self.ccond[card]
        if kind < 0:
            vals = self.mission_values(card)
            return vals[q], max([1] + [v for o, v in enumerate(vals) if o != q])
        if kind == 5:
            n = self.n
            rc = self.rcount
            return sum(1 for r in range(len(self.board.regions)) if rc[r * n + q] >= a), b
        have = (self.maxgroup, self.held, self.towers_seen, self.dfirst, self.nfarm_off)[kind][q]
        return have, a

    def _public_missions(self, p: int, completed: bool) -> None:
        """I-10: check every displayed mission for every player, placer first, then clockwise.

        Only the placer's measures can grow, except first ranks: a completed district
        can give another player a first rank, so then everyone is checked.
        """
        n = self.n
        ev = self._events
        for off in range(n if completed else 1):
            q = (p + off) % n
            bit = 1 << q
            for m in self.display:
                if self.fulfilled[m] & bit or not self._meets(m, q):
                    continue
                self.fulfilled[m] |= bit
                card = self.game.cards[m]
                first = not self.first_paid[m]
                self.first_paid[m] = True
                pts = card.values[0] if first else card.values[1]
                doubled = m in self.marks[q]
                if doubled:
                    pts *= 2
                self._pay(q, pts, C_PUBLIC)
                if ev is not None:
                    ev.append(explain.public_mission(q, card, first=first, pts=pts, doubled=doubled))

    # ------------------------------------------------------------ game end (E)

    def mission_values(self, card: int) -> list[int]:
        """A Scotland secret mission's measure for every seat (K-3…K-8), in one pass."""
        cond = self.game.cards[card].condition
        n = self.n
        out = [0] * n
        occ = self.occ
        spaces = self.game.mission_spaces[card]
        if cond["type"] == "most_settlements":
            tile = self.tile
            inf = cond["filter"].get("influence", 0)
            for i in spaces:
                o = occ[i]
                if 0 <= o < n and (not inf or tile[i] - 1 == inf):
                    out[o] += 1
            return out
        # Regions and castles: every occupied space counts, whatever its tile (K-4, K-6).
        for i in spaces:
            o = occ[i]
            if 0 <= o < n:
                out[o] += 1
        return out

    def mission_value(self, card: int, q: int) -> int:
        """A Scotland secret mission's measure for seat q."""
        return self.mission_values(card)[q]

    def secret_fulfilled(self, card: int, q: int) -> bool:
        """Whether player q fulfils a secret card now (Scotland K-3/K-7, Ireland I-9)."""
        if self.board.is_ireland:
            return self._meets(card, q)
        vals = self.mission_values(card)
        mine = vals[q]
        # K-7: "all have 0" fulfils nothing; K-3: a tie with the leader is enough.
        return mine >= 1 and mine == max(vals)

    def _finish(self) -> None:
        """E-2: incomplete districts, castles, secret missions; then the winners (E-3/E-4)."""
        self.done = True
        self.phase = PHASE_END
        self.cur = -1
        b = self.board
        n = self.n
        mark = len(self._events) if self._events is not None else 0
        for d, dist in enumerate(b.districts):
            f = self.dfill[d]
            if 0 < f < len(dist.spaces):
                self._score_district(d, self.dlast[d], final=True)
        ev = self._events
        for c, hol in enumerate(self.holder):
            if hol >= 0:
                self._pay(hol, CASTLE_POINTS, C_CASTLES)
                if ev is not None:
                    ev.append(explain.final_castle(hol, b.castles[c]))
        ruling = not b.is_ireland  # K-3/K-7 said with the first revealed card only
        for q in range(n):
            cards = self.secret[q] if b.is_ireland else self.missions[q]
            for card in cards:
                cd = self.game.cards[card]
                ok = self.secret_fulfilled(card, q)
                pts = (cd.values[0] if b.is_ireland else cd.points) if ok else 0
                if ok:
                    self._pay(q, pts, C_MISSIONS)
                if ev is not None:
                    ev.append(explain.mission_reveal(q, cd, ok, pts, ireland=b.is_ireland,
                                                     ruling=ruling))
                    ruling = False
        self.winners_ = self._winners()
        if ev is not None:
            ev.append(explain.game_end(self.winners_[:], self.score[:], ireland=b.is_ireland))
            self.final_events = ev[mark:]

    def tara_count(self, tower: int, q: int) -> int:
        return sum(1 for s in self.board.towers[tower].spaces if self.occ[s] == q)

    def _winners(self) -> list[int]:
        return self.decide_winners()[0]

    def decide_winners(self, scores: list[int] | None = None) -> tuple[list[int], dict[str, Any] | None]:
        """E-3/E-4 on this board: the winners for ``scores`` (default: the scores now), and
        what decided a tie for first (None: no tie). The one place the tiebreak is worked out."""
        score = self.score if scores is None else scores
        best = max(score)
        tied = [q for q in range(self.n) if score[q] == best]
        if len(tied) == 1:
            return tied, None
        rule = "E-4" if self.board.is_ireland else "E-3"
        how: dict[str, Any] = {"rule": rule, "points": best, "tied": tied[:]}
        chain = self.board.tiebreak
        # E-3 variant stirling_literal: the chain's last castle (Stirling) decides whenever
        # no earlier step did, its holder winning even if not tied — also on a map whose
        # chain has no Edinburgh.
        literal_step = -1
        if "stirling_literal" in self.game.variants:
            castles = [i for i, (kind, _) in enumerate(chain) if kind == "castle"]
            literal_step = castles[-1] if castles else -1
        for step, (kind, ix) in enumerate(chain):
            if kind == "castle":
                hol = self.holder[ix]
                if hol in tied or (step == literal_step and hol >= 0):
                    how.update(by="castle", id=self.board.castles[ix].id,
                               literal=hol not in tied)
                    return [hol], how
            else:
                counts = {q: self.tara_count(ix, q) for q in tied}
                top = max(counts.values())
                tied = [q for q in tied if counts[q] == top]
                if len(tied) == 1:
                    how.update(by="tower", id=self.board.towers[ix].id,
                               counts=[counts.get(q, -1) for q in range(self.n)])
                    return tied, how
        how["by"] = "shared"
        return tied, how

    def tiebreak(self) -> dict[str, Any] | None:
        """Once the game is over, what decided a tie for first (E-3, E-4): ``by`` is
        ``castle`` (its holder won; ``literal`` under stirling_literal), ``tower`` (most
        spaces next to it; ``counts`` per seat, -1 for seats not tied) or ``shared``; None
        when nobody tied or the game is not over."""
        return self.decide_winners()[1] if self.done else None

    # ---------------------------------------------------------------- results

    @property
    def winners(self) -> list[int]:
        """The winning seats after the tiebreak (several: a shared win); [] while playing."""
        return self.winners_[:]

    def returns(self) -> list[float]:
        """1/k for each of k winners, 0 for the others (OpenSpiel's ``returns``)."""
        if not self.done:
            return [0.0] * self.n
        share = 1.0 / len(self.winners_)
        return [share if q in self.winners_ else 0.0 for q in range(self.n)]

    @property
    def categories(self) -> tuple[str, ...]:
        return IRELAND_CATEGORIES if self.board.is_ireland else SCOTLAND_CATEGORIES

    def breakdown(self, q: int) -> dict[str, int]:
        """Points of seat q by category (the board's categories only)."""
        return {c: self.cat[CATEGORIES.index(c) * self.n + q] for c in self.categories}

    def tiles_of(self, q: int) -> dict[str, list[int]]:
        """Where each of seat q's tiles is (conservation invariant)."""
        b = self.board
        placed = [self.tile[s.index] for s in b.spaces if self.occ[s.index] == q]
        return {
            "supply": self.supply[q][self.sptr[q]:],
            "hand": [self.hand[q]] if self.hand[q] >= 0 else [],
            "extra": [self.extra_tile] if self.extra_tile >= 0 and self.cur == q else [],
            "set_aside": self.aside[q][:],
            "returned": self.returned[q][:],
            "placed": placed,
            "discarded": self.discarded[q][:],
        }

    def history_json(self) -> list[dict[str, Any]]:
        """The actions so far, with chance outcomes (I-7 reveals), for a record."""
        # Views ask for this every move: extend a cache instead of rebuilding (quadratic).
        out = self.hjson
        for seat, a in self.history[len(out):]:
            if seat < 0:
                out.append({"chance": f"reveal {tile_code(a)}"})
            else:
                out.append({"seat": seat, "action": self.game.codec.text(a)})
        return [dict(e) for e in out]

    def view(self, seat: int | None, *, detail: bool = True) -> View:
        """What ``seat`` may see (None: a spectator); see :func:`rebirth.engine.infoset.view`."""
        return infoset.view(self, seat, detail=detail)

    def resample_from_infostate(self, seat: int, rng: random.Random) -> State:
        """A twin with everything hidden from ``seat`` drawn again (OpenSpiel's
        ``resample_from_infostate``); see :func:`rebirth.engine.infoset.resample`."""
        return infoset.resample(self, seat, rng)


from rebirth.engine import infoset  # noqa: E402  (infoset needs State for typing only)
from rebirth.engine.views import View  # noqa: E402
