"""The board: a map data file, validated on load and compiled into flat index tables.

Tile spaces are numbered 0..n-1 in file order; structures are numbered per kind.
Everything the hot path needs (neighbours, adjacent structures, districts) is a
precomputed tuple indexed by space number.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from rebirth.engine.formats import (
    MAP_ID,
    MAX_EXTENT,
    MAX_MAP_BYTES,
    FormatError,
    decode_json,
    read_regular_file,
    validate_map,
)
from rebirth.engine.hexgrid import Hex, column_letters, neighbours, to_offset
from rebirth.engine.i18n import Text, codes, data_text, same_text
from rebirth.engine.messages import UserError, msg

ENERGY, FOOD, BLANK, FLEXIBLE, SETTLEMENT = 0, 1, 2, 3, 4
SPACE_KINDS = ("energy", "food", "blank", "flexible", "settlement")
STRUCTURE_KINDS = ("castle", "cathedral", "tower")
MARKERS = ("port", "offshore", "blocker")
RULE_SETS = ("scotland", "ireland")
FORMAT = "rebirth-map"
FORMAT_VERSION = 1

# S-2: with 4 players 9 tiles per player go back to the box.
SETTLEMENTS_PER_PLAYER = {2: 12, 3: 12, 4: 9}
FARMS_PER_PLAYER = {2: 24, 3: 24, 4: 18}
SET_ASIDE = {"scotland": 2, "ireland": 4}
MAX_DISTRICT = {"scotland": 3, "ireland": 4}


class MapError(UserError):
    """A map file that cannot be used: a catalog key plus arguments naming the hex or item at
    fault (a :class:`UserError`, so still a ValueError)."""


Where = dict[str, Any]
"""Where in a map file a fault is, as a message value (``hex C4 (q=2, r=3)``, ``region 'x'``)."""

_MAP: Where = msg("error.format.what.map")


def _at(where: str, /, **args: Any) -> Where:
    """The place ``error.map.where.<where>`` as a message value."""
    return msg(f"error.map.where.{where}", **args)


@dataclass(frozen=True)
class Space:
    """One tile space of the board."""

    index: int
    hex: Hex
    label: str
    kind: int
    region: int
    district: int
    port: bool
    offshore: bool
    blocker: bool

    @property
    def kind_name(self) -> str:
        return SPACE_KINDS[self.kind]


@dataclass(frozen=True)
class Structure:
    """A castle, cathedral or tower; ``spaces`` are the adjacent tile spaces."""

    kind: str
    index: int
    id: str
    name: Text
    hex: Hex
    label: str
    spaces: tuple[int, ...]


@dataclass(frozen=True)
class District:
    """A settlement district of 1 to 4 spaces."""

    index: int
    id: str
    name: Text
    spaces: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.spaces)


@dataclass(frozen=True)
class Region:
    """A named region (Scotland) or province (Ireland)."""

    index: int
    id: str
    name: Text


@dataclass(frozen=True)
class CapacityRow:
    """S-9 figures for one player count."""

    players: int
    settlement_tiles: int
    settlement_spaces: int
    farm_tiles: int
    farm_spaces: int
    blockers: int

    @property
    def ok(self) -> bool:
        return (
            self.settlement_spaces >= self.settlement_tiles
            and self.farm_spaces - self.blockers >= self.farm_tiles
        )


@dataclass(frozen=True, eq=False)
class Board:
    """A compiled, validated map."""

    id: str
    rules: str
    name: Text
    spaces: tuple[Space, ...]
    regions: tuple[Region, ...]
    districts: tuple[District, ...]
    castles: tuple[Structure, ...]
    cathedrals: tuple[Structure, ...]
    towers: tuple[Structure, ...]
    tiebreak: tuple[tuple[str, int], ...]
    source: dict[str, Any] = field(repr=False)
    # Hot-path tables, indexed by space number.
    nbrs: tuple[tuple[int, ...], ...] = field(repr=False)
    adj_castles: tuple[tuple[int, ...], ...] = field(repr=False)
    adj_cathedrals: tuple[tuple[int, ...], ...] = field(repr=False)
    adj_towers: tuple[tuple[int, ...], ...] = field(repr=False)
    by_hex: dict[Hex, int] = field(repr=False)
    by_label: dict[str, int] = field(repr=False)
    structure_at: dict[Hex, Structure] = field(repr=False)
    blockers: tuple[int, ...] = field(repr=False)
    width: int = 0
    height: int = 0

    @property
    def is_ireland(self) -> bool:
        return self.rules == "ireland"

    def space(self, label: str) -> Space:
        """The space with this label (KeyError if none)."""
        return self.spaces[self.by_label[label.strip().upper()]]

    def castle(self, cid: str) -> Structure:
        return next(c for c in self.castles if c.id == cid)

    def tower(self, tid: str) -> Structure:
        return next(t for t in self.towers if t.id == tid)

    def region_index(self, rid: str) -> int:
        return next(r.index for r in self.regions if r.id == rid)

    def capacity(self) -> list[CapacityRow]:
        """The S-9 figures for 2, 3 and 4 players."""
        return capacity_rows(self)


def capacity_rows(board: Board) -> list[CapacityRow]:
    settle = sum(1 for s in board.spaces if s.kind == SETTLEMENT)
    farm = len(board.spaces) - settle
    rows = []
    for n in (2, 3, 4):
        # Scotland's 2 set-aside tiles may be any tiles, so the worst case is
        # that every settlement (or every farm) comes into play; Ireland's can
        # come back (I-7), so it is counted the same way.
        rows.append(
            CapacityRow(
                players=n,
                settlement_tiles=SETTLEMENTS_PER_PLAYER[n] * n,
                settlement_spaces=settle,
                farm_tiles=FARMS_PER_PLAYER[n] * n,
                farm_spaces=farm,
                blockers=len(board.blockers) if n == 2 else 0,
            )
        )
    return rows


def _text(value: Any, where: Where) -> Text:
    out = data_text(value)
    if out is None:
        raise MapError("error.map.name", where=where, supported=", ".join(codes()))
    return out


def _int(obj: dict[str, Any], key: str, where: Where) -> int:
    v = obj.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise MapError("error.map.integer", where=where, key=key)
    return v


def _str(obj: dict[str, Any], key: str, where: Where) -> str:
    v = obj.get(key)
    if not isinstance(v, str) or not v:
        raise MapError("error.map.string", where=where, key=key)
    return v


def parse_board(data: Any, *, check_capacity: bool = True) -> Board:
    """Validate a decoded map file and compile it; raises :class:`MapError`.

    The typed schema (:class:`rebirth.engine.formats.MapModel`) is checked first,
    so the checks below see well-typed data of bounded size.
    """
    if not isinstance(data, dict):
        raise MapError("error.map.not_object")
    try:
        validate_map(data)
    except FormatError as exc:
        raise MapError.like(exc) from None
    if data.get("format") != FORMAT:
        raise MapError("error.map.format", expected=repr(FORMAT), got=repr(data.get("format")))
    if data.get("version") != FORMAT_VERSION:
        raise MapError("error.map.version", version=repr(data.get("version")), reads=FORMAT_VERSION)
    map_id = _str(data, "id", _MAP)
    rules = _str(data, "rules", _MAP)
    if rules not in RULE_SETS:
        raise MapError("error.map.rules", rules=repr(rules), known=", ".join(RULE_SETS))
    name = _text(data.get("name"), _MAP)

    raw_regions = data.get("regions")
    if not isinstance(raw_regions, list) or not raw_regions:
        raise MapError("error.map.regions_list")
    regions: list[Region] = []
    region_ix: dict[str, int] = {}
    for i, rr in enumerate(raw_regions):
        where = _at("region_n", n=i + 1)
        if not isinstance(rr, dict):
            raise MapError("error.map.object", where=where)
        rid = _str(rr, "id", where)
        if rid in region_ix:
            raise MapError("error.map.region_twice", id=repr(rid))
        region_ix[rid] = len(regions)
        regions.append(Region(len(regions), rid, _text(rr.get("name"), _at("region", id=repr(rid)))))

    raw_spaces = data.get("spaces")
    raw_structs = data.get("structures", [])
    if not isinstance(raw_spaces, list) or not raw_spaces:
        raise MapError("error.map.spaces_list")
    if not isinstance(raw_structs, list):
        raise MapError("error.map.structures_list")

    # Labels need the whole extent first.
    hexes: list[Hex] = []
    for i, item in enumerate([*raw_spaces, *raw_structs]):
        where = _at("space_n" if i < len(raw_spaces) else "structure_n", n=i + 1)
        if not isinstance(item, dict):
            raise MapError("error.map.object", where=where)
        hexes.append((_int(item, "q", where), _int(item, "r", where)))
    cols = [to_offset(h)[0] for h in hexes]
    rows = [h[1] for h in hexes]
    col0, row0 = min(cols), min(rows)
    # The extent bound keeps every label in the form actions parse back (at most
    # two column letters, three row digits) and the terminal rendering small.
    span = (max(cols) - col0 + 1, max(rows) - row0 + 1)
    if max(span) > MAX_EXTENT:
        raise MapError("error.map.extent", cols=span[0], rows=span[1], most=MAX_EXTENT)

    def label(h: Hex) -> str:
        c, r = to_offset(h)
        return f"{column_letters(c - col0)}{r - row0 + 1}"

    def at(h: Hex) -> Where:
        return _at("hex", label=label(h), q=h[0], r=h[1])

    seen: dict[Hex, Where] = {}
    for i, h in enumerate(hexes):
        what = _at("space" if i < len(raw_spaces) else "structure")
        if h in seen:
            raise MapError("error.map.duplicate_hex", where=at(h), first=seen[h], second=what)
        seen[h] = what

    spaces: list[Space] = []
    district_members: dict[str, list[int]] = {}
    for i, rs in enumerate(raw_spaces):
        h = hexes[i]
        where = at(h)
        kind_name = rs.get("kind")
        if kind_name not in SPACE_KINDS:
            if kind_name in STRUCTURE_KINDS:
                raise MapError("error.map.space_is_structure", where=where, kind=repr(kind_name))
            raise MapError("error.map.space_kind", where=where, kind=repr(kind_name),
                           known=", ".join(SPACE_KINDS))
        kind = SPACE_KINDS.index(kind_name)
        if kind == FLEXIBLE and rules != "ireland":
            raise MapError("error.map.flexible", where=where)
        rid = rs.get("region")
        if rid not in region_ix:
            raise MapError("error.map.unknown_region", where=where, id=repr(rid))
        markers = rs.get("markers", [])
        if not isinstance(markers, list) or not all(isinstance(m, str) for m in markers):
            raise MapError("error.map.markers_list", where=where)
        for m in markers:
            if m not in MARKERS:
                raise MapError("error.map.marker", where=where, marker=repr(m), known=", ".join(MARKERS))
        if len(set(markers)) != len(markers):
            raise MapError("error.map.marker_twice", where=where)
        if "port" in markers and (kind != SETTLEMENT or rules != "scotland"):
            raise MapError("error.map.port", where=where)
        if "offshore" in markers and (kind == SETTLEMENT or rules != "ireland"):
            raise MapError("error.map.offshore", where=where)
        if "blocker" in markers and kind == SETTLEMENT:
            raise MapError("error.map.blocker", where=where)
        did = rs.get("district")
        if kind == SETTLEMENT:
            if not isinstance(did, str) or not did:
                raise MapError("error.map.needs_district", where=where)
            district_members.setdefault(did, []).append(i)
        elif did is not None:
            raise MapError("error.map.district_on_farm", where=where, id=repr(did),
                           space=msg(f"space.kind.a.{kind_name}"))
        spaces.append(
            Space(
                index=i,
                hex=h,
                label=label(h),
                kind=kind,
                region=region_ix[rid],
                district=-1,
                port="port" in markers,
                offshore="offshore" in markers,
                blocker="blocker" in markers,
            )
        )

    by_hex = {s.hex: s.index for s in spaces}
    nbrs = tuple(
        tuple(by_hex[n] for n in neighbours(s.hex) if n in by_hex) for s in spaces
    )

    raw_dnames = data.get("districts", {})
    if not isinstance(raw_dnames, dict):
        raise MapError("error.map.districts_object")
    for did in raw_dnames:
        if did not in district_members:
            raise MapError("error.map.district_empty", id=repr(did))
    districts: list[District] = []
    district_of = [-1] * len(spaces)
    for did, members in district_members.items():
        size = len(members)
        if size > MAX_DISTRICT[rules]:
            raise MapError("error.map.district_size", id=repr(did), size=size,
                           rules=msg(f"error.map.rules.{rules}"), most=MAX_DISTRICT[rules])
        # Connectivity by flood fill over settlement neighbours of the same district.
        member_set = set(members)
        stack, reached = [members[0]], {members[0]}
        while stack:
            cur = stack.pop()
            for n in nbrs[cur]:
                if n in member_set and n not in reached:
                    reached.add(n)
                    stack.append(n)
        if reached != member_set:
            lost = sorted(member_set - reached)
            raise MapError("error.map.district_cut", id=repr(did), lost=at(spaces[lost[0]].hex),
                           first=at(spaces[members[0]].hex))
        dname = (
            _text(raw_dnames[did], _at("district", id=repr(did)))
            if did in raw_dnames
            else same_text(did.replace("_", " ").title())
        )
        for m in members:
            district_of[m] = len(districts)
        districts.append(District(len(districts), did, dname, tuple(members)))
    spaces = [
        Space(s.index, s.hex, s.label, s.kind, s.region, district_of[s.index], s.port,
              s.offshore, s.blocker)
        for s in spaces
    ]

    by_kind: dict[str, list[Structure]] = {k: [] for k in STRUCTURE_KINDS}
    structure_at: dict[Hex, Structure] = {}
    for j, st in enumerate(raw_structs):
        h = hexes[len(raw_spaces) + j]
        where = at(h)
        kind_name = st.get("kind")
        if kind_name not in STRUCTURE_KINDS:
            if kind_name in SPACE_KINDS:
                raise MapError("error.map.structure_is_space", where=where, kind=repr(kind_name))
            raise MapError("error.map.structure_kind", where=where, kind=repr(kind_name))
        if kind_name == "cathedral" and rules != "scotland":
            raise MapError("error.map.cathedral", where=where)
        if kind_name == "tower" and rules != "ireland":
            raise MapError("error.map.tower", where=where)
        if st.get("markers"):
            raise MapError(f"error.map.markers_on.{kind_name}", where=where, markers=repr(st["markers"]))
        if "district" in st or "region" in st:
            raise MapError(f"error.map.no_district.{kind_name}", where=where)
        sid = _str(st, "id", where)
        if any(o.id == sid for o in by_kind[kind_name]):
            raise MapError("error.map.id_twice", where=_at(kind_name, id=repr(sid)))
        adj = tuple(by_hex[n] for n in neighbours(h) if n in by_hex)
        s = Structure(kind_name, len(by_kind[kind_name]), sid,
                      _text(st.get("name"), _at(kind_name, id=repr(sid))), h, label(h), adj)
        by_kind[kind_name].append(s)
        structure_at[h] = s

    def adj_table(items: list[Structure]) -> tuple[tuple[int, ...], ...]:
        table: list[list[int]] = [[] for _ in spaces]
        for st in items:
            for sp in st.spaces:
                table[sp].append(st.index)
        return tuple(tuple(t) for t in table)

    raw_tb = data.get("tiebreak", [])
    if not isinstance(raw_tb, list):
        raise MapError("error.map.tiebreak_list")
    tiebreak: list[tuple[str, int]] = []
    for ref in raw_tb:
        kind_name, _, sid = str(ref).partition(":")
        pool = by_kind.get(kind_name if kind_name in ("castle", "tower") else "", [])
        match = [s for s in pool if s.id == sid]
        if not match:
            raise MapError("error.map.tiebreak_ref", ref=repr(ref))
        tiebreak.append((kind_name, match[0].index))

    all_cols = [to_offset(h)[0] - col0 for h in hexes]
    board = Board(
        id=map_id,
        rules=rules,
        name=name,
        spaces=tuple(spaces),
        regions=tuple(regions),
        districts=tuple(districts),
        castles=tuple(by_kind["castle"]),
        cathedrals=tuple(by_kind["cathedral"]),
        towers=tuple(by_kind["tower"]),
        tiebreak=tuple(tiebreak),
        source=data,
        nbrs=nbrs,
        adj_castles=adj_table(by_kind["castle"]),
        adj_cathedrals=adj_table(by_kind["cathedral"]),
        adj_towers=adj_table(by_kind["tower"]),
        by_hex=by_hex,
        by_label={s.label: s.index for s in spaces},
        structure_at=structure_at,
        blockers=tuple(s.index for s in spaces if s.blocker),
        width=max(all_cols) + 1,
        height=max(rows) - row0 + 1,
    )
    if check_capacity:
        for row in board.capacity():
            if not row.ok:
                raise MapError("error.map.capacity", players=row.players,
                               settlement_spaces=row.settlement_spaces,
                               settlement_tiles=row.settlement_tiles, farm_spaces=row.farm_spaces,
                               blockers=row.blockers, farm_tiles=row.farm_tiles)
    return board


def decode_map(raw: str | bytes, *, source: str = "map") -> Any:
    """Decode map JSON (text or UTF-8 bytes) with bounded size and nesting; MapError otherwise."""
    return decode_json(raw, source, MapError, max_bytes=MAX_MAP_BYTES)


def load_board(path: str | Path, *, check_capacity: bool = True) -> Board:
    """Load and validate a map file; raises :class:`MapError` with a clear message."""
    p = Path(path)
    data = decode_map(read_regular_file(p, MAX_MAP_BYTES, MapError), source=str(p))
    return parse_board(data, check_capacity=check_capacity)


_BUILTIN: dict[str, Board] = {}


def builtin_board(name: str) -> Board:
    """One of the shipped maps (``scotland``, ``ireland``), loaded once."""
    if name not in _BUILTIN:
        if not re.match(MAP_ID, name) or name not in builtin_names():
            raise MapError("error.map.unknown", name=repr(name), shipped=", ".join(builtin_names()))
        ref = resources.files("rebirth.data").joinpath("maps", f"{name}.json")
        _BUILTIN[name] = parse_board(decode_map(ref.read_bytes(), source=f"map {name!r}"))
    return _BUILTIN[name]


def builtin_names() -> list[str]:
    """Names of the shipped maps."""
    d = resources.files("rebirth.data").joinpath("maps")
    return sorted(p.name[:-5] for p in d.iterdir() if p.name.endswith(".json"))


def resolve_board(name_or_path: str) -> Board:
    """A shipped map by name, or a map file by path (for command-line options only:
    a record's ``board`` names a shipped map, see :func:`rebirth.engine.records.replay`)."""
    if name_or_path in builtin_names():
        return builtin_board(name_or_path)
    if not os.path.lexists(name_or_path):
        shipped = ", ".join(builtin_names())
        if re.search(r"[./\\]", name_or_path):
            raise MapError("error.map.no_file", path=name_or_path, shipped=shipped)
        raise MapError("error.map.unknown_or_path", name=repr(name_or_path), shipped=shipped)
    return load_board(name_or_path)
