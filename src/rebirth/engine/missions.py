"""Mission cards (Scotland secret, Ireland public) and Ireland's tower tokens: data, validated."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from rebirth.engine.board import Board, MapError
from rebirth.engine.i18n import Text


class DataError(ValueError):
    """A mission or token file that cannot be used."""


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


def _text(v: Any, where: str) -> Text:
    if not isinstance(v, dict) or not isinstance(v.get("en"), str) or not isinstance(v.get("de"), str):
        raise DataError(f"{where}: needs 'en' and 'de' texts")
    return {"en": v["en"], "de": v["de"]}


def _check_condition(cond: Any, board: Board, where: str) -> dict[str, Any]:
    if not isinstance(cond, dict) or not isinstance(cond.get("type"), str):
        raise DataError(f"{where}: 'condition' must be an object with a 'type'")
    t = cond["type"]
    regions = {r.id for r in board.regions}
    castles = {c.id for c in board.castles}

    def pos_int(key: str) -> None:
        v = cond.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise DataError(f"{where}: '{key}' must be a positive integer")

    if board.rules == "scotland":
        if t not in SCOTLAND_CONDITIONS:
            raise DataError(f"{where}: unknown condition {t!r}")
        if t == "most_spaces_in_region" and cond.get("region") not in regions:
            raise DataError(f"{where}: unknown region {cond.get('region')!r}")
        if t == "most_spaces_next_to_castles":
            cs = cond.get("castles")
            if not isinstance(cs, list) or not 1 <= len(cs) <= 2 or not set(cs) <= castles:
                raise DataError(f"{where}: 'castles' must list 1 or 2 castles of the map, got {cs!r}")
        if t == "most_settlements":
            f = cond.get("filter")
            if not isinstance(f, dict):
                raise DataError(f"{where}: 'filter' must be an object")
            for k, v in f.items():
                ok = (
                    (k == "region" and v in regions)
                    or (k == "district_size" and v in (1, 2, 3))
                    or (k == "port" and v is True)
                    or (k == "influence" and v in (1, 2, 3, 4))
                )
                if not ok:
                    raise DataError(f"{where}: bad filter entry {k!r}: {v!r}")
    else:
        if t not in IRELAND_CONDITIONS:
            raise DataError(f"{where}: unknown condition {t!r}")
        keys = {"farm_group": ("size",), "tiles_in_provinces": ("tiles", "provinces")}.get(
            t, ("count",)
        )
        for k in keys:
            pos_int(k)
        if t == "tiles_in_provinces" and cond["provinces"] > len(board.regions):
            raise DataError(f"{where}: the map has only {len(board.regions)} provinces")
    return dict(cond)


def parse_cards(data: Any, board: Board) -> tuple[MissionCard, ...]:
    """Validate a mission file against a board."""
    if not isinstance(data, dict) or data.get("format") != "rebirth-missions":
        raise DataError("missions: 'format' must be 'rebirth-missions'")
    if data.get("version") != 1:
        raise DataError(f"missions: unsupported version {data.get('version')!r}")
    if data.get("board") != board.rules:
        raise DataError(f"missions: file is for {data.get('board')!r}, board is {board.rules!r}")
    raw = data.get("cards")
    if not isinstance(raw, list) or not raw:
        raise DataError("missions: 'cards' must be a non-empty list")
    cards: list[MissionCard] = []
    ids: set[str] = set()
    for i, c in enumerate(raw):
        if not isinstance(c, dict) or not isinstance(c.get("id"), str):
            raise DataError(f"mission #{i + 1}: needs an 'id'")
        cid = c["id"]
        where = f"mission {cid!r}"
        # Players type ids in any case (`mark m2`), so ids must differ in more than case.
        if cid.upper() in ids:
            raise DataError(f"{where}: id used twice (ids are compared without regard to case)")
        ids.add(cid.upper())
        cond = _check_condition(c.get("condition"), board, where)
        txt = _text(c.get("text"), where)
        if board.rules == "scotland":
            pts = c.get("points")
            if pts not in (3, 4, 5):
                raise DataError(f"{where}: 'points' must be 3, 4 or 5 (K-2)")
            cards.append(MissionCard(i, cid, cond, txt, points=pts))
        else:
            vals = c.get("values")
            if not isinstance(vals, list) or tuple(vals) not in ((12, 8), (8, 5), (6, 4)):
                raise DataError(f"{where}: 'values' must be [12, 8], [8, 5] or [6, 4] (I-10)")
            cards.append(MissionCard(i, cid, cond, txt, values=(vals[0], vals[1])))
    return tuple(cards)


def parse_tokens(data: Any) -> tuple[TowerToken, ...]:
    """Validate a tower token file."""
    if not isinstance(data, dict) or data.get("format") != "rebirth-tower-tokens":
        raise DataError("tokens: 'format' must be 'rebirth-tower-tokens'")
    if data.get("version") != 1:
        raise DataError(f"tokens: unsupported version {data.get('version')!r}")
    raw = data.get("tokens")
    if not isinstance(raw, list) or not raw:
        raise DataError("tokens: 'tokens' must be a non-empty list")
    out: list[TowerToken] = []
    for i, t in enumerate(raw):
        if not isinstance(t, dict) or not isinstance(t.get("id"), str):
            raise DataError(f"token #{i + 1}: needs an 'id'")
        where = f"token {t['id']!r}"
        kind = t.get("kind")
        if kind not in TOKEN_KINDS:
            raise DataError(f"{where}: unknown kind {kind!r}")
        pts = t.get("points", 0)
        if kind == "points" and (not isinstance(pts, int) or pts < 1):
            raise DataError(f"{where}: a points token needs positive 'points'")
        name = _text(t["name"], where) if "name" in t else {"en": kind, "de": kind}
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
        raise MapError(f"no mission cards shipped for {board.rules!r}") from exc


def builtin_tokens() -> tuple[TowerToken, ...]:
    """The shipped 14 Ireland tower tokens."""
    return parse_tokens(_builtin_json("tokens", "ireland_towers.json"))
