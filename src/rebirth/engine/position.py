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
from rebirth.engine.events import Event
from rebirth.engine.i18n import Text
from rebirth.engine.state import (
    IRELAND_CATEGORIES,
    SCOTLAND_CATEGORIES,
    State,
    rank_order,
)
from rebirth.engine.tiles import NEUTRAL, TILE_CODES, TILE_NAMES_DE, TILE_NAMES_EN, starting_tiles, tile_code

if TYPE_CHECKING:
    from rebirth.engine.game import Game
    from rebirth.engine.views import View

FORMAT = "rebirth-position"
FORMAT_VERSION = 1


class PositionError(ValueError):
    """A position that is malformed or that the rules make impossible; ``text`` in English and German."""

    def __init__(self, en: str, de: str) -> None:
        super().__init__(en)
        self.text: Text = {"en": en, "de": de}

    def message(self, lang: str) -> str:
        """The message in ``lang``."""
        return self.text["de"] if lang == "de" else self.text["en"]


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
                "the game is over: its scores already include end scoring",
                "die Partie ist vorbei: ihre Punkte enthalten schon die Schlusswertung")
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
                "the game is over: its scores already include end scoring",
                "die Partie ist vorbei: ihre Punkte enthalten schon die Schlusswertung")
        from rebirth.engine.board import resolve_board

        b = resolve_board(view.board) if board is None else board
        n = view.players
        if b.id != view.board or len(view.spaces) != len(b.spaces):
            raise PositionError(f"the view does not fit board {view.board!r}",
                                f"die Ansicht passt nicht zum Spielplan {view.board!r}")
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
            raise PositionError(f"to_move: {to_move} is not a seat of 0..{st.n - 1}",
                                f"to_move: {to_move} ist kein Sitz von 0..{st.n - 1}")
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


def _bad(where: str, en: str, de: str) -> PositionError:
    return PositionError(f"position: {where}: {en}", f"Stellung: {where}: {de}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _seat(v: Any, where: str) -> int:
    if not _is_int(v) or not 0 <= v <= 3:
        raise _bad(where, f"{v!r} is not a seat (0..3)", f"{v!r} ist kein Sitz (0..3)")
    return int(v)


def _str_list(v: Any, where: str) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise _bad(where, "must be a list of strings", "muss eine Liste von Texten sein")
    return tuple(v)


def _obj(v: Any, where: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise _bad(where, "must be an object", "muss ein Objekt sein")
    return v


def _seat_map(v: Any, where: str) -> tuple[tuple[str, int], ...]:
    return tuple((k, _seat(x, f"{where}[{k!r}]")) for k, x in _obj(v, where).items())


def _seats_map(v: Any, where: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
    out = []
    for k, x in _obj(v, where).items():
        if not isinstance(x, list):
            raise _bad(f"{where}[{k!r}]", "must be a list of seats", "muss eine Liste von Sitzen sein")
        seats = tuple(_seat(s, f"{where}[{k!r}]") for s in x)
        if len(set(seats)) != len(seats):
            raise _bad(f"{where}[{k!r}]", "a seat appears twice", "ein Sitz steht doppelt")
        out.append((k, seats))
    return tuple(out)


def _parse(data: Any) -> Position:
    d = _obj(data, "top level")
    if d.get("format") != FORMAT:
        raise _bad("'format'", f"must be {FORMAT!r}, got {d.get('format')!r}",
                   f"muss {FORMAT!r} sein, nicht {d.get('format')!r}")
    if d.get("version") != FORMAT_VERSION:
        raise _bad("'version'", f"unsupported version {d.get('version')!r} (this engine reads "
                   f"{FORMAT_VERSION})", f"Version {d.get('version')!r} wird nicht unterstützt "
                   f"(diese Engine liest {FORMAT_VERSION})")
    known = {"format", "version", "board", "players", "variants", "tiles", "castles", "district_last",
             "cathedrals", "tower_tokens", "tower_visits", "display", "fulfilled", "marks", "scores",
             "breakdown", "deck_count", "secrets"}
    for k in d:
        if k not in known:
            raise _bad(f"{k!r}", "unknown field", "unbekanntes Feld")
    board = d.get("board")
    if not isinstance(board, str) or not board:
        raise _bad("'board'", "must be a board id", "muss eine Spielplan-Kennung sein")
    n = d.get("players")
    if not _is_int(n) or n not in (2, 3, 4):
        raise _bad("'players'", f"must be 2, 3 or 4, got {n!r}", f"muss 2, 3 oder 4 sein, nicht {n!r}")
    tiles = []
    raw = d.get("tiles", [])
    if not isinstance(raw, list):
        raise _bad("'tiles'", "must be a list", "muss eine Liste sein")
    for i, t in enumerate(raw):
        where = f"'tiles'[{i}]"
        t = _obj(t, where)
        hx = t.get("hex")
        if not isinstance(hx, str) or not hx:
            raise _bad(where, "'hex' must be a hex label such as 'C4'",
                       "'hex' muss eine Feldbezeichnung wie 'C4' sein")
        where = f"'tiles'[{i}] (hex {hx})"
        if t.get("neutral") is True:
            if set(t) != {"hex", "neutral"}:
                raise _bad(where, "a neutral tile has no seat or tile kind",
                           "ein neutrales Plättchen hat keinen Sitz und keine Art")
            tiles.append(PlacedTile(hx, None, None))
            continue
        if set(t) - {"hex", "seat", "tile"}:
            raise _bad(where, f"unknown keys {sorted(set(t) - {'hex', 'seat', 'tile'})}",
                       f"unbekannte Schlüssel {sorted(set(t) - {'hex', 'seat', 'tile'})}")
        code = t.get("tile")
        if code not in TILE_CODES:
            raise _bad(where, f"'tile' must be one of {', '.join(TILE_CODES)}, got {code!r}",
                       f"'tile' muss eines von {', '.join(TILE_CODES)} sein, nicht {code!r}")
        tiles.append(PlacedTile(hx, _seat(t.get("seat"), where), code))
    marks_raw = d.get("marks", [])
    if not isinstance(marks_raw, list):
        raise _bad("'marks'", "must be a list with one list per seat", "muss je Sitz eine Liste haben")
    scores = d.get("scores", [])
    if not isinstance(scores, list) or not all(_is_int(x) for x in scores):
        raise _bad("'scores'", "must be a list of integers", "muss eine Liste ganzer Zahlen sein")
    bd_raw = d.get("breakdown", [])
    if not isinstance(bd_raw, list):
        raise _bad("'breakdown'", "must be a list with one object per seat",
                   "muss je Sitz ein Objekt haben")
    breakdown = []
    for q, bd in enumerate(bd_raw):
        items = []
        for k, v in _obj(bd, f"'breakdown'[{q}]").items():
            if not _is_int(v):
                raise _bad(f"'breakdown'[{q}][{k!r}]", "must be an integer", "muss eine ganze Zahl sein")
            items.append((k, int(v)))
        breakdown.append(tuple(items))
    deck = d.get("deck_count")
    if deck is not None and (not _is_int(deck) or deck < 0):
        raise _bad("'deck_count'", "must be a count >= 0 or null", "muss eine Anzahl >= 0 oder null sein")
    sec_raw = d.get("secrets")
    secrets: tuple[tuple[str, ...], ...] | None = None
    if sec_raw is not None:
        if not isinstance(sec_raw, list):
            raise _bad("'secrets'", "must be null or one list per seat",
                       "muss null oder je Sitz eine Liste sein")
        secrets = tuple(_str_list(s, f"'secrets'[{q}]") for q, s in enumerate(sec_raw))
    variants = _str_list(d.get("variants", []), "'variants'")
    tokens = _obj(d.get("tower_tokens", {}), "'tower_tokens'")
    for k, v in tokens.items():
        if not isinstance(v, str):
            raise _bad(f"'tower_tokens'[{k!r}]", "must be a token id", "muss eine Plättchen-Kennung sein")
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


_KIND_DE = {"castle": "Burg", "cathedral": "Kathedrale", "tower": "Rundturm"}


def _struct_name(s: Structure, *, at: bool = True) -> tuple[str, str]:
    """A structure as messages name it: kind, name and (with ``at``) its hex."""
    en = f"{s.kind} {s.name['en']}"
    de = f"{_KIND_DE.get(s.kind, s.kind)} {s.name['de']}"
    return (f"{en} (hex {s.label})", f"{de} (Feld {s.label})") if at else (en, de)


def _check(game: Game, pos: Position) -> None:
    """Everything that can be checked on the facts alone (before a state is built)."""
    b = game.board
    n = game.players
    ireland = b.is_ireland
    if pos.board != b.id:
        raise PositionError(f"position: the position is of board {pos.board!r}, the game of {b.id!r}",
                            f"Stellung: die Stellung ist für {pos.board!r}, die Partie für {b.id!r}")
    if pos.players != n:
        raise PositionError(f"position: {pos.players} players, the game has {n}",
                            f"Stellung: {pos.players} Spieler, die Partie hat {n}")
    if set(pos.variants) != set(game.variants):
        raise PositionError(
            f"position: variants {list(pos.variants)} differ from the game's {sorted(game.variants)}",
            f"Stellung: Varianten {list(pos.variants)} weichen von {sorted(game.variants)} ab")

    def seat_ok(q: int, where_en: str, where_de: str) -> None:
        if not 0 <= q < n:
            raise PositionError(f"{where_en}: {q} is not a seat of this {n}-player game",
                                f"{where_de}: {q} ist kein Sitz dieser Partie mit {n} Spielern")

    structs = {s.label: s for s in (*b.castles, *b.cathedrals, *b.towers)}
    seen: set[int] = set()
    owned: list[Counter[int]] = [Counter() for _ in range(n)]
    full = Counter(starting_tiles(n)[0])
    for t in pos.tiles:
        label = t.hex.strip().upper()
        h = b.by_label.get(label)
        if h is None:
            if label in structs:
                en, de = _struct_name(structs[label], at=False)
                raise PositionError(f"hex {t.hex} is the {en}, not a tile space",
                                    f"Feld {t.hex} ist {de}, kein Plättchenfeld")
            raise PositionError(f"hex {t.hex} does not exist on this board",
                                f"Feld {t.hex} gibt es auf diesem Spielplan nicht")
        if h in seen:
            raise PositionError(f"hex {t.hex} holds two tiles", f"auf Feld {t.hex} liegen zwei Plättchen")
        seen.add(h)
        sp = b.spaces[h]
        if t.seat is None:
            if n != 2:
                raise PositionError(f"hex {t.hex}: neutral tiles are used only with 2 players (S-6)",
                                    f"Feld {t.hex}: neutrale Plättchen gibt es nur zu zweit (S-6)")
            if not sp.blocker:
                raise PositionError(f"hex {t.hex}: a neutral tile lies only on a blocker hex (S-6)",
                                    f"Feld {t.hex}: ein neutrales Plättchen liegt nur auf einem "
                                    "Sperrfeld (S-6)")
            continue
        seat_ok(t.seat, f"hex {t.hex}", f"Feld {t.hex}")
        if t.tile not in TILE_CODES:
            raise PositionError(f"hex {t.hex}: unknown tile {t.tile!r}",
                                f"Feld {t.hex}: unbekanntes Plättchen {t.tile!r}")
        k = TILE_CODES.index(t.tile)
        if k >= 2 and sp.kind != SETTLEMENT:
            raise PositionError(
                f"hex {t.hex} is a {SPACE_KINDS[sp.kind]} space: a settlement tile cannot lie there (P-4)",
                f"Feld {t.hex} ist kein Siedlungsfeld: eine Siedlung kann dort nicht liegen (P-4)")
        if k < 2 and sp.kind == SETTLEMENT:
            raise PositionError(f"hex {t.hex} is a settlement space: a farm cannot lie there (P-3)",
                                f"Feld {t.hex} ist ein Siedlungsfeld: eine Farm kann dort nicht liegen (P-3)")
        if n == 2 and sp.blocker:
            raise PositionError(f"hex {t.hex} is a blocker: with 2 players a neutral tile lies there (S-6)",
                                f"Feld {t.hex} ist ein Sperrfeld: zu zweit liegt dort ein neutrales "
                                "Plättchen (S-6)")
        owned[t.seat][k] += 1
        if owned[t.seat][k] > full[k]:
            rule = "S-2" if n == 4 else "S-1"
            raise PositionError(
                f"hex {t.hex}: seat {t.seat} owns only {full[k]} {TILE_NAMES_EN[k]} tiles with {n} "
                f"players ({rule})",
                f"Feld {t.hex}: Sitz {t.seat} hat zu {n} nur {full[k]} Plättchen {TILE_NAMES_DE[k]} ({rule})")
    if n == 2:
        for h in b.blockers:
            if h not in seen:
                lb = b.spaces[h].label
                raise PositionError(f"hex {lb} is a blocker: with 2 players it holds a neutral tile (S-6)",
                                    f"Feld {lb} ist ein Sperrfeld: zu zweit liegt dort ein neutrales "
                                    "Plättchen (S-6)")

    def known(ids: list[str], what_en: str, what_de: str, given: tuple[str, ...]) -> None:
        s: set[str] = set()
        for x in given:
            if x not in ids:
                raise PositionError(f"position: unknown {what_en} {x!r}",
                                    f"Stellung: unbekannte {what_de} {x!r}")
            if x in s:
                raise PositionError(f"position: {what_en} {x!r} is listed twice",
                                    f"Stellung: {what_de} {x!r} steht doppelt")
            s.add(x)

    known([c.id for c in b.castles], "castle", "Burg", tuple(k for k, _ in pos.castles))
    for cid, q in pos.castles:
        en, de = _struct_name(b.castle(cid))
        seat_ok(q, en, de)
    known([d.id for d in b.districts], "district", "Siedlungsgebiet", tuple(k for k, _ in pos.district_last))
    for did, q in pos.district_last:
        seat_ok(q, f"district {did}", f"Gebiet {did}")
    known([c.id for c in b.cathedrals], "cathedral", "Kathedrale", tuple(k for k, _ in pos.cathedrals))
    known([t.id for t in b.towers], "tower", "Rundturm", tuple(k for k, _ in pos.tower_visits))
    for _, seats in (*pos.cathedrals, *pos.tower_visits):
        for q in seats:
            seat_ok(q, "position", "Stellung")
    card_ids = [c.id for c in game.cards]
    if ireland:
        known([t.id for t in b.towers], "tower", "Rundturm", tuple(k for k, _ in pos.tower_tokens))
        if len(pos.tower_tokens) != len(b.towers):
            raise PositionError(f"position: every one of the {len(b.towers)} towers needs its token (S-8)",
                                f"Stellung: jeder der {len(b.towers)} Rundtürme braucht sein Plättchen (S-8)")
        known([t.id for t in game.tokens], "tower token", "Turmplättchen",
              tuple(v for _, v in pos.tower_tokens))
        known(card_ids, "mission", "Mission", pos.display)
    elif pos.tower_tokens or pos.display or any(pos.marks) or pos.fulfilled:
        raise PositionError("position: tower tokens, public missions and x2 marks exist only on Ireland",
                            "Stellung: Turmplättchen, öffentliche Missionen und x2-Marker gibt es nur in "
                            "Irland")
    known(list(pos.display), "public mission on display", "ausliegende Mission",
          tuple(k for k, _ in pos.fulfilled))
    for _, seats in pos.fulfilled:
        for q in seats:
            seat_ok(q, "fulfilled", "erfüllt")
    if len(pos.marks) != n:
        raise PositionError(f"position: 'marks' needs one list per seat ({n})",
                            f"Stellung: 'marks' braucht je Sitz eine Liste ({n})")
    tok_kind = {t.id: t.kind for t in game.tokens}
    tok_at = dict(pos.tower_tokens)
    visits = dict(pos.tower_visits)
    for q, ms in enumerate(pos.marks):
        known(list(pos.display), f"public mission marked by seat {q}", f"von Sitz {q} markierte Mission", ms)
        doubles = sum(1 for tid, seats in visits.items() if q in seats and tok_kind[tok_at[tid]] == "double")
        if len(ms) > doubles:
            raise PositionError(f"seat {q}: {len(ms)} x2 marks but only {doubles} x2 tower tokens "
                                "taken (I-8)",
                                f"Sitz {q}: {len(ms)} x2-Marker, aber nur {doubles} x2-Turmplättchen (I-8)")
    cats = IRELAND_CATEGORIES if ireland else SCOTLAND_CATEGORIES
    if len(pos.scores) != n:
        raise PositionError(f"position: 'scores' needs one score per seat ({n})",
                            f"Stellung: 'scores' braucht je Sitz eine Punktzahl ({n})")
    if pos.breakdown and len(pos.breakdown) != n:
        raise PositionError(f"position: 'breakdown' needs one object per seat ({n})",
                            f"Stellung: 'breakdown' braucht je Sitz ein Objekt ({n})")
    for q in range(n):
        bd = pos.breakdown[q] if pos.breakdown else ()
        for name, v in bd:
            if name not in cats:
                raise PositionError(f"seat {q}: unknown score category {name!r} (known: {', '.join(cats)})",
                                    f"Sitz {q}: unbekannte Wertungsart {name!r} (bekannt: {', '.join(cats)})")
            if v < 0:
                raise PositionError(f"seat {q}: negative points for {name!r}",
                                    f"Sitz {q}: negative Punkte für {name!r}")
        if len({name for name, _ in bd}) != len(bd):
            raise PositionError(f"seat {q}: a score category appears twice",
                                f"Sitz {q}: eine Wertungsart steht doppelt")
        total = sum(v for _, v in bd)
        if total != pos.scores[q]:
            raise PositionError(f"seat {q}: the breakdown adds up to {total}, the score is {pos.scores[q]}",
                                f"Sitz {q}: die Aufschlüsselung ergibt {total}, die Punktzahl ist "
                                f"{pos.scores[q]}")
    if pos.secrets is not None:
        if len(pos.secrets) != n:
            raise PositionError(f"position: 'secrets' needs one list per seat ({n})",
                                f"Stellung: 'secrets' braucht je Sitz eine Liste ({n})")
        known(card_ids, "secret mission", "geheime Mission", tuple(c for s in pos.secrets for c in s))
        pieces = dict(pos.cathedrals)
        for q, s in enumerate(pos.secrets):
            for c in s:
                if c in pos.display:
                    raise PositionError(f"seat {q}: mission {c} is on display, not secret",
                                        f"Sitz {q}: Mission {c} liegt offen aus, nicht geheim")
            if ireland:
                cap = sum(1 for tid, seats in visits.items()
                          if q in seats and tok_kind[tok_at[tid]] == "mission")
                rule = "I-9"
            else:
                cap = sum(1 for seats in pieces.values() if q in seats)
                rule = "K-1"
            if len(s) > cap:
                raise PositionError(f"seat {q}: {len(s)} secret missions but only {cap} drawn ({rule})",
                                    f"Sitz {q}: {len(s)} geheime Missionen, aber nur {cap} gezogen ({rule})")
    if pos.deck_count is not None:
        held = set(pos.display) | {c for s in pos.secrets or () for c in s}
        unseen = len(card_ids) - len(held)
        if not 0 <= pos.deck_count <= unseen:
            raise PositionError(f"position: deck_count {pos.deck_count} is more than the {unseen} "
                                "unseen cards",
                                f"Stellung: deck_count {pos.deck_count} ist mehr als die {unseen} "
                                "ungesehenen Karten")


def _check_derived(st: State, pos: Position) -> None:
    """What needs the rebuilt tables: castles, districts, pieces, visits, public missions."""
    b = st.board
    n = st.n
    occ = st.occupancy.owner
    near_c, farms = st.castles.adjacent, st.castles.adjacent_farms
    for c in b.castles:
        k = c.index * n
        hol = st.castles.holder[c.index]
        en, de = _struct_name(c)
        near = [q for q in range(n) if near_c[k + q]]
        if hol < 0:
            if near:
                raise PositionError(
                    f"{en}: seat {near[0]} has a tile next to it, so someone holds it (C-1)",
                    f"{de}: Sitz {near[0]} hat ein Plättchen daneben, also hält sie jemand (C-1)")
            continue
        if not near_c[k + hol]:
            raise PositionError(f"{en}: seat {hol} holds it without a tile next to it (C-1)",
                                f"{de}: Sitz {hol} hält sie ohne ein Plättchen daneben (C-1)")
        for q in near:
            if near_c[k + q] > near_c[k + hol]:
                raise PositionError(
                    f"{en}: seat {q} has more tiles next to it than the holder, seat {hol} (C-2)",
                    f"{de}: Sitz {q} hat mehr Plättchen daneben als Sitz {hol}, der sie hält (C-2)")
            if near_c[k + q] == near_c[k + hol] and farms[k + q] > farms[k + hol]:
                raise PositionError(
                    f"{en}: seat {q} ties the holder, seat {hol}, with more farms next to it (C-3)",
                    f"{de}: Sitz {q} liegt gleichauf mit Sitz {hol}, der sie hält, hat aber mehr Farmen "
                    "daneben (C-3)")
    given = dict(pos.district_last)
    for d in b.districts:
        labels = ", ".join(b.spaces[h].label for h in d.spaces)
        present = [q for q in range(n) if st.districts.influence[d.index * n + q]]
        if d.id in given and given[d.id] not in present:
            raise PositionError(f"district {d.id} (hexes {labels}): seat {given[d.id]} has no settlement "
                                "there, so it did not place last",
                                f"Gebiet {d.id} (Felder {labels}): Sitz {given[d.id]} hat dort keine "
                                "Siedlung, hat also nicht zuletzt gelegt")
        vals = [st.districts.influence[d.index * n + q] for q in present]
        if d.id not in given and len(set(vals)) < len(vals):
            raise PositionError(f"district {d.id} (hexes {labels}): a tie on influence depends on who placed "
                                "last there; give 'district_last' (T-3, T-7)",
                                f"Gebiet {d.id} (Felder {labels}): ein Einfluss-Gleichstand hängt davon ab, "
                                "wer dort zuletzt legte; 'district_last' angeben (T-3, T-7)")
    for structs, given_map, rule in ((b.cathedrals, dict(pos.cathedrals), "K-1"),
                                     (b.towers, dict(pos.tower_visits), "I-6")):
        for s in structs:
            en, de = _struct_name(s)
            adj = {occ[h] for h in s.spaces if 0 <= occ[h] < n}
            have = set(given_map.get(s.id, ()))
            for q in sorted(adj ^ have):
                if q in adj:
                    raise PositionError(f"{en}: seat {q} has a tile next to it but no piece/visit ({rule})",
                                        f"{de}: Sitz {q} hat ein Plättchen daneben, aber keine Figur/"
                                        f"keinen Besuch ({rule})")
                raise PositionError(
                    f"{en}: seat {q} has a piece/visit without a tile next to it ({rule})",
                    f"{de}: Sitz {q} hat eine Figur/einen Besuch ohne Plättchen daneben ({rule})")
    cards = st.game.cards
    for m in st.cards.display:
        for q in range(n):
            has = bool(st.cards.fulfilled[m] >> q & 1)
            meets = st.meets_mission(m, q)
            if meets and not has:
                raise PositionError(f"public mission {cards[m].id}: seat {q} meets it, so it has fulfilled "
                                    "it (I-10)",
                                    f"öffentliche Mission {cards[m].id}: Sitz {q} erfüllt sie, hat sie also "
                                    "schon erfüllt (I-10)")
            # Only castles can be lost again: every other measure only grows.
            if has and not meets and not st.is_castle_mission(m):
                raise PositionError(f"public mission {cards[m].id}: seat {q} is listed as having fulfilled "
                                    "it but does not meet it (I-10)",
                                    f"öffentliche Mission {cards[m].id}: Sitz {q} soll sie erfüllt haben, "
                                    "erfüllt sie aber nicht (I-10)")


# ------------------------------------------------------- state from position


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
        raise PositionError(f"{seat!r} is not a seat of 0..{n - 1}", f"{seat!r} ist kein Sitz von 0..{n - 1}")
    code = str(tile).strip().upper()
    if code not in TILE_CODES:
        raise PositionError(f"unknown tile {tile!r} (expected one of {', '.join(TILE_CODES)})",
                            f"unbekanntes Plättchen {tile!r} (erwartet: {', '.join(TILE_CODES)})")
    t = TILE_CODES.index(code)
    if t not in st.tiles.supply[seat]:
        raise PositionError(f"seat {seat} has no {TILE_NAMES_EN[t]} tile left (S-1, S-2)",
                            f"Sitz {seat} hat kein Plättchen {TILE_NAMES_DE[t]} mehr (S-1, S-2)")
    b = st.board
    label = str(hex_label).strip().upper()
    h = b.by_label.get(label)
    if h is None:
        structs = {s.label: s for s in (*b.castles, *b.cathedrals, *b.towers)}
        if label in structs:
            en, de = _struct_name(structs[label], at=False)
            raise IllegalActionError(f"hex {label} is the {en}, not a tile space",
                                     f"Feld {label} ist {de}, kein Plättchenfeld")
        raise IllegalActionError(f"hex {label} does not exist on this board",
                                 f"Feld {label} gibt es auf diesem Spielplan nicht")
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
            tied=len(set(vals)) < len(vals),
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
