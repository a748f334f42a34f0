"""Mission cards (Scotland secret, Ireland public) and Ireland's tower tokens: data, validated."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from rebirth.engine.board import Board, MapError
from rebirth.engine.i18n import Text, codes, data_text, same_text
from rebirth.engine.messages import UserError, msg


class DataError(UserError):
    """A mission or token file that cannot be used: a catalog key plus arguments naming the
    card or token at fault (a :class:`UserError`, so still a ValueError)."""


Where = dict[str, Any]
"""The card or token at fault, as a message value (``mission 'S01'``, ``token #3``)."""


SCOTLAND_CONDITIONS = ("most_spaces_in_region", "most_spaces_next_to_castles", "most_settlements")
IRELAND_CONDITIONS = ("farm_group", "castles_held", "towers_adjacent", "tiles_in_provinces",
                      "district_firsts", "offshore_farms")
TOKEN_KINDS = ("points", "extra_tile", "double", "mission")


@dataclass(frozen=True)
class MissionCard:
    """One card. Scotland cards have ``points``; Ireland cards ``values`` (first, later)."""

    index: int
    id: str
    condition: dict[str, Any]
    text: Text
    points: int = 0
    values: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class TowerToken:
    """An Ireland round-tower bonus token (I-6)."""

    index: int
    id: str
    kind: str
    points: int
    name: Text


def _text(v: Any, where: Where) -> Text:
    out = data_text(v)
    if out is None:
        raise DataError("error.data.texts", where=where, supported=", ".join(codes()))
    return out


def _check_condition(cond: Any, board: Board, where: Where) -> dict[str, Any]:
    if not isinstance(cond, dict) or not isinstance(cond.get("type"), str):
        raise DataError("error.data.condition", where=where)
    t = cond["type"]
    regions = {r.id for r in board.regions}
    castles = {c.id for c in board.castles}

    def pos_int(key: str) -> None:
        v = cond.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise DataError("error.data.positive", where=where, key=key)

    if board.rules == "scotland":
        if t not in SCOTLAND_CONDITIONS:
            raise DataError("error.data.unknown_condition", where=where, type=repr(t))
        if t == "most_spaces_in_region" and cond.get("region") not in regions:
            raise DataError("error.data.region", where=where, id=repr(cond.get("region")))
        if t == "most_spaces_next_to_castles":
            cs = cond.get("castles")
            if not isinstance(cs, list) or not 1 <= len(cs) <= 2 or not set(cs) <= castles:
                raise DataError("error.data.castles", where=where, got=repr(cs))
        if t == "most_settlements":
            f = cond.get("filter")
            if not isinstance(f, dict):
                raise DataError("error.data.filter", where=where)
            for k, v in f.items():
                ok = (
                    (k == "region" and v in regions)
                    or (k == "district_size" and v in (1, 2, 3))
                    or (k == "port" and v is True)
                    or (k == "influence" and v in (1, 2, 3, 4))
                )
                if not ok:
                    raise DataError("error.data.filter_entry", where=where, key=repr(k), value=repr(v))
    else:
        if t not in IRELAND_CONDITIONS:
            raise DataError("error.data.unknown_condition", where=where, type=repr(t))
        keys = {"farm_group": ("size",), "tiles_in_provinces": ("tiles", "provinces")}.get(
            t, ("count",)
        )
        for k in keys:
            pos_int(k)
        if t == "tiles_in_provinces" and cond["provinces"] > len(board.regions):
            raise DataError("error.data.provinces", where=where, n=len(board.regions))
    return dict(cond)


def parse_cards(data: Any, board: Board) -> tuple[MissionCard, ...]:
    """Validate a mission file against a board."""
    if not isinstance(data, dict) or data.get("format") != "rebirth-missions":
        raise DataError("error.data.missions_format")
    if data.get("version") != 1:
        raise DataError("error.data.missions_version", version=repr(data.get("version")))
    if data.get("board") != board.rules:
        raise DataError("error.data.missions_board", file=repr(data.get("board")), board=repr(board.rules))
    raw = data.get("cards")
    if not isinstance(raw, list) or not raw:
        raise DataError("error.data.cards_list")
    cards: list[MissionCard] = []
    ids: set[str] = set()
    for i, c in enumerate(raw):
        if not isinstance(c, dict) or not isinstance(c.get("id"), str):
            raise DataError("error.data.id", where=msg("error.data.where.mission_n", n=i + 1))
        cid = c["id"]
        where = msg("error.data.where.mission", id=repr(cid))
        # Players type ids in any case (`mark m2`), so ids must differ in more than case.
        if cid.upper() in ids:
            raise DataError("error.data.id_twice", where=where)
        ids.add(cid.upper())
        cond = _check_condition(c.get("condition"), board, where)
        txt = _text(c.get("text"), where)
        if board.rules == "scotland":
            pts = c.get("points")
            if pts not in (3, 4, 5):
                raise DataError("error.data.points", where=where)
            cards.append(MissionCard(i, cid, cond, txt, points=pts))
        else:
            vals = c.get("values")
            if not isinstance(vals, list) or tuple(vals) not in ((12, 8), (8, 5), (6, 4)):
                raise DataError("error.data.values", where=where)
            cards.append(MissionCard(i, cid, cond, txt, values=(vals[0], vals[1])))
    return tuple(cards)


def parse_tokens(data: Any) -> tuple[TowerToken, ...]:
    """Validate a tower token file."""
    if not isinstance(data, dict) or data.get("format") != "rebirth-tower-tokens":
        raise DataError("error.data.tokens_format")
    if data.get("version") != 1:
        raise DataError("error.data.tokens_version", version=repr(data.get("version")))
    raw = data.get("tokens")
    if not isinstance(raw, list) or not raw:
        raise DataError("error.data.tokens_list")
    out: list[TowerToken] = []
    for i, t in enumerate(raw):
        if not isinstance(t, dict) or not isinstance(t.get("id"), str):
            raise DataError("error.data.id", where=msg("error.data.where.token_n", n=i + 1))
        where = msg("error.data.where.token", id=repr(t["id"]))
        kind = t.get("kind")
        if kind not in TOKEN_KINDS:
            raise DataError("error.data.token_kind", where=where, kind=repr(kind))
        pts = t.get("points", 0)
        if kind == "points" and (not isinstance(pts, int) or pts < 1):
            raise DataError("error.data.token_points", where=where)
        name = _text(t["name"], where) if "name" in t else same_text(kind)
        out.append(TowerToken(i, t["id"], kind, pts if kind == "points" else 0, name))
    return tuple(out)


def card_spaces(board: Board, card: MissionCard) -> tuple[int, ...]:
    """The spaces a Scotland card's condition can count (K-8), fixed by the map: the
    region's spaces, the spaces next to its castles (each once), or the settlement spaces
    matching its filter's region, district size and port keys."""
    cond = card.condition
    t = cond.get("type")
    if t == "most_spaces_in_region":
        r = board.region_index(cond["region"])
        return tuple(s.index for s in board.spaces if s.region == r)
    if t == "most_spaces_next_to_castles":
        seen: set[int] = set()
        for cid in cond["castles"]:
            seen.update(board.castle(cid).spaces)
        return tuple(sorted(seen))
    if t == "most_settlements":
        f = cond["filter"]
        reg = board.region_index(f["region"]) if "region" in f else -1
        out = []
        for s in board.spaces:
            if s.district < 0 or (reg >= 0 and s.region != reg):
                continue
            if f.get("port") and not s.port:
                continue
            if "district_size" in f and board.districts[s.district].size != f["district_size"]:
                continue
            out.append(s.index)
        return tuple(out)
    return ()


def _builtin_json(*parts: str) -> Any:
    return json.loads(resources.files("rebirth.data").joinpath(*parts).read_text(encoding="utf-8"))


def builtin_cards(board: Board) -> tuple[MissionCard, ...]:
    """The shipped mission cards for the board's rule set."""
    try:
        return parse_cards(_builtin_json("missions", f"{board.rules}.json"), board)
    except FileNotFoundError as exc:
        raise MapError("error.data.no_cards", rules=repr(board.rules)) from exc


def builtin_tokens() -> tuple[TowerToken, ...]:
    """The shipped 14 Ireland tower tokens."""
    return parse_tokens(_builtin_json("tokens", "ireland_towers.json"))
