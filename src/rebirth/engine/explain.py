"""Explanations: the events of the rules, one builder per kind of event.

:mod:`rebirth.engine.state` calls these only when a caller asked for events
(``State.apply``), never on the fast path. Builders take plain facts (seats,
tiles, numbers, board objects) and decide no rule themselves, except which rule
id and message fits the facts. They write no sentence: each event names a
catalog message (``rebirth/data/i18n/<lang>.json``) and its arguments, by the
conventions of :mod:`rebirth.engine.messages` (``docs/messages.md``).
"""

from __future__ import annotations

from typing import Any

from rebirth.engine.board import Board, District, Space, Structure
from rebirth.engine.events import Event
from rebirth.engine.i18n import Text
from rebirth.engine.messages import render_message
from rebirth.engine.missions import MissionCard, TowerToken
from rebirth.engine.tiles import TILE_CODES, tile_code

A_EN = tuple(render_message(f"tile.{c}.a", {}, "en", ()) for c in TILE_CODES)
"""English tile names with their indefinite article, by tile number."""

_SIZES = (2, 3, 4)
"""District sizes with a size word (``district.the.<size>``); 1-space districts are small (T-2)."""


def _seat(p: int) -> dict[str, int]:
    return {"seat": p}


def _tile(t: int) -> dict[str, Any]:
    """A tile name with its indefinite article."""
    return {"msg": f"tile.{tile_code(t)}.a", "args": {}}


def _name(t: Text) -> dict[str, str]:
    """A data-driven bilingual name, copied so the event owns it."""
    return {k: str(v) for k, v in t.items()}


# ------------------------------------------------------------------ the turn (P)


def returned_4p(p: int, tiles: list[str]) -> Event:
    """S-2: with 4 players, 9 fixed tiles per player go back to the box before the game."""
    return Event("returned", "S-2", p, "returned.4p",
                 {"player": _seat(p), "count": len(tiles), "tiles": " ".join(tiles)},
                 data={"tiles": tiles})


def discard(p: int, t: int) -> Event:
    """P-7: a hand tile with no legal space is discarded."""
    return Event("discard", "P-7", p, "discard", {"player": _seat(p), "tile": _tile(t)},
                 data={"tile": tile_code(t)})


def place(p: int, t: int, space: Space, emergency: bool) -> Event:
    """P-1: a tile is placed (P-3: on the other farm type's space)."""
    return Event("place", "P-1", p, "place.emergency" if emergency else "place",
                 {"player": _seat(p), "tile": _tile(t), "hex": space.label},
                 data={"tile": tile_code(t), "hex": space.label, "emergency": emergency})


# ------------------------------------------------------------- farms and towns


def farm(p: int, t: int, g: int) -> Event:
    """F-1: the placed farm's group of ``g`` tiles scores ``g``."""
    args = {"player": _seat(p), "farm": {"msg": f"farm.kind.{tile_code(t)}", "args": {}},
            "size": g, "points": g}
    return Event("farm", "F-1", p, "farm.lone" if g == 1 else "farm.group", args,
                 points=g, data={"group": g})


def offshore(p: int, space: Space) -> Event:
    """I-3: +1 for a farm offshore."""
    return Event("offshore", "I-3", p, "offshore",
                 {"player": _seat(p), "hex": space.label, "points": 1}, points=1)


def port(p: int, space: Space) -> Event:
    """T-6: +1 for a settlement on a port."""
    return Event("port", "T-6", p, "port",
                 {"player": _seat(p), "hex": space.label, "points": 1}, points=1)


def small_district(p: int, dist: District, inf: int) -> Event:
    """T-2: a 1-space district pays its influence at once."""
    return Event("small_district", "T-2", p, "district.small",
                 {"player": _seat(p), "district": _name(dist.name), "influence": inf,
                  "points": inf}, points=inf)


def district_alone(q: int, dist: District, pts: int) -> Event:
    """T-5: the only player in a completed district takes every rank."""
    size = len(dist.spaces)
    if size not in _SIZES:
        raise ValueError(f"district {dist.id!r}: no ranks for {size} spaces")
    return Event("district_alone", "T-5", q, "district.alone",
                 {"player": _seat(q), "kind": {"msg": f"district.the.{size}", "args": {}},
                  "district": _name(dist.name), "points": pts},
                 points=pts, data={"district": dist.id})


def district_rank(q: int, dist: District, rank: int, pts: int, influence: int, *, tied: bool,
                  completer_wins: bool, final: bool) -> Event:
    """T-3/T-4 (at completion) or T-7 (``final``, at game end): ``q`` takes ``rank`` (1-based)."""
    key = "district.final" if final else "district.rank"
    if tied:
        key += ".tie_completer_wins" if completer_wins else ".tie"
    return Event("final_district" if final else "district",
                 "T-7" if final else ("T-4" if tied else "T-3"), q, key,
                 {"player": _seat(q), "district": _name(dist.name), "size": len(dist.spaces),
                  "influence": influence, "rank": rank, "points": pts},
                 points=pts, data={"district": dist.id, "rank": rank, "influence": influence})


def incomplete_as_small(q: int, dist: District, influence: int) -> Event:
    """T-7 under variant incomplete_as_small: an incomplete district pays each its influence."""
    return Event("final_district", "T-7", q, "district.incomplete_as_small",
                 {"player": _seat(q), "district": _name(dist.name), "influence": influence,
                  "points": influence}, points=influence)


# ---------------------------------------------------------------- castles (C)


def castle_claim(p: int, castle: Structure) -> Event:
    """C-1: the first player next to a free castle takes it."""
    return Event("castle_claim", "C-1", p, "castle.claim",
                 {"player": _seat(p), "castle": _name(castle.name)}, data={"castle": castle.id})


def castle_contest(p: int, hol: int, castle: Structure, *, take: bool, rule: str, mine: int,
                   theirs: int, my_farms: int, their_farms: int) -> Event:
    """C-2/C-3: ``p`` challenges holder ``hol``, with spaces and farms next to the castle."""
    if rule == "C-2":
        key = "castle.more.take" if take else "castle.more.keep"
    elif take and my_farms > their_farms:
        key = "castle.farms.take"
    elif take:
        key = "castle.tie.active"
    elif my_farms < their_farms:
        key = "castle.farms.keep"
    else:
        key = "castle.tie.keep"
    args = {"player": _seat(p), "holder": _seat(hol), "castle": _name(castle.name),
            "mine": mine, "theirs": theirs, "my_farms": my_farms, "their_farms": their_farms}
    return Event("castle_take" if take else "castle_hold", rule, p, key, args,
                 data={"castle": castle.id, "holder": hol})


def final_castle(hol: int, castle: Structure) -> Event:
    """C-5: a held castle pays 5 at game end."""
    return Event("castle_final", "C-5", hol, "castle.final",
                 {"player": _seat(hol), "castle": _name(castle.name), "points": 5},
                 points=5, data={"castle": castle.id})


# ------------------------------------------------- cathedrals and missions (K)


def _clause(t: Text) -> dict[str, str]:
    """A card text without its final full stop, so it can stand inside a sentence."""
    return {k: str(v).rstrip().removesuffix(".") for k, v in t.items()}


def _card_args(card: MissionCard, points: int) -> dict[str, Any]:
    return {"card": card.id, "text": _clause(card.text), "points": points}


def cathedral(p: int, cath: Structure, card: MissionCard | None) -> Event:
    """K-1: first time next to a cathedral; ``card`` is the drawn mission (None: deck empty)."""
    args = {"player": _seat(p), "cathedral": _name(cath.name)}
    if card is None:
        return Event("cathedral", "K-1", p, "cathedral.empty", args,
                     data={"cathedral": cath.id})
    return Event("cathedral", "K-1", p, "cathedral.draw", args, data={"cathedral": cath.id},
                 private={"mission": card.id}, private_key="cathedral.card",
                 private_args=_card_args(card, card.points))


def mission_reveal(q: int, card: MissionCard, ok: bool, pts: int, *, ireland: bool,
                   ruling: bool = False) -> Event:
    """K-2 (Scotland) or I-9 (Ireland): a secret mission is revealed at game end.

    ``ruling``: add how every Scotland card is judged (K-3, K-7); the engine asks for it
    with the first revealed card only, so the ruling is said once per game.
    """
    args: dict[str, Any] = {"player": _seat(q), "card": card.id, "text": _clause(card.text),
                            "points": pts}
    key = "mission.reveal.ok" if ok else "mission.reveal.fail"
    if ruling:
        key += ".ruling"
        args["ruling"] = {"msg": "mission.ruling", "args": {}}
    return Event("mission", "I-9" if ireland else "K-2", q, key, args,
                 points=pts, data={"mission": card.id, "fulfilled": ok})


# ----------------------------------------------------------------- Ireland (I)


def tower(p: int, tw: Structure, tok: TowerToken, card: MissionCard | None) -> Event:
    """I-6…I-9: first time next to a round tower; ``card`` is a drawn secret mission, if any."""
    args: dict[str, Any] = {"player": _seat(p), "tower": _name(tw.name)}
    data = {"tower": tw.id, "token": tok.kind}
    if tok.kind == "points":
        args["points"] = tok.points
        return Event("tower", "I-6", p, "tower.points", args, points=tok.points, data=data)
    if tok.kind == "extra_tile":
        return Event("tower", "I-7", p, "tower.extra_tile", args, data=data)
    if tok.kind == "double":
        return Event("tower", "I-8", p, "tower.double", args, data=data)
    if card is None:
        return Event("tower", "I-9", p, "tower.mission.empty", args, data=data)
    return Event("tower", "I-9", p, "tower.mission", args, data=data,
                 private={"mission": card.id}, private_key="tower.card",
                 private_args=_card_args(card, card.values[0]))


def extra_tile(p: int, t: int) -> Event:
    """I-7: the revealed set-aside tile is placed as an extra tile."""
    return Event("extra_tile", "I-7", p, "extra.reveal", {"player": _seat(p), "tile": _tile(t)},
                 data={"tile": tile_code(t)})


def extra_lost(p: int) -> Event:
    """I-7: an extra tile is lost because no set-aside tile is left."""
    return Event("extra_lost", "I-7", p, "extra.lost", {"player": _seat(p)})


def extra_unplaceable(p: int, t: int) -> Event:
    """I-7: the revealed extra tile has no legal space; it stays set aside, face up."""
    return Event("extra_lost", "I-7", p, "extra.unplaceable",
                 {"player": _seat(p), "tile": _tile(t)}, data={"tile": tile_code(t)})


def double_marker(p: int, card: MissionCard) -> Event:
    """I-8: an x2 marker goes on a public mission."""
    return Event("double_marker", "I-8", p, "double.marker",
                 {"player": _seat(p), "card": card.id}, data={"mission": card.id})


def double_lost(p: int) -> Event:
    """I-8: an x2 marker is lost because no public mission can take it."""
    return Event("double_lost", "I-8", p, "double.lost", {"player": _seat(p)})


def public_mission(q: int, card: MissionCard, *, first: bool, pts: int, doubled: bool) -> Event:
    """I-10: ``q`` fulfils a public mission (``first``: the higher value)."""
    key = "public_mission." + ("first" if first else "later") + (".doubled" if doubled else "")
    return Event("public_mission", "I-10", q, key,
                 {"player": _seat(q), "card": card.id, "points": pts},
                 points=pts, data={"mission": card.id, "first": first, "doubled": doubled})


# ---------------------------------------------------------------- game end (E)

_JOIN_FIELDS = ("a", "b", "c", "d")


def game_end(winners: list[int], scores: list[int], *, ireland: bool) -> Event:
    """E-3 (Scotland) or E-4 (Ireland): the winners and the final scores."""
    if not 1 <= len(winners) <= len(_JOIN_FIELDS):
        raise ValueError(f"a game has 1 to 4 winners, not {len(winners)}")
    names = {"msg": f"join.{len(winners)}",
             "args": {f: _seat(w) for f, w in zip(_JOIN_FIELDS, winners, strict=False)}}
    return Event("game_end", "E-4" if ireland else "E-3", None,
                 "game_end.one" if len(winners) == 1 else "game_end.shared",
                 {"winners": names}, data={"winners": winners, "scores": scores})


def _seats(seats: list[int], value: Any = None) -> dict[str, Any]:
    """Several seats as one comma list ("Ann, Ben, Cy"); ``value(q)`` replaces a seat's name."""
    return {"msg": f"tiebreak.list.{len(seats)}",
            "args": {f: (_seat(q) if value is None else value(q))
                     for f, q in zip(_JOIN_FIELDS, seats, strict=False)}}


def tiebreak_message(board: Board, how: dict[str, Any] | None, points: int,
                     winners: list[int]) -> dict[str, Any]:
    """E-3/E-4 in words, as a message value: what decided a tie for first (``winners`` and
    ``how`` as :meth:`State.decide_winners` gives them; None: nobody tied with ``points``).
    The terminal, the calculator and the pages all render this one message."""
    if how is None:
        return {"msg": "tiebreak.none", "args": {"points": points}}
    tied: list[int] = list(how["tied"])
    args: dict[str, Any] = {"points": points, "rule": how["rule"], "tied": _seats(tied)}
    if how["by"] == "castle":
        c = next(c for c in board.castles if c.id == how["id"])
        args.update(castle=_name(c.name), holder=_seat(winners[0]))
        return {"msg": "tiebreak.castle.literal" if how.get("literal") else "tiebreak.castle",
                "args": args}
    if how["by"] == "tower":
        tw = next(t for t in board.towers if t.id == how["id"])
        counts = how["counts"]
        args.update(tower=_name(tw.name), counts=_seats(tied, lambda q: {
            "msg": "tiebreak.count", "args": {"player": _seat(q), "count": counts[q]}}))
        return {"msg": "tiebreak.tower", "args": args}
    return {"msg": "tiebreak.shared", "args": args}
