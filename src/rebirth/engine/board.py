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
    decode_json,
    read_regular_file,
    validate_map,
)
from rebirth.engine.hexgrid import Hex, column_letters, neighbours, to_offset
from rebirth.engine.i18n import Text

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


class MapError(ValueError):
    """A map file that cannot be used; the message names the hex or item at fault."""


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


def _text(value: Any, where: str) -> Text:
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("en"), str)
        or not isinstance(value.get("de"), str)
    ):
        raise MapError(f"{where}: 'name' must be an object with 'en' and 'de' strings")
    return {"en": value["en"], "de": value["de"]}


def _int(obj: dict[str, Any], key: str, where: str) -> int:
    v = obj.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise MapError(f"{where}: '{key}' must be an integer")
    return v


def _str(obj: dict[str, Any], key: str, where: str) -> str:
    v = obj.get(key)
    if not isinstance(v, str) or not v:
        raise MapError(f"{where}: '{key}' must be a non-empty string")
    return v


def parse_board(data: Any, *, check_capacity: bool = True) -> Board:
    """Validate a decoded map file and compile it; raises :class:`MapError`.

    The typed schema (:class:`rebirth.engine.formats.MapModel`) is checked first,
    so the checks below see well-typed data of bounded size.
    """
    if not isinstance(data, dict):
        raise MapError("map: the file must hold a JSON object")
    try:
        validate_map(data)
    except ValueError as exc:
        raise MapError(str(exc)) from None
    if data.get("format") != FORMAT:
        raise MapError(f"map: 'format' must be {FORMAT!r}, got {data.get('format')!r}")
    if data.get("version") != FORMAT_VERSION:
        raise MapError(
            f"map: unsupported version {data.get('version')!r} (this engine reads {FORMAT_VERSION})"
        )
    map_id = _str(data, "id", "map")
    rules = _str(data, "rules", "map")
    if rules not in RULE_SETS:
        raise MapError(f"map: unknown rule set {rules!r} (expected one of {', '.join(RULE_SETS)})")
    name = _text(data.get("name"), "map")

    raw_regions = data.get("regions")
    if not isinstance(raw_regions, list) or not raw_regions:
        raise MapError("map: 'regions' must be a non-empty list")
    regions: list[Region] = []
    region_ix: dict[str, int] = {}
    for i, rr in enumerate(raw_regions):
        where = f"region #{i + 1}"
        if not isinstance(rr, dict):
            raise MapError(f"{where}: must be an object")
        rid = _str(rr, "id", where)
        if rid in region_ix:
            raise MapError(f"region {rid!r}: defined twice")
        region_ix[rid] = len(regions)
        regions.append(Region(len(regions), rid, _text(rr.get("name"), f"region {rid!r}")))

    raw_spaces = data.get("spaces")
    raw_structs = data.get("structures", [])
    if not isinstance(raw_spaces, list) or not raw_spaces:
        raise MapError("map: 'spaces' must be a non-empty list")
    if not isinstance(raw_structs, list):
        raise MapError("map: 'structures' must be a list")

    # Labels need the whole extent first.
    hexes: list[Hex] = []
    for i, item in enumerate([*raw_spaces, *raw_structs]):
        where = f"{'space' if i < len(raw_spaces) else 'structure'} #{i + 1}"
        if not isinstance(item, dict):
            raise MapError(f"{where}: must be an object")
        hexes.append((_int(item, "q", where), _int(item, "r", where)))
    cols = [to_offset(h)[0] for h in hexes]
    rows = [h[1] for h in hexes]
    col0, row0 = min(cols), min(rows)
    # The extent bound keeps every label in the form actions parse back (at most
    # two column letters, three row digits) and the terminal rendering small.
    span = (max(cols) - col0 + 1, max(rows) - row0 + 1)
    if max(span) > MAX_EXTENT:
        raise MapError(f"map: it spans {span[0]} columns x {span[1]} rows; "
                       f"at most {MAX_EXTENT} x {MAX_EXTENT} fit a terminal")

    def label(h: Hex) -> str:
        c, r = to_offset(h)
        return f"{column_letters(c - col0)}{r - row0 + 1}"

    def at(h: Hex) -> str:
        return f"hex {label(h)} (q={h[0]}, r={h[1]})"

    seen: dict[Hex, str] = {}
    for i, h in enumerate(hexes):
        what = "space" if i < len(raw_spaces) else "structure"
        if h in seen:
            raise MapError(f"{at(h)}: duplicate hex ({seen[h]} and {what})")
        seen[h] = what

    spaces: list[Space] = []
    district_members: dict[str, list[int]] = {}
    for i, rs in enumerate(raw_spaces):
        h = hexes[i]
        where = at(h)
        kind_name = rs.get("kind")
        if kind_name not in SPACE_KINDS:
            if kind_name in STRUCTURE_KINDS:
                raise MapError(f"{where}: {kind_name!r} is a structure; list it under 'structures'")
            raise MapError(
                f"{where}: unknown space kind {kind_name!r} (expected one of {', '.join(SPACE_KINDS)})"
            )
        kind = SPACE_KINDS.index(kind_name)
        if kind == FLEXIBLE and rules != "ireland":
            raise MapError(f"{where}: 'flexible' spaces exist only on Ireland")
        rid = rs.get("region")
        if rid not in region_ix:
            raise MapError(f"{where}: unknown region {rid!r}")
        markers = rs.get("markers", [])
        if not isinstance(markers, list) or not all(isinstance(m, str) for m in markers):
            raise MapError(f"{where}: 'markers' must be a list of strings")
        for m in markers:
            if m not in MARKERS:
                raise MapError(
                    f"{where}: unknown marker {m!r} (expected one of {', '.join(MARKERS)})"
                )
        if len(set(markers)) != len(markers):
            raise MapError(f"{where}: a marker is listed twice")
        if "port" in markers and (kind != SETTLEMENT or rules != "scotland"):
            raise MapError(f"{where}: a port can only be on a Scotland settlement space")
        if "offshore" in markers and (kind == SETTLEMENT or rules != "ireland"):
            raise MapError(f"{where}: 'offshore' can only be on an Ireland farm space")
        if "blocker" in markers and kind == SETTLEMENT:
            raise MapError(f"{where}: a blocker can never be on a settlement space")
        did = rs.get("district")
        if kind == SETTLEMENT:
            if not isinstance(did, str) or not did:
                raise MapError(f"{where}: a settlement space needs a 'district'")
            district_members.setdefault(did, []).append(i)
        elif did is not None:
            raise MapError(
                f"{where}: district {did!r} on a {kind_name} space (districts are settlement spaces)"
            )
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
        raise MapError("map: 'districts' must be an object of display names")
    for did in raw_dnames:
        if did not in district_members:
            raise MapError(f"district {did!r}: named but has no settlement space")
    districts: list[District] = []
    district_of = [-1] * len(spaces)
    for did, members in district_members.items():
        size = len(members)
        if size > MAX_DISTRICT[rules]:
            raise MapError(
                f"district {did!r}: {size} spaces, but {rules} allows at most {MAX_DISTRICT[rules]}"
            )
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
            raise MapError(
                f"district {did!r}: its spaces are not connected ({at(spaces[lost[0]].hex)} "
                f"is cut off from {at(spaces[members[0]].hex)})"
            )
        dname = (
            _text(raw_dnames[did], f"district {did!r}")
            if did in raw_dnames
            else {"en": did.replace("_", " ").title(), "de": did.replace("_", " ").title()}
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
                raise MapError(f"{where}: {kind_name!r} is a tile space; list it under 'spaces'")
            raise MapError(f"{where}: unknown structure kind {kind_name!r}")
        if kind_name == "cathedral" and rules != "scotland":
            raise MapError(f"{where}: cathedrals exist only on Scotland")
        if kind_name == "tower" and rules != "ireland":
            raise MapError(f"{where}: round towers exist only on Ireland")
        if st.get("markers"):
            raise MapError(f"{where}: a {kind_name} cannot carry markers ({st['markers']!r})")
        if "district" in st or "region" in st:
            raise MapError(f"{where}: a {kind_name} has no district or region")
        sid = _str(st, "id", where)
        if any(o.id == sid for o in by_kind[kind_name]):
            raise MapError(f"{kind_name} {sid!r}: id used twice")
        adj = tuple(by_hex[n] for n in neighbours(h) if n in by_hex)
        s = Structure(kind_name, len(by_kind[kind_name]), sid,
                      _text(st.get("name"), f"{kind_name} {sid!r}"), h, label(h), adj)
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
        raise MapError("map: 'tiebreak' must be a list")
    tiebreak: list[tuple[str, int]] = []
    for ref in raw_tb:
        kind_name, _, sid = str(ref).partition(":")
        pool = by_kind.get(kind_name if kind_name in ("castle", "tower") else "", [])
        match = [s for s in pool if s.id == sid]
        if not match:
            raise MapError(f"tiebreak: unknown reference {ref!r} (use castle:ID or tower:ID)")
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
                raise MapError(
                    f"capacity (S-9) fails for {row.players} players: "
                    f"{row.settlement_spaces} settlement spaces for {row.settlement_tiles} "
                    f"settlement tiles, {row.farm_spaces} farm spaces - {row.blockers} blockers "
                    f"for {row.farm_tiles} farm tiles"
                )
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
            raise MapError(f"unknown map {name!r} (shipped maps: {', '.join(builtin_names())})")
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
            raise MapError(f"{name_or_path}: no such map file (shipped maps: {shipped})")
        raise MapError(f"unknown map {name_or_path!r} (shipped maps: {shipped}; "
                       "or give the path of a map file)")
    return load_board(name_or_path)
