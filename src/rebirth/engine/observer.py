"""Observations: a seat's :class:`~rebirth.engine.views.View` as a flat vector of floats.

An :class:`Observer` is built for one :class:`~rebirth.engine.game.Game` (OpenSpiel's
observer classes, kept apart from the state). :meth:`Observer.encode` reads a ``View``
and nothing else, so an agent fed its vectors cannot see another seat's hidden tiles,
missions or the deck order: the view never held them (``rebirth.engine.infoset``).

The vector is the concatenation of named pieces (:attr:`Observer.pieces`, documented
in ``docs/observations.md``, which ``python -m rebirth.engine.observer`` writes).
Seats are *relative*: slot 0 is always the observing seat, slot 1 the next seat in
seat order, and so on, so one policy can play every seat. A spectator (``seat=None``)
sees the table from seat 0 and has no private pieces.

Every value lies in ``[Observer.low, Observer.high]`` (per entry; 0..1 except scores).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from itertools import repeat
from operator import add

from rebirth.engine.game import DISPLAY_SIZE, Game
from rebirth.engine.state import CHANCE, TERMINAL
from rebirth.engine.tiles import NEUTRAL, TILE_CODES, starting_tiles
from rebirth.engine.views import PHASES, View

NUM_TILE_KINDS = len(TILE_CODES)
SCORE_SCALE = 100.0
"""Scores and score categories are divided by this."""
SCORE_HIGH = 10.0
"""Upper bound of a scaled score (1,000 points; real games end far below)."""
PENDING_CAP = 4
"""Pending extra tiles and x2 markers are divided by this and capped at 1."""


@dataclass(frozen=True)
class Piece:
    """One named slice of the observation vector."""

    name: str
    offset: int
    size: int
    description: str
    high: float = 1.0


class Observer:
    """Encodes views of one game's states as flat float vectors (see the module doc)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        b = game.board
        n = game.players
        self.n = n
        self.num_spaces = len(b.spaces)
        self.num_cards = len(game.cards)
        self._card_ix = {c.id: c.index for c in game.cards}
        self._token_ix = {t.id: t.index for t in game.tokens}
        self._tile_ix = {c: i for i, c in enumerate(TILE_CODES)}
        self._categories = _categories(game)
        tiles, _ = starting_tiles(n)
        self._tiles_per_seat = len(tiles)
        self._set_aside = game.set_aside_count
        self._deck_size = max(1, self.num_cards - (DISPLAY_SIZE if b.is_ireland else 0))
        nb_kind = 2 + n * NUM_TILE_KINDS
        self._space_width = nb_kind
        specs: list[tuple[str, int, str, float]] = [
            ("board", self.num_spaces * nb_kind,
             f"per space (map file order = action id), one-hot over {nb_kind}: free, neutral "
             f"(2 players, S-6), then for each relative seat the tile kind {'/'.join(TILE_CODES)}",
             1.0),
            ("scores", n, f"score of each relative seat / {SCORE_SCALE:g}", SCORE_HIGH),
            ("breakdown", n * len(self._categories),
             f"per relative seat, points by category ({', '.join(self._categories)}) / "
             f"{SCORE_SCALE:g}", SCORE_HIGH),
            ("castle_holders", len(b.castles) * (n + 1),
             "per castle (map order), one-hot: held by relative seat 0..n-1, or nobody", 1.0),
            ("cathedral_pieces", len(b.cathedrals) * n,
             "per cathedral (map order), 1 for each relative seat with a piece there (K-1)", 1.0),
            ("tower_visits", len(b.towers) * n,
             "per round tower (map order), 1 for each relative seat that has visited it (I-6)", 1.0),
            ("tower_tokens", len(b.towers) * len(game.tokens),
             "per round tower, one-hot over the game's tower tokens: the token lying there (I-6)",
             1.0),
            ("hand", NUM_TILE_KINDS, "own tile in hand, one-hot over tile kinds (none: all 0)", 1.0),
            ("own_set_aside", NUM_TILE_KINDS,
             f"own set-aside tiles by kind / {self._set_aside}, when the seat may see them "
             "(Scotland; Ireland with ireland_set_aside_known)", 1.0),
            ("own_set_aside_visible", 1, "1 when own_set_aside is known, 0 when it is face down", 1.0),
            ("public_set_aside", n * NUM_TILE_KINDS,
             f"per relative seat, set-aside tiles everyone has seen, by kind / {self._set_aside} "
             "(revealed by I-7, or all with set_aside_public)", 1.0),
            ("own_missions", self.num_cards,
             "own secret missions, multi-hot over the game's cards (Scotland cathedral cards, "
             "Ireland mission tokens; K-1, I-9)", 1.0),
            ("display", self.num_cards, "1 for each card on Ireland's public display (S-8)", 1.0),
            ("fulfilled", self.num_cards * n,
             "per card, 1 for each relative seat that has fulfilled it (public missions, I-8)", 1.0),
            ("marks", self.num_cards * n,
             "per card, 1 for each relative seat that put an x2 marker on it (I-8)", 1.0),
            ("supply_counts", n, f"tiles left in each relative seat's supply / {self._tiles_per_seat}",
             1.0),
            ("hand_counts", n, "1 for each relative seat holding a tile", 1.0),
            ("set_aside_counts", n, f"set-aside tiles of each relative seat / {self._set_aside}", 1.0),
            ("mission_counts", n, f"secret missions of each relative seat / {self.num_cards}", 1.0),
            ("placed", n, f"tiles placed by each relative seat / {self._tiles_per_seat}", 1.0),
            ("discarded", n * NUM_TILE_KINDS,
             f"per relative seat, discarded tiles by kind / {self._tiles_per_seat} (P-7)", 1.0),
            ("deck_count", 1, f"mission cards left in the deck / {self._deck_size}", 1.0),
            ("phase", len(PHASES), f"one-hot: {', '.join(PHASES)}", 1.0),
            ("current_player", n + 2,
             "one-hot: relative seat to act 0..n-1, then chance, then nobody (game over)", 1.0),
            ("extra_tile", NUM_TILE_KINDS, "the revealed extra tile to place (I-7), one-hot", 1.0),
            ("pending", 2,
             f"extra tiles and x2 markers still due this turn, each / {PENDING_CAP} (capped at 1)",
             1.0),
            ("winners", n, "1 for each relative seat among the winners (game over)", 1.0),
        ]
        pieces: list[Piece] = []
        off = 0
        for name, size, desc, high in specs:
            pieces.append(Piece(name, off, size, desc, high))
            off += size
        self._pieces = tuple(pieces)
        self._offset = {p.name: p.offset for p in pieces}
        self.size = off
        """Length of every vector of this game."""
        base = self._offset["board"]
        self._space_starts = tuple(base + i * nb_kind for i in range(self.num_spaces))
        # Per observing seat, a space's entry (owner, code) -> its index within the space; a
        # free space is -1 in the table (owner < 0), so only -1 is listed.
        self._slots: tuple[dict[tuple[int, str | None], int], ...] = tuple(
            {(-1, None): 0, (NEUTRAL, None): 1}
            | {(q, code): 2 + ((q - me) % n) * NUM_TILE_KINDS + k
               for q in range(n) for k, code in enumerate(TILE_CODES)}
            for me in range(n))
        self.low = [0.0] * off
        """Per entry, the smallest value (0: nothing is negative)."""
        self.high = [h for p in pieces for h in [p.high] * p.size]
        """Per entry, the largest value."""

    def layout(self) -> dict[str, int | tuple[int, ...]]:
        """Each piece's offset by name, the vector's ``size`` and the scales the encoding
        divides by (``categories``: each breakdown category's index in the state's table):
        what the native core's encoder of this observer reads (:mod:`rebirth.engine.native`)."""
        from rebirth.engine.state import CATEGORIES

        return {**self._offset, "size": self.size, "kinds": NUM_TILE_KINDS,
                "tiles_per_seat": self._tiles_per_seat, "set_aside": self._set_aside,
                "deck_size": self._deck_size, "score_scale": int(SCORE_SCALE),
                "pending_cap": PENDING_CAP,
                "categories": tuple(CATEGORIES.index(c) for c in self._categories)}

    @property
    def pieces(self) -> list[tuple[str, int, int, str]]:
        """(name, offset, size, description) of each piece, in vector order."""
        return [(p.name, p.offset, p.size, p.description) for p in self._pieces]

    def piece(self, vector: list[float], name: str) -> list[float]:
        """The slice of ``vector`` that piece ``name`` occupies (KeyError for an unknown name)."""
        for p in self._pieces:
            if p.name == name:
                return vector[p.offset:p.offset + p.size]
        raise KeyError(f"no observation piece {name!r} (known: {', '.join(p.name for p in self._pieces)})")

    # ------------------------------------------------------------------ encoding

    def _check(self, view: View) -> None:
        g = self.game
        if view.board != g.board.id or view.players != self.n:
            raise ValueError(
                f"this observer encodes {g.board.id} with {self.n} players, not a view of "
                f"{view.board} with {view.players}"
            )

    def encode(self, view: View) -> list[float]:
        """The observation vector of ``view`` (:attr:`size` floats)."""
        x = [0.0] * self.size
        for i, v in self.sparse(view).items():
            x[i] = v
        return x

    def sparse(self, view: View) -> dict[int, float]:
        """The entries of :meth:`encode` that may be non-zero, by index (most of the vector is
        zero: filling a zeroed array from this is the fast path of ``rebirth.env``)."""
        self._check(view)
        n = self.n
        me = view.seat if view.seat is not None else 0
        o = self._offset

        def rel(q: int) -> int:
            return (q - me) % n

        tix = self._tile_ix
        # Board occupancy: one index per space, found by a lookup of (owner, code) for this
        # seat (the loop below is its definition and runs for entries outside the table).
        base = o["board"]
        w = self._space_width
        x: dict[int, float]
        try:
            x = dict(zip(map(add, self._space_starts, map(self._slots[me].__getitem__, view.spaces)),
                         repeat(1.0)))
        except KeyError:
            x = {}
            for i, (owner, code) in enumerate(view.spaces):
                at = base + i * w
                if owner < 0:
                    x[at] = 1.0
                elif owner == NEUTRAL:
                    x[at + 1] = 1.0
                elif code is not None:
                    x[at + 2 + rel(owner) * NUM_TILE_KINDS + tix[code]] = 1.0
        for q in range(n):
            r = rel(q)
            x[o["scores"] + r] = view.scores[q] / SCORE_SCALE
            nc = len(self._categories)
            for c, cat in enumerate(self._categories):
                x[o["breakdown"] + r * nc + c] = view.breakdown[q].get(cat, 0) / SCORE_SCALE
            x[o["supply_counts"] + r] = view.supply_counts[q] / self._tiles_per_seat
            x[o["hand_counts"] + r] = float(view.hand_counts[q])
            x[o["set_aside_counts"] + r] = view.set_aside_counts[q] / self._set_aside
            x[o["mission_counts"] + r] = view.mission_counts[q] / max(1, self.num_cards)
            x[o["placed"] + r] = view.placed[q] / self._tiles_per_seat
            # Count first, divide once: repeated += 1/k could creep past 1.0.
            self._counts(x, o["discarded"] + r * NUM_TILE_KINDS, view.discarded[q],
                         self._tiles_per_seat)
            seen = view.public_set_aside[q] if view.public_set_aside else view.known_set_aside[q]
            self._counts(x, o["public_set_aside"] + r * NUM_TILE_KINDS, seen, self._set_aside)
        for c, holder in enumerate(view.castle_holders):
            at = o["castle_holders"] + c * (n + 1)
            x[at + (rel(holder) if holder >= 0 else n)] = 1.0
        for k, seats in enumerate(view.cathedral_pieces):
            for q in seats:
                x[o["cathedral_pieces"] + k * n + rel(q)] = 1.0
        for k, seats in enumerate(view.tower_visits):
            for q in seats:
                x[o["tower_visits"] + k * n + rel(q)] = 1.0
        ntok = len(self.game.tokens)
        for k, tok in enumerate(view.tower_tokens):
            x[o["tower_tokens"] + k * ntok + self._token_ix[tok]] = 1.0
        # Own hidden items (empty for a spectator; the view holds nothing else).
        if view.hand is not None:
            x[o["hand"] + tix[view.hand]] = 1.0
        if view.seat is not None and len(view.set_aside) == view.set_aside_counts[view.seat]:
            x[o["own_set_aside_visible"]] = 1.0
            self._counts(x, o["own_set_aside"], view.set_aside, self._set_aside)
        cix = self._card_ix
        for cid in view.missions:
            x[o["own_missions"] + cix[cid]] = 1.0
        for cid in view.display:
            x[o["display"] + cix[cid]] = 1.0
        for cid, seats in view.fulfilled.items():
            for q in seats:
                x[o["fulfilled"] + cix[cid] * n + rel(q)] = 1.0
        for q, cards in enumerate(view.marks):
            for cid in cards:
                x[o["marks"] + cix[cid] * n + rel(q)] = 1.0
        x[o["deck_count"]] = min(1.0, view.deck_count / self._deck_size)
        x[o["phase"] + PHASES.index(view.phase)] = 1.0
        cp = view.current_player
        x[o["current_player"] + (rel(cp) if cp >= 0 else n if cp == CHANCE else n + 1)] = 1.0
        if view.extra_tile is not None:
            x[o["extra_tile"] + tix[view.extra_tile]] = 1.0
        x[o["pending"]] = min(1.0, view.pending_extra / PENDING_CAP)
        x[o["pending"] + 1] = min(1.0, view.pending_double / PENDING_CAP)
        for q in view.winners:
            x[o["winners"] + rel(q)] = 1.0
        return x

    def _counts(self, x: dict[int, float], at: int, codes: tuple[str, ...], scale: int) -> None:
        """Write the per-kind counts of ``codes`` / ``scale`` at ``x[at:at+6]``."""
        if not codes:
            return
        c = [0] * NUM_TILE_KINDS
        for t in codes:
            c[self._tile_ix[t]] += 1
        for k in range(NUM_TILE_KINDS):
            x[at + k] = c[k] / scale

    # ------------------------------------------------------------------ debugging

    def string_from(self, view: View) -> str:
        """A compact text rendering of what ``view`` shows (for debugging; seats absolute)."""
        self._check(view)
        g = self.game
        cp = view.current_player
        who = "chance" if cp == CHANCE else "over" if cp == TERMINAL else f"P{cp + 1}"
        seat = "spectator" if view.seat is None else f"P{view.seat + 1}"
        lines = [
            f"{g.board.id} {self.n}p turn {view.turn} {view.phase} to move: {who} | view of {seat}",
            "scores " + " ".join(f"P{q + 1}={s}" for q, s in enumerate(view.scores)),
        ]
        if view.winners:
            lines.append("winners " + " ".join(f"P{q + 1}" for q in view.winners))
        labels = [s.label for s in g.board.spaces]
        occ = [
            f"{labels[i]}:{'N' if owner == NEUTRAL else f'P{owner + 1}'}{'' if code is None else '/' + code}"
            for i, (owner, code) in enumerate(view.spaces) if owner >= 0
        ]
        lines.append(f"board ({len(occ)}/{len(labels)}) " + " ".join(occ))
        castles = [f"{c.id}:P{h + 1}" for c, h in zip(g.board.castles, view.castle_holders, strict=True)
                   if h >= 0]
        if castles:
            lines.append("castles " + " ".join(castles))
        if view.display:
            lines.append("display " + " ".join(
                f"{cid}{'[' + ','.join(f'P{q + 1}' for q in view.fulfilled.get(cid, ())) + ']'}"
                for cid in view.display))
        lines.append(
            "counts supply " + "/".join(map(str, view.supply_counts))
            + " set-aside " + "/".join(map(str, view.set_aside_counts))
            + " missions " + "/".join(map(str, view.mission_counts))
            + f" deck {view.deck_count}"
        )
        own = [f"hand {view.hand or '-'}"]
        if view.set_aside:
            own.append("set-aside " + " ".join(view.set_aside))
        if view.missions:
            own.append("missions " + " ".join(view.missions))
        if view.extra_tile:
            own.append(f"extra {view.extra_tile}")
        lines.append(" ".join(own))
        return "\n".join(lines)


def _categories(game: Game) -> tuple[str, ...]:
    from rebirth.engine.state import IRELAND_CATEGORIES, SCOTLAND_CATEGORIES

    return IRELAND_CATEGORIES if game.board.is_ireland else SCOTLAND_CATEGORIES


# ---------------------------------------------------------------------- the document

DOC_CONFIGS: tuple[tuple[str, int], ...] = (("scotland", 3), ("ireland", 4))
"""The configurations whose full tables ``docs/observations.md`` shows."""


def observations_markdown() -> str:
    """The text of ``docs/observations.md``, generated from :attr:`Observer.pieces`."""
    mk = Game.create
    out = [
        "# Observations",
        "",
        "<!-- Generated by `python -m rebirth.engine.observer > docs/observations.md`;"
        " tests/env/test_observer.py checks it. -->",
        "",
        "`rebirth.engine.observer.Observer(game).encode(view)` turns a seat's `View` into a flat",
        "list of floats; the RL environment (`rebirth.env`) hands it to agents as",
        "`observe(agent)[\"observation\"]` (a `float32` array). It is built from the `View` only,",
        "never from the `State`, so it holds exactly what the seat may know (`engine/infoset.py`):",
        "another seat's hand, face-down set-aside tiles, secret missions and the deck order",
        "cannot leak into it.",
        "",
        "Conventions:",
        "",
        "* **Relative seats.** Slot 0 of every per-seat piece is the observing seat, slot 1 the",
        "  next seat in seat order, and so on. A spectator view is encoded from seat 0.",
        "* **Scaling.** Counts are divided by their maximum, so they lie in 0..1; scores and",
        f"  categories are divided by {SCORE_SCALE:g} (bound {SCORE_HIGH:g}). Nothing is negative.",
        "* **Order.** Spaces are in map file order (the same numbering as placement action ids),",
        "  castles, cathedrals and towers in map order, cards and tower tokens in data file order.",
        "* **Size.** Fixed for a board and player count; variants do not change it.",
        "",
        "`Observer.string_from(view)` renders the same view as compact text for debugging.",
        "",
        "## Sizes",
        "",
        "| board | players | size |",
        "| --- | --- | --- |",
    ]
    for board in ("scotland", "ireland"):
        for n in (2, 3, 4):
            out.append(f"| {board} | {n} | {Observer(mk(board, n)).size} |")
    for board, n in DOC_CONFIGS:
        obs = Observer(mk(board, n))
        out += ["", f"## Pieces: {board}, {n} players", "",
                "| name | offset | size | description |", "| --- | --- | --- | --- |"]
        for name, off, size, desc in obs.pieces:
            out.append(f"| `{name}` | {off} | {size} | {desc} |")
    out.append("")
    return "\n".join(out)


if __name__ == "__main__":  # pragma: no cover - writes the document to stdout
    sys.stdout.write(observations_markdown())
