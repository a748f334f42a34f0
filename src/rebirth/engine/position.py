"""Positions from data: the public facts of a board, as a value, with pure scoring on it.

A :class:`Position` is what lies on the table between turns: who owns which tile
on which hex, who holds each castle, who placed last in each district (where a
tie needs it), the cathedral pieces and tower visits, the public missions and who
fulfilled them, the x2 marks, the scores so far and, optionally, every seat's
secret mission cards. It comes from a state, from a view or from JSON (see
``docs/positions.md``), and :meth:`Position.validate` refuses what the rules
make impossible, naming the hex.

Everything the engine derives from those facts (farm groups, free-space lists,
district fill and influence, castle adjacency, region counts, first ranks...) is
rebuilt by the one function :func:`rebuild_tables`; :func:`load_position` writes
a position into a state and calls it. Determinization uses the same pair.

The scoring functions (:func:`preview`, :func:`castle_control`,
:func:`settlement_standings`, :func:`end_scoring`) build a state from the
position and run the engine's own code on it, so no rule is written twice.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from rebirth.engine.board import SETTLEMENT, SPACE_KINDS, Board, Structure
from rebirth.engine.config import DISPLAY_SIZE
from rebirth.engine.events import Event
from rebirth.engine.messages import UserError, msg
from rebirth.engine.state import (
    IRELAND_CATEGORIES,
    SCOTLAND_CATEGORIES,
    State,
    rank_order,
)
from rebirth.engine.tiles import NEUTRAL, TILE_CODES, starting_tiles, tile_code

if TYPE_CHECKING:
    from rebirth.engine.state import Game
    from rebirth.engine.views import View

FORMAT = "rebirth-position"
FORMAT_VERSION = 1


class PositionError(UserError):
    """A position that is malformed or that the rules make impossible (a catalog key and arguments)."""


@dataclass(frozen=True)
class PlacedTile:
    """One tile on the board: ``seat`` None and ``tile`` None is a neutral tile (S-6)."""

    hex: str
    seat: int | None
    tile: str | None


@dataclass(frozen=True)
class Position:
    """The public facts of a board between turns (see ``docs/positions.md``).

    Mappings are tuples of pairs so that a position is an immutable, hashable value;
    ``scores`` and ``marks`` default to zeros / no marks for every seat.
    """

    board: str
    players: int
    variants: tuple[str, ...] = ()
    tiles: tuple[PlacedTile, ...] = ()
    castles: tuple[tuple[str, int], ...] = ()
    """Castle id → holding seat, for held castles (C-1…C-4)."""
    district_last: tuple[tuple[str, int], ...] = ()
    """District id → the seat that placed its last settlement (completer, T-3/T-4/T-7)."""
    cathedrals: tuple[tuple[str, tuple[int, ...]], ...] = ()
    """Cathedral id → seats with a piece on it (K-1)."""
    tower_tokens: tuple[tuple[str, str], ...] = ()
    """Tower id → its token id (Ireland, S-8)."""
    tower_visits: tuple[tuple[str, tuple[int, ...]], ...] = ()
    """Tower id → seats that took its bonus (I-6)."""
    display: tuple[str, ...] = ()
    """Public mission cards on display (Ireland, I-10)."""
    fulfilled: tuple[tuple[str, tuple[int, ...]], ...] = ()
    """Public mission id → seats that fulfilled it; the first of them took the higher value."""
    marks: tuple[tuple[str, ...], ...] = ()
    """Per seat, the public missions carrying that seat's x2 marker (I-8)."""
    scores: tuple[int, ...] = ()
    breakdown: tuple[tuple[tuple[str, int], ...], ...] = ()
    """Per seat, points by category (the board's categories; missing ones are 0)."""
    deck_count: int | None = None
    """Cards left in the mission deck (None: unknown, assume enough)."""
    secrets: tuple[tuple[str, ...], ...] | None = None
    """Per seat, its secret mission cards (Scotland K-1, Ireland I-9); None: not known."""

    def __post_init__(self) -> None:
        if not self.scores and isinstance(self.players, int) and 2 <= self.players <= 4:
            object.__setattr__(self, "scores", (0,) * self.players)
        if not self.marks and isinstance(self.players, int) and 2 <= self.players <= 4:
            object.__setattr__(self, "marks", ((),) * self.players)
        object.__setattr__(self, "variants", tuple(sorted(self.variants)))

    # ---------------------------------------------------------------- sources

    @staticmethod
    def from_state(state: State, *, secrets: bool = False) -> Position:
        """The public facts of ``state`` (and every seat's secret cards if ``secrets``)."""
        if state.done:
            raise PositionError(
                "error.game_over_its_scores_already")
        b = state.board
        n = state.n
        cards = state.game.cards
        tiles = []
        for s in b.spaces:
            o = state.occupancy.owner[s.index]
            if o == NEUTRAL:
                tiles.append(PlacedTile(s.label, None, None))
            elif o >= 0:
                tiles.append(PlacedTile(s.label, o, tile_code(state.occupancy.tile[s.index])))
        own = state.cards.tower_cards if b.is_ireland else state.cards.cathedral_cards
        return Position(
            board=b.id,
            players=n,
            variants=tuple(state.game.variants),
            tiles=tuple(tiles),
            castles=tuple((c.id, state.castles.holder[c.index]) for c in b.castles
                          if state.castles.holder[c.index] >= 0),
            district_last=tuple((d.id, state.districts.last_placer[d.index]) for d in b.districts
                                if state.districts.last_placer[d.index] >= 0),
            cathedrals=tuple((c.id, _seats(state.visited.cathedral_pieces[c.index], n)) for c in b.cathedrals
                             if state.visited.cathedral_pieces[c.index]),
            tower_tokens=tuple((t.id, state.game.tokens[state.tokens_on_towers[t.index]].id)
                               for t in b.towers) if state.tokens_on_towers else (),
            tower_visits=tuple((t.id, _seats(state.visited.tower_visits[t.index], n)) for t in b.towers
                               if state.visited.tower_visits[t.index]),
            display=tuple(cards[m].id for m in state.cards.display),
            fulfilled=tuple((cards[m].id, _seats(state.cards.fulfilled[m], n)) for m in state.cards.display
                            if state.cards.fulfilled[m]),
            marks=tuple(tuple(cards[m].id for m in state.cards.marks[q]) for q in range(n)),
            scores=tuple(state.score),
            breakdown=tuple(tuple(state.breakdown(q).items()) for q in range(n)),
            deck_count=state.deck_count,
            secrets=tuple(tuple(cards[c].id for c in own[q]) for q in range(n)) if secrets else None,
        )

    @staticmethod
    def from_view(view: View, board: Board | None = None) -> Position:
        """The public facts a view shows (no secrets: a view holds only its own seat's).

        ``board`` is needed for a map that is not shipped (the view names it by id only).
        """
        if view.phase == "end":
            raise PositionError(
                "error.game_over_its_scores_already")
        from rebirth.engine.board import resolve_board

        b = resolve_board(view.board) if board is None else board
        n = view.players
        if b.id != view.board or len(view.spaces) != len(b.spaces):
            raise PositionError("error.view_does_not_fit_board", board=repr(view.board))
        return _from_view(b, view, n)

    # ------------------------------------------------------------------- JSON

    def to_json(self) -> dict[str, Any]:
        """A plain dict for JSON (the format of ``docs/positions.md``)."""
        tiles: list[dict[str, Any]] = []
        for t in self.tiles:
            if t.seat is None:
                tiles.append({"hex": t.hex, "neutral": True})
            else:
                tiles.append({"hex": t.hex, "seat": t.seat, "tile": t.tile})
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "board": self.board,
            "players": self.players,
            "variants": list(self.variants),
            "tiles": tiles,
            "castles": dict(self.castles),
            "district_last": dict(self.district_last),
            "cathedrals": {k: list(v) for k, v in self.cathedrals},
            "tower_tokens": dict(self.tower_tokens),
            "tower_visits": {k: list(v) for k, v in self.tower_visits},
            "display": list(self.display),
            "fulfilled": {k: list(v) for k, v in self.fulfilled},
            "marks": [list(m) for m in self.marks],
            "scores": list(self.scores),
            "breakdown": [dict(b) for b in self.breakdown],
            "deck_count": self.deck_count,
            "secrets": None if self.secrets is None else [list(s) for s in self.secrets],
        }

    @staticmethod
    def from_json(data: Any) -> Position:
        """Inverse of :meth:`to_json`; raises :class:`PositionError` naming the bad field."""
        return _parse(data)

    # -------------------------------------------------------------- checking

    def validate(self, game: Game) -> None:
        """Refuse a position the rules make impossible in ``game`` (PositionError naming the hex)."""
        _checked_state(game, self)

    def checked_state(self, game: Game, *, into: State | None = None) -> State:
        """Validate (as :meth:`validate`) and return the state at this position between turns
        (:meth:`State.from_facts`): pass it as ``state=`` to the scoring functions below, so
        that one request validates once and builds one state. ``into``: a state of this game
        to load the facts into instead of building another."""
        return _checked_state(game, self, into)

    def to_state(self, game: Game, *, to_move: int = 0) -> State:
        """A live state at this position with ``to_move`` to act next.

        A position holds no hidden facts, so: every seat's supply is its tiles not on
        the board, in code order (S-1, S-2), nothing is set aside, the mission deck
        holds ``deck_count`` of the cards that are neither displayed nor known secrets,
        and the turn counter starts at 0. If no seat has a tile left, the game ends at
        once (E-1, E-2).
        """
        st = _checked_state(game, self)
        if not 0 <= to_move < st.n:
            raise PositionError("error.move_not_seat_0", to_move=to_move, n=st.n - 1)
        st.start_play(to_move)
        return st


def _seats(mask: int, n: int) -> tuple[int, ...]:
    return tuple(q for q in range(n) if mask >> q & 1)


def _from_view(b: Board, view: View, n: int) -> Position:
    tiles = []
    for s, (o, code) in zip(b.spaces, view.spaces, strict=True):
        if o == NEUTRAL:
            tiles.append(PlacedTile(s.label, None, None))
        elif o >= 0:
            tiles.append(PlacedTile(s.label, o, code))
    # The last placer of each district is public: the latest settlement placed in it.
    last: dict[int, int] = {}
    for entry in view.history:
        if "seat" in entry:
            h = b.by_label.get(str(entry["action"]))
            if h is not None and b.spaces[h].kind == SETTLEMENT:
                last[b.spaces[h].district] = int(entry["seat"])
    return Position(
        board=view.board,
        players=n,
        variants=tuple(view.variants),
        tiles=tuple(tiles),
        castles=tuple((c.id, view.castle_holders[c.index]) for c in b.castles
                      if view.castle_holders[c.index] >= 0),
        district_last=tuple((d.id, last[d.index]) for d in b.districts if d.index in last),
        cathedrals=tuple((c.id, tuple(view.cathedral_pieces[c.index])) for c in b.cathedrals
                         if view.cathedral_pieces[c.index]),
        tower_tokens=tuple((t.id, view.tower_tokens[t.index]) for t in b.towers)
        if view.tower_tokens else (),
        tower_visits=tuple((t.id, tuple(view.tower_visits[t.index])) for t in b.towers
                           if view.tower_visits[t.index]),
        display=tuple(view.display),
        fulfilled=tuple((m, tuple(view.fulfilled[m])) for m in view.display if view.fulfilled.get(m)),
        marks=tuple(tuple(m) for m in view.marks),
        scores=tuple(view.scores),
        breakdown=tuple(tuple(bd.items()) for bd in view.breakdown),
        deck_count=view.deck_count,
    )


# ----------------------------------------------------------------- parsing


def _bad(where: str, what: dict[str, Any]) -> PositionError:
    return PositionError("error.position.field", where=where, what=what)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _seat(v: Any, where: str) -> int:
    if not _is_int(v) or not 0 <= v <= 3:
        raise _bad(where, msg("error.not_seat_0_3", v=repr(v)))
    return int(v)


def _str_list(v: Any, where: str) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise _bad(where, msg("error.must_list_strings"))
    return tuple(v)


def _obj(v: Any, where: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise _bad(where, msg("error.must_object"))
    return v


def _seat_map(v: Any, where: str) -> tuple[tuple[str, int], ...]:
    return tuple((k, _seat(x, f"{where}[{k!r}]")) for k, x in _obj(v, where).items())


def _seats_map(v: Any, where: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
    out = []
    for k, x in _obj(v, where).items():
        if not isinstance(x, list):
            raise _bad(f"{where}[{k!r}]", msg("error.must_list_seats"))
        seats = tuple(_seat(s, f"{where}[{k!r}]") for s in x)
        if len(set(seats)) != len(seats):
            raise _bad(f"{where}[{k!r}]", msg("error.seat_appears_twice"))
        out.append((k, seats))
    return tuple(out)


def _parse(data: Any) -> Position:
    d = _obj(data, "top level")
    if d.get("format") != FORMAT:
        raise _bad("'format'", msg("error.must_got", format=repr(FORMAT), value=repr(d.get('format'))))
    if d.get("version") != FORMAT_VERSION:
        raise _bad("'version'", msg("error.unsupported_version_engine_reads", value=repr(d.get('version')),
                                    supported=FORMAT_VERSION))
    known = {"format", "version", "board", "players", "variants", "tiles", "castles", "district_last",
             "cathedrals", "tower_tokens", "tower_visits", "display", "fulfilled", "marks", "scores",
             "breakdown", "deck_count", "secrets"}
    for k in d:
        if k not in known:
            raise _bad(f"{k!r}", msg("error.unknown_field"))
    board = d.get("board")
    if not isinstance(board, str) or not board:
        raise _bad("'board'", msg("error.must_board_id"))
    n = d.get("players")
    if not _is_int(n) or n not in (2, 3, 4):
        raise _bad("'players'", msg("error.must_2_3_or_4", n=repr(n)))
    tiles = []
    raw = d.get("tiles", [])
    if not isinstance(raw, list):
        raise _bad("'tiles'", msg("error.must_list"))
    for i, t in enumerate(raw):
        where = f"'tiles'[{i}]"
        t = _obj(t, where)
        hx = t.get("hex")
        if not isinstance(hx, str) or not hx:
            raise _bad(where, msg("error.hex_must_hex_label_such"))
        where = f"'tiles'[{i}] (hex {hx})"
        if t.get("neutral") is True:
            if set(t) != {"hex", "neutral"}:
                raise _bad(where, msg("error.neutral_tile_has_no_seat"))
            tiles.append(PlacedTile(hx, None, None))
            continue
        if set(t) - {"hex", "seat", "tile"}:
            raise _bad(where, msg("error.unknown_keys", value=sorted(set(t) - {'hex', 'seat', 'tile'})))
        code = t.get("tile")
        if code not in TILE_CODES:
            raise _bad(where, msg("error.tile_must_one_got", value=', '.join(TILE_CODES), code=repr(code)))
        tiles.append(PlacedTile(hx, _seat(t.get("seat"), where), code))
    marks_raw = d.get("marks", [])
    if not isinstance(marks_raw, list):
        raise _bad("'marks'", msg("error.must_list_with_one_list"))
    scores = d.get("scores", [])
    if not isinstance(scores, list) or not all(_is_int(x) for x in scores):
        raise _bad("'scores'", msg("error.must_list_integers"))
    bd_raw = d.get("breakdown", [])
    if not isinstance(bd_raw, list):
        raise _bad("'breakdown'", msg("error.must_list_with_one_object"))
    breakdown = []
    for q, bd in enumerate(bd_raw):
        items = []
        for k, v in _obj(bd, f"'breakdown'[{q}]").items():
            if not _is_int(v):
                raise _bad(f"'breakdown'[{q}][{k!r}]", msg("error.must_integer"))
            items.append((k, int(v)))
        breakdown.append(tuple(items))
    deck = d.get("deck_count")
    if deck is not None and (not _is_int(deck) or deck < 0):
        raise _bad("'deck_count'", msg("error.must_count_0_or_null"))
    sec_raw = d.get("secrets")
    secrets: tuple[tuple[str, ...], ...] | None = None
    if sec_raw is not None:
        if not isinstance(sec_raw, list):
            raise _bad("'secrets'", msg("error.must_null_or_one_list"))
        secrets = tuple(_str_list(s, f"'secrets'[{q}]") for q, s in enumerate(sec_raw))
    variants = _str_list(d.get("variants", []), "'variants'")
    tokens = _obj(d.get("tower_tokens", {}), "'tower_tokens'")
    for k, v in tokens.items():
        if not isinstance(v, str):
            raise _bad(f"'tower_tokens'[{k!r}]", msg("error.must_token_id"))
    return Position(
        board=board,
        players=int(n),
        variants=variants,
        tiles=tuple(tiles),
        castles=_seat_map(d.get("castles", {}), "'castles'"),
        district_last=_seat_map(d.get("district_last", {}), "'district_last'"),
        cathedrals=_seats_map(d.get("cathedrals", {}), "'cathedrals'"),
        tower_tokens=tuple(tokens.items()),
        tower_visits=_seats_map(d.get("tower_visits", {}), "'tower_visits'"),
        display=_str_list(d.get("display", []), "'display'"),
        fulfilled=_seats_map(d.get("fulfilled", {}), "'fulfilled'"),
        marks=tuple(_str_list(m, f"'marks'[{q}]") for q, m in enumerate(marks_raw)),
        scores=tuple(int(x) for x in scores),
        breakdown=tuple(breakdown),
        deck_count=None if deck is None else int(deck),
        secrets=secrets,
    )


# -------------------------------------------------------------- validation


def _struct_name(s: Structure, *, at: bool = True) -> dict[str, Any]:
    """A structure as messages name it (a message value): kind, name and (with ``at``) its hex."""
    name = msg("error.struct", kind=msg(f"structure.{s.kind}"), name=dict(s.name))
    return msg("error.struct.at", label=s.label, name=name) if at else name


def _check(game: Game, pos: Position) -> None:
    """Everything that can be checked on the facts alone (before a state is built)."""
    b = game.board
    n = game.players
    ireland = b.is_ireland
    if pos.board != b.id:
        raise PositionError("error.position_board_game", board=repr(pos.board), id=repr(b.id))
    if pos.players != n:
        raise PositionError("error.players_game_has", players=pos.players, n=n)
    if set(pos.variants) != set(game.variants):
        raise PositionError(
            "error.variants_differ_from_game_s", value=list(pos.variants), value_a=sorted(game.variants))

    def seat_ok(q: int, where: dict[str, Any]) -> None:
        if not 0 <= q < n:
            raise PositionError("error.not_seat_player_game", q=q, n=n, where=where)

    structs = {s.label: s for s in (*b.castles, *b.cathedrals, *b.towers)}
    seen: set[int] = set()
    owned: list[Counter[int]] = [Counter() for _ in range(n)]
    full = Counter(starting_tiles(n)[0])
    for t in pos.tiles:
        label = t.hex.strip().upper()
        h = b.by_label.get(label)
        if h is None:
            if label in structs:
                where = _struct_name(structs[label], at=False)
                raise PositionError("error.hex_not_tile_space_2", hex=t.hex, where=where)
            raise PositionError("error.hex_does_not_exist_board_2", hex=t.hex)
        if h in seen:
            raise PositionError("error.hex_holds_two_tiles", hex=t.hex)
        seen.add(h)
        sp = b.spaces[h]
        if t.seat is None:
            if n != 2:
                raise PositionError("error.hex_neutral_tiles_are_used", hex=t.hex)
            if not sp.blocker:
                raise PositionError("error.hex_neutral_tile_lies_only", hex=t.hex)
            continue
        seat_ok(t.seat, msg("error.hex_2", hex=t.hex))
        if t.tile not in TILE_CODES:
            raise PositionError("error.hex_unknown_tile", hex=t.hex, tile=repr(t.tile))
        k = TILE_CODES.index(t.tile)
        if k >= 2 and sp.kind != SETTLEMENT:
            raise PositionError("error.hex_not_settlement_space", hex=t.hex,
                                kind=msg(f"space.kind.a.{SPACE_KINDS[sp.kind]}"))
        if k < 2 and sp.kind == SETTLEMENT:
            raise PositionError("error.hex_settlement_space_farm_cannot", hex=t.hex)
        if n == 2 and sp.blocker:
            raise PositionError("error.hex_blocker_with_2_players", hex=t.hex)
        owned[t.seat][k] += 1
        if owned[t.seat][k] > full[k]:
            rule = "S-2" if n == 4 else "S-1"
            raise PositionError(
                "error.hex_seat_owns_only_tiles", hex=t.hex, seat=t.seat, full=full[k], n=n, rule=rule,
                tile=msg(f"tile.name.{TILE_CODES[k]}"))
    if n == 2:
        for h in b.blockers:
            if h not in seen:
                lb = b.spaces[h].label
                raise PositionError("error.hex_blocker_with_2_players_2", lb=lb)

    def known(ids: list[str], what: dict[str, Any], given: tuple[str, ...]) -> None:
        s: set[str] = set()
        for x in given:
            if x not in ids:
                raise PositionError("error.position.unknown", x=repr(x), what=what)
            if x in s:
                raise PositionError("error.listed_twice", x=repr(x), what=what)
            s.add(x)

    known([c.id for c in b.castles], msg("error.castle"), tuple(k for k, _ in pos.castles))
    for cid, q in pos.castles:
        seat_ok(q, _struct_name(b.castle(cid)))
    known([d.id for d in b.districts], msg("error.district"), tuple(k for k, _ in pos.district_last))
    for did, q in pos.district_last:
        seat_ok(q, msg("error.district_2", did=did))
    known([c.id for c in b.cathedrals], msg("error.cathedral"), tuple(k for k, _ in pos.cathedrals))
    known([t.id for t in b.towers], msg("error.tower"), tuple(k for k, _ in pos.tower_visits))
    for _, seats in (*pos.cathedrals, *pos.tower_visits):
        for q in seats:
            seat_ok(q, msg("error.position"))
    card_ids = [c.id for c in game.cards]
    if ireland:
        known([t.id for t in b.towers], msg("error.tower"), tuple(k for k, _ in pos.tower_tokens))
        if len(pos.tower_tokens) != len(b.towers):
            raise PositionError("error.every_one_towers_needs_its", n_towers=len(b.towers))
        known([t.id for t in game.tokens], msg("error.tower_token"),
              tuple(v for _, v in pos.tower_tokens))
        known(card_ids, msg("error.mission"), pos.display)
        if len(pos.display) != DISPLAY_SIZE:
            raise PositionError("error.position.display_size", size=DISPLAY_SIZE, n=len(pos.display))
    elif pos.tower_tokens or pos.display or any(pos.marks) or pos.fulfilled:
        raise PositionError("error.tower_tokens_public_missions_x2")
    known(list(pos.display), msg("error.public_mission_display"),
          tuple(k for k, _ in pos.fulfilled))
    for _, seats in pos.fulfilled:
        for q in seats:
            seat_ok(q, msg("error.fulfilled"))
    if len(pos.marks) != n:
        raise PositionError("error.marks_needs_one_list_per", n=n)
    tok_kind = {t.id: t.kind for t in game.tokens}
    tok_at = dict(pos.tower_tokens)
    visits = dict(pos.tower_visits)
    for q, ms in enumerate(pos.marks):
        known(list(pos.display), msg("error.public_mission_marked_by_seat", q=q), ms)
        doubles = sum(1 for tid, seats in visits.items() if q in seats and tok_kind[tok_at[tid]] == "double")
        if len(ms) > doubles:
            raise PositionError("error.seat_x2_marks_but_only", q=q, n_ms=len(ms), doubles=doubles)
    cats = IRELAND_CATEGORIES if ireland else SCOTLAND_CATEGORIES
    if len(pos.scores) != n:
        raise PositionError("error.scores_needs_one_score_per", n=n)
    if pos.breakdown and len(pos.breakdown) != n:
        raise PositionError("error.breakdown_needs_one_object_per", n=n)
    for q in range(n):
        bd = pos.breakdown[q] if pos.breakdown else ()
        for name, v in bd:
            if name not in cats:
                raise PositionError("error.seat_unknown_score_category_known", q=q, name=repr(name),
                                    value=', '.join(cats))
            if v < 0:
                raise PositionError("error.seat_negative_points_for", q=q, name=repr(name))
        if len({name for name, _ in bd}) != len(bd):
            raise PositionError("error.seat_score_category_appears_twice", q=q)
        total = sum(v for _, v in bd)
        if total != pos.scores[q]:
            raise PositionError("error.seat_breakdown_adds_up_score", q=q, total=total, scores=pos.scores[q])
    if pos.secrets is not None:
        if len(pos.secrets) != n:
            raise PositionError("error.secrets_needs_one_list_per", n=n)
        known(card_ids, msg("error.secret_mission"), tuple(c for s in pos.secrets for c in s))
        pieces = dict(pos.cathedrals)
        for q, s in enumerate(pos.secrets):
            for c in s:
                if c in pos.display:
                    raise PositionError("error.seat_mission_display_not_secret", q=q, c=c)
            if ireland:
                cap = sum(1 for tid, seats in visits.items()
                          if q in seats and tok_kind[tok_at[tid]] == "mission")
                rule = "I-9"
            else:
                cap = sum(1 for seats in pieces.values() if q in seats)
                rule = "K-1"
            if len(s) > cap:
                raise PositionError("error.seat_secret_missions_but_only", q=q, n_s=len(s), cap=cap,
                                    rule=rule)
    if pos.deck_count is not None:
        held = set(pos.display) | {c for s in pos.secrets or () for c in s}
        unseen = len(card_ids) - len(held)
        if not 0 <= pos.deck_count <= unseen:
            raise PositionError("error.deck_count_more_than_unseen", deck_count=pos.deck_count, unseen=unseen)


def _check_derived(st: State, pos: Position) -> None:
    """What needs the rebuilt tables: castles, districts, pieces, visits, public missions."""
    b = st.board
    n = st.n
    occ = st.occupancy.owner
    near_c, farms = st.castles.adjacent, st.castles.adjacent_farms
    for c in b.castles:
        hol = st.castles.holder[c.index]
        contenders = st.castle_contenders(c.index)
        if hol in contenders or (hol < 0 and not contenders):
            continue
        # Refused: the message names the count that rules the holder out.
        k = c.index * n
        where = _struct_name(c)
        near = [q for q in range(n) if near_c[k + q]]
        if hol < 0:
            raise PositionError("error.seat_has_tile_next_so", near=near[0], where=where)
        if not near_c[k + hol]:
            raise PositionError("error.seat_holds_without_tile_next", hol=hol, where=where)
        for q in near:
            if near_c[k + q] > near_c[k + hol]:
                raise PositionError(
                    "error.seat_has_more_tiles_next", q=q, hol=hol, where=where)
            if near_c[k + q] == near_c[k + hol] and farms[k + q] > farms[k + hol]:
                raise PositionError(
                    "error.seat_ties_holder_seat_with", q=q, hol=hol, where=where)
    given = dict(pos.district_last)
    for d in b.districts:
        labels = ", ".join(b.spaces[h].label for h in d.spaces)
        if d.id in given and given[d.id] not in st.district_seats(d.index):
            raise PositionError("error.district_hexes_seat_has_no", id=d.id, labels=labels, given=given[d.id])
        if d.id not in given and st.last_placer_matters(d.index):
            raise PositionError("error.district_hexes_tie_influence_depends", id=d.id, labels=labels)
    for structs, given_map, rule in ((b.cathedrals, dict(pos.cathedrals), "K-1"),
                                     (b.towers, dict(pos.tower_visits), "I-6")):
        for s in structs:
            where = _struct_name(s)
            adj = {occ[h] for h in s.spaces if 0 <= occ[h] < n}
            have = set(given_map.get(s.id, ()))
            for q in sorted(adj ^ have):
                if q in adj:
                    raise PositionError("error.seat_has_tile_next_but", q=q, rule=rule, where=where)
                raise PositionError(
                    "error.seat_has_piece_visit_without", q=q, rule=rule, where=where)
    cards = st.game.cards
    for m in st.cards.display:
        for q in range(n):
            has = bool(st.cards.fulfilled[m] >> q & 1)
            meets = st.meets_mission(m, q)
            if meets and not has:
                raise PositionError("error.public_mission_seat_meets_so", id=cards[m].id, q=q)
            # Only castles can be lost again: every other measure only grows.
            if has and not meets and not st.is_castle_mission(m):
                raise PositionError("error.public_mission_seat_listed_as", id=cards[m].id, q=q)


# ------------------------------------------------------- state from position


def tiles_state(game: Game, pos: Position) -> State:
    """A state holding the tiles of ``pos``, every table derived from them
    (:meth:`State.from_facts`): what the tiles alone decide, as the engine answers it —
    cathedral pieces and tower visits (``visited``, K-1/I-6), who may hold each castle
    (:meth:`State.castle_contenders`, C-1…C-3), district influence and whether a tie there
    depends on the last placer (:meth:`State.last_placer_matters`, T-4/T-7, variant-aware).

    Not validated: tiles on no hex of the board or of no seat of the game are left out, for
    :meth:`Position.validate` to name; castle holders, last placers, fulfilments, marks and
    scores are not read. The position's cards (display, tower tokens, secrets, deck count)
    make the deck when they name cards of the game, so that the caller may load the whole
    position into this state later (``checked_state(into=...)``: one state per request)."""
    b = game.board
    n = game.players
    tiles = tuple(t for t in pos.tiles
                  if t.hex.strip().upper() in b.by_label
                  and (t.seat is None or (0 <= t.seat < n and t.tile in TILE_CODES)))
    bare = Position(board=pos.board, players=n, variants=pos.variants, tiles=tiles)
    cards = {c.id for c in game.cards}
    tokens = {t.id for t in game.tokens}
    towers = {t.id for t in b.towers}
    if (set(pos.display) <= cards and {c for s in pos.secrets or () for c in s} <= cards
            and {k for k, _ in pos.tower_tokens} == (towers if pos.tower_tokens else set())
            and {v for _, v in pos.tower_tokens} <= tokens):
        bare = replace(bare, display=pos.display, tower_tokens=pos.tower_tokens,
                       deck_count=pos.deck_count, secrets=pos.secrets)
    return State.from_facts(game, bare)


def _bare_state(game: Game, pos: Position) -> State:
    """A state at ``pos`` between turns (see :meth:`State.from_facts`), not validated."""
    return State.from_facts(game, pos)


def _checked_state(game: Game, pos: Position, into: State | None = None) -> State:
    """Validate ``pos`` and build its state; ``into``: load the facts into that state instead
    of building another (the calculator's one state per request)."""
    _check(game, pos)
    if into is None:
        st = _bare_state(game, pos)
    else:
        st = into
        st.load_facts(pos)
    _check_derived(st, pos)
    return st


# ------------------------------------------------------------------ scoring


@dataclass(frozen=True)
class Preview:
    """What placing ``tile`` for ``seat`` on ``hex`` scores, explained by the engine's events."""

    seat: int
    tile: str
    hex: str
    points: tuple[int, ...]
    """Points paid to every seat (a completed district or a public mission can pay others)."""
    categories: tuple[dict[str, int], ...]
    """Per seat, the points by category."""
    extra_tiles: int
    """Extra tiles the placement earns (I-7)."""
    x2_markers: int
    """x2 markers the placement earns (I-8)."""
    events: tuple[Event, ...]
    """As a spectator sees them: a drawn mission card stays hidden."""
    after: Position


def preview(game: Game, position: Position, seat: int, tile: str, hex_label: str) -> Preview:
    """Points and events of placing ``tile`` for ``seat`` on hex ``hex_label`` (P-5).

    Refuses (PositionError, or IllegalActionError naming the rule) a tile the seat has
    no more of, a hex that does not exist, and a hex the tile may not go on now.
    """
    from rebirth.engine.actions import IllegalActionError

    st = _checked_state(game, position)
    n = st.n
    if not _is_int(seat) or not 0 <= seat < n:
        raise PositionError("error.not_seat_0", seat=repr(seat), n=n - 1)
    code = str(tile).strip().upper()
    if code not in TILE_CODES:
        raise PositionError("error.unknown_tile_expected_one", tile=repr(tile), value=', '.join(TILE_CODES))
    t = TILE_CODES.index(code)
    if t not in st.tiles.supply[seat]:
        raise PositionError("error.seat_has_no_tile_left", seat=seat, tile=msg(f"tile.name.{TILE_CODES[t]}"))
    b = st.board
    label = str(hex_label).strip().upper()
    h = b.by_label.get(label)
    if h is None:
        structs = {s.label: s for s in (*b.castles, *b.cathedrals, *b.towers)}
        if label in structs:
            where = _struct_name(structs[label], at=False)
            raise IllegalActionError("error.hex_not_tile_space", label=label, where=where)
        raise IllegalActionError("error.hex_does_not_exist_board", label=label)
    sc = st.score_placement(h, tile=t, seat=seat)
    return Preview(
        seat=seat,
        tile=code,
        hex=label,
        points=sc.points,
        categories=sc.categories,
        extra_tiles=sc.extra_tiles,
        x2_markers=sc.x2_markers,
        events=tuple(e.for_seat(None) for e in sc.events),
        # The card a cathedral or tower would draw is unknown: the secrets stay as they were.
        after=replace(Position.from_state(sc.after), secrets=position.secrets),
    )


@dataclass(frozen=True)
class CastleStanding:
    """One castle: holder, tiles and farms next to it per seat (C-1…C-4), its C-5 event if held."""

    castle: str
    hex: str
    holder: int
    adjacent: tuple[int, ...]
    farms: tuple[int, ...]
    events: tuple[Event, ...]


def castle_control(game: Game, position: Position, *,
                   state: State | None = None) -> tuple[CastleStanding, ...]:
    """Every castle's holder and adjacency counts, with the C-5 points it would pay at the end.
    ``state``: the position's :meth:`Position.checked_state`, if the caller has it."""
    st = _checked_state(game, position) if state is None else state.clone()
    n = st.n
    final = st.end_now()
    out = []
    for c in st.board.castles:
        k = c.index * n
        out.append(CastleStanding(
            castle=c.id, hex=c.label, holder=st.castles.holder[c.index],
            adjacent=tuple(st.castles.adjacent[k:k + n]), farms=tuple(st.castles.adjacent_farms[k:k + n]),
            events=tuple(e for e in final if e.kind == "castle_final" and e.data.get("castle") == c.id)))
    return tuple(out)


@dataclass(frozen=True)
class DistrictStanding:
    """One settlement district: influence per seat and the ranks as they stand (T-1…T-7)."""

    district: str
    hexes: tuple[str, ...]
    complete: bool
    influence: tuple[int, ...]
    order: tuple[int, ...]
    """Seats with influence in rank order; a tie is decided as the rules decide it (T-3, T-4)."""
    last_placer: int
    """The seat that placed last there (-1: none); it loses ties, or wins them with a variant."""
    tied: bool
    last_matters: bool
    """Whether the standing depends on the last placer (:meth:`State.last_placer_matters`)."""
    points: tuple[int, ...]
    """Complete: what it paid at completion. Incomplete: what it would pay at game end (T-7)."""
    events: tuple[Event, ...]


def settlement_standings(game: Game, position: Position, *,
                         state: State | None = None) -> tuple[DistrictStanding, ...]:
    """Every district of 2+ spaces with settlements: influence, ranks, and points (paid at
    completion, or what T-7 would pay if the game ended now). ``state``: the position's
    :meth:`Position.checked_state`, if the caller has it (it is not changed)."""
    base = _checked_state(game, position) if state is None else state
    b = base.board
    n = base.n
    out = []
    for d in b.districts:
        # A 1-space district has no ranks: it paid its influence when the tile was placed (T-2).
        if d.size == 1 or not base.districts.filled[d.index]:
            continue
        infl = tuple(base.districts.influence[d.index * n:(d.index + 1) * n])
        present = [q for q in range(n) if infl[q] > 0]
        complete = base.districts.filled[d.index] == d.size
        rank_order(present, base.districts.influence, d.index * n, base.districts.last_placer[d.index], n,
                   d.size == 2 and "medium_completer_wins" in game.variants)
        points, events = base.district_payout(d.index)
        vals = [infl[q] for q in present]
        out.append(DistrictStanding(
            district=d.id, hexes=tuple(b.spaces[h].label for h in d.spaces), complete=complete,
            influence=infl, order=tuple(present), last_placer=base.districts.last_placer[d.index],
            tied=len(set(vals)) < len(vals), last_matters=base.last_placer_matters(d.index),
            points=points,
            events=tuple(events)))
    return tuple(out)


@dataclass(frozen=True)
class EndScoring:
    """The end-of-game scoring "if the game ended now" (E-2…E-4)."""

    scores: tuple[int, ...]
    breakdown: tuple[dict[str, int], ...]
    winners: tuple[int, ...]
    events: tuple[Event, ...]
    missions_scored: bool = field(default=False)
    """False when the position has no secret cards: missions are then not scored."""


def end_scoring(game: Game, position: Position, *, state: State | None = None) -> EndScoring:
    """Score the position as if the game ended now: T-7, C-5, secret missions (when the
    position carries them), then the winners with the board's tiebreak (E-3, E-4).
    ``state``: the position's :meth:`Position.checked_state`, if the caller has it."""
    st = _checked_state(game, position) if state is None else state.clone()
    ev = st.end_now()
    return EndScoring(
        scores=tuple(st.score),
        breakdown=tuple(st.breakdown(q) for q in range(st.n)),
        winners=tuple(st.winners),
        events=tuple(ev),
        missions_scored=position.secrets is not None,
    )
