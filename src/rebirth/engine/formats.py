"""Typed schemas of the two file formats: game records and maps (pydantic v2).

The models refuse, by construction, every ill-typed document: unknown keys,
booleans or floats where integers belong, numbers out of range, strings or
lists too long. Loaders validate with these models first and run their
semantic checks (legal moves, connected districts, capacity...) afterwards, on
data whose shape is then known. Sizes are bounded so that no input can hang a
loader or exhaust memory; every error message names the field at fault, e.g.
``record: actions[3].seat: must be an integer, got True``.

Models stay free of engine imports (board and records import this module).
"""

from __future__ import annotations

import json
import os
import re
import stat
import unicodedata
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal, NoReturn, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

# --- limits -------------------------------------------------------------------------------------

MAX_RECORD_BYTES = 2_000_000
"""A finished 4-player game is about 15 kB; anything far larger is not a record."""
MAX_MAP_BYTES = 2_000_000
MAX_DEPTH = 32
"""Nesting depth of JSON arrays and objects; the formats need at most 5."""
MAX_NUMBER_DIGITS = 160
"""Digits in one JSON number (a 512-bit seed has 155)."""
COORD_LIMIT = 200
"""|q| and |r| of every hex; with it every label has at most two column letters and
three row digits (the form actions parse back)."""
MAX_EXTENT = 150
"""Columns and rows a map may span (the shipped maps span 26 x 26): bounds the
terminal rendering, which walks every cell of the rectangle."""
MAX_HEXES = 2_000
"""Spaces plus structures of one map (the shipped maps have under 200)."""
MAX_ACTIONS = 3_000
"""Entries in a record's action list (a 4-player game has under 400)."""
MAP_ID = r"^[a-z0-9][a-z0-9_-]{0,39}$"
"""A map id: it names shipped files, so no dots, slashes or capitals."""
ITEM_ID = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$"
"""Ids of regions, districts, castles, towers, cards and tokens."""
TILE_CODES = ("E", "F", "S1", "S2", "S3", "S4")

_STRICT = ConfigDict(strict=True, extra="forbid", frozen=True)


def _only_one(v: int) -> int:
    if v != 1:
        raise ValueError(f"unsupported version {v} (this engine reads version 1)")
    return v


def printable(text: str) -> bool:
    """Text that prints safely on a terminal and through rich: no markup brackets,
    no backslash (rich's escape), no control or format characters."""
    return not any(c in "[]\\" or unicodedata.category(c)[0] == "C" for c in text)


def _printable(v: str) -> str:
    if not printable(v):
        raise ValueError(f"{v[:40]!r} has [ ] \\ or control characters, which cannot be shown")
    return v


def _tile(v: str) -> str:
    if v not in TILE_CODES:
        raise ValueError(f"unknown tile {v!r} (expected one of {', '.join(TILE_CODES)})")
    return v


Version = Annotated[int, AfterValidator(_only_one)]
Seat = Annotated[int, Field(ge=0, le=3)]
Coord = Annotated[int, Field(ge=-COORD_LIMIT, le=COORD_LIMIT)]
Id = Annotated[str, Field(pattern=ITEM_ID)]
Name = Annotated[str, Field(max_length=200), AfterValidator(_printable)]
Tile = Annotated[str, AfterValidator(_tile)]
Points = Annotated[int, Field(ge=-10_000, le=10_000)]


class TextModel(BaseModel):
    """A display text in English and German."""

    model_config = _STRICT
    en: Name
    de: Name


# --- maps ---------------------------------------------------------------------------------------


class RegionModel(BaseModel):
    """A region (Scotland) or province (Ireland)."""

    model_config = _STRICT
    id: Id
    name: TextModel


class SpaceModel(BaseModel):
    """A tile space; kinds, markers and references are checked by the board loader."""

    model_config = _STRICT
    q: Coord
    r: Coord
    kind: Annotated[str, Field(max_length=20)]
    region: Annotated[str, Field(max_length=40)]
    district: Id | None = None
    markers: Annotated[list[Annotated[str, Field(max_length=20)]], Field(max_length=3)] = []


class StructureModel(BaseModel):
    """A castle, cathedral or tower. ``markers``, ``district`` and ``region`` are
    accepted here only so that the board loader can say why they are wrong."""

    model_config = _STRICT
    kind: Annotated[str, Field(max_length=20)]
    id: Id
    q: Coord
    r: Coord
    name: TextModel
    markers: Annotated[list[Annotated[str, Field(max_length=20)]], Field(max_length=3)] | None = None
    district: Annotated[str, Field(max_length=40)] | None = None
    region: Annotated[str, Field(max_length=40)] | None = None


class MapModel(BaseModel):
    """A map file, format ``rebirth-map`` version 1 (docs/maps.md)."""

    model_config = _STRICT
    format: Literal["rebirth-map"]
    version: Version
    id: Annotated[str, Field(pattern=MAP_ID)]
    rules: Literal["scotland", "ireland"]
    name: TextModel
    regions: Annotated[list[RegionModel], Field(min_length=1, max_length=100)]
    structures: Annotated[list[StructureModel], Field(max_length=MAX_HEXES)] = []
    spaces: Annotated[list[SpaceModel], Field(min_length=1, max_length=MAX_HEXES)]
    districts: Annotated[dict[Id, TextModel],
                         Field(max_length=MAX_HEXES)] = {}
    tiebreak: Annotated[list[Annotated[str, Field(max_length=60)]], Field(max_length=20)] = []

    @model_validator(mode="after")
    def _size(self) -> MapModel:
        n = len(self.spaces) + len(self.structures)
        if n > MAX_HEXES:
            raise ValueError(f"{n} hexes (spaces and structures); a map may have at most {MAX_HEXES}")
        return self


# --- records ------------------------------------------------------------------------------------


class PlayerModel(BaseModel):
    """One seat of a record."""

    model_config = _STRICT
    seat: Seat
    name: Annotated[str, Field(max_length=100), AfterValidator(_printable)]
    kind: Annotated[str, Field(max_length=40), AfterValidator(_printable)]


class SetupModel(BaseModel):
    """The setup as dealt; deck and token ids are checked against the game's cards."""

    model_config = _STRICT
    start_player: Seat
    supplies: Annotated[list[Annotated[list[Tile], Field(max_length=40)]], Field(min_length=2, max_length=4)]
    set_aside: Annotated[list[Annotated[list[Tile], Field(max_length=40)]], Field(min_length=2, max_length=4)]
    mission_deck: Annotated[list[Id], Field(max_length=200)]
    display: Annotated[list[Id], Field(max_length=200)] = []
    tower_tokens: Annotated[list[Id], Field(max_length=200)] = []


class ActionModel(BaseModel):
    """One entry of ``actions``: ``{"seat", "action"}`` or a chance outcome ``{"chance"}``."""

    model_config = _STRICT
    CHANCE: ClassVar[re.Pattern[str]] = re.compile(r"^reveal (E|F|S[1-4])$")
    EXPECTED: ClassVar[str] = "'reveal TILE'"
    seat: Seat | None = None
    action: Annotated[str, Field(min_length=1, max_length=20)] | None = None
    chance: Annotated[str, Field(max_length=20)] | None = None

    @model_validator(mode="after")
    def _shape(self) -> Self:
        if self.chance is not None:
            if self.seat is not None or self.action is not None:
                raise ValueError("a chance entry has only the key 'chance'")
            if not self.CHANCE.match(self.chance):
                raise ValueError(f"unknown chance outcome {self.chance!r} (expected {self.EXPECTED})")
        elif self.seat is None or self.action is None:
            raise ValueError("an action needs 'seat' and 'action' (or a chance entry 'chance')")
        return self


class ResultModel(BaseModel):
    """The result of a finished game."""

    model_config = _STRICT
    scores: Annotated[list[Points], Field(min_length=2, max_length=4)]
    breakdown: Annotated[list[Annotated[dict[Annotated[str, Field(max_length=40)], Points],
                                        Field(max_length=20)]], Field(min_length=2, max_length=4)]
    winners: Annotated[list[Seat], Field(min_length=1, max_length=4)]


class RecordHeader(BaseModel):
    """The fields every record starts with (normal and table games)."""

    model_config = _STRICT
    format: Literal["rebirth-record"]
    version: Version
    engine: Annotated[str, Field(max_length=40)] | None = None
    board: Annotated[str, Field(pattern=MAP_ID)]
    map_digest: Annotated[str, Field(pattern=r"^[0-9a-f]{16}$")] | None = None
    players: Annotated[list[PlayerModel], Field(min_length=2, max_length=4)]
    variants: Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=20)] = []

    def check_seats(self, start_player: int, seats: list[int | None], result: ResultModel | None) -> None:
        """Seats listed in order; the start player, every acting seat and the result fit."""
        n = len(self.players)
        for i, p in enumerate(self.players):
            if p.seat != i:
                _fail(f"players[{i}].seat", f"must be {i} (seats are listed in order)")
        if start_player >= n:
            _fail("setup.start_player", f"{start_player} is not a seat of 0..{n - 1}")
        for i, seat in enumerate(seats):
            if seat is not None and seat >= n:
                _fail(f"actions[{i}].seat", f"{seat} is not a seat of 0..{n - 1}")
        if result is not None:
            if len(result.scores) != n or len(result.breakdown) != n:
                _fail("result", f"'scores' and 'breakdown' must have one entry per player ({n})")
            for i, w in enumerate(result.winners):
                if w >= n:
                    _fail(f"result.winners[{i}]", f"{w} is not a seat of 0..{n - 1}")
            if len(set(result.winners)) != len(result.winners):
                _fail("result.winners", "a seat is listed twice")


class ChatEntryModel(BaseModel):
    """One chat message of a record (present only when the game's creator chose to export the
    chat). The text is as typed: a reader shows it as text, never as markup."""

    model_config = _STRICT
    seq: Annotated[int, Field(ge=1, le=1_000_000)]
    seat: Seat | None
    role: Literal["player", "spectator"]
    name: Annotated[str, Field(max_length=64)]
    text: Annotated[str, Field(min_length=1, max_length=500)]
    at: Annotated[float, Field(ge=0)]


class RecordModel(RecordHeader):
    """A game record, format ``rebirth-record`` version 1 (docs/records.md)."""

    # A seed is information only (the setup counts); room for a secret of up to 512 bits.
    seed: Annotated[int, Field(ge=-(2**512), le=2**512)] | None = None
    setup: SetupModel
    actions: Annotated[list[ActionModel], Field(max_length=MAX_ACTIONS)]
    result: ResultModel | None = None
    chat: Annotated[list[ChatEntryModel], Field(max_length=100_000)] | None = None

    @model_validator(mode="after")
    def _seats(self) -> RecordModel:
        self.check_seats(self.setup.start_player, [a.seat for a in self.actions], self.result)
        n = len(self.players)
        for key in ("supplies", "set_aside"):
            if len(getattr(self.setup, key)) != n:
                _fail(f"setup.{key}", f"must have one list per player ({n})")
        if self.actions and self.actions[0].chance is not None:
            _fail("actions[0]", "a chance outcome cannot come before the first action")
        return self


class TableSetupModel(BaseModel):
    """A table game's setup: no supplies (they are counts), only what the table entered."""

    model_config = _STRICT
    start_player: Seat
    display: Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=12)] = []
    tower_tokens: Annotated[list[Annotated[str, Field(max_length=40)] | None],
                            Field(max_length=40)] | None = None


class TableActionModel(ActionModel):
    """An entry of a table game: a placement naming its tile (``S3@H7``), an x2 mark, a
    discard, or an entered outcome (``reveal S2``, ``token points3a``, ``card S05``)."""

    CHANCE: ClassVar[re.Pattern[str]] = re.compile(
        r"^(reveal (E|F|S[1-4])|token [A-Za-z0-9_-]{1,40}|card [A-Za-z0-9_-]{1,40})$")
    EXPECTED: ClassVar[str] = "'reveal TILE', 'token ID' or 'card ID'"
    action: Annotated[str, Field(min_length=1, max_length=48)] | None = None
    chance: Annotated[str, Field(max_length=48)] | None = None


class TableRecordModel(RecordHeader):
    """The record of a physical game entered at the table (``"table": true``, docs/records.md)."""

    table: Literal[True]
    setup: TableSetupModel
    actions: Annotated[list[TableActionModel], Field(max_length=MAX_ACTIONS)]
    result: ResultModel | None = None

    @model_validator(mode="after")
    def _seats(self) -> TableRecordModel:
        self.check_seats(self.setup.start_player, [a.seat for a in self.actions], self.result)
        return self


class _FieldFault(ValueError):
    """A model-level check that names its own field (see :func:`describe`)."""


def _fail(where: str, msg: str) -> NoReturn:
    raise _FieldFault(f"@{where}: {msg}")


# --- decoding and messages ----------------------------------------------------------------------


def _loc(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


_TYPE_WORDS = {
    "int_type": "must be an integer", "string_type": "must be a string",
    "list_type": "must be a list", "dict_type": "must be an object",
    "model_type": "must be an object", "bool_type": "must be true or false",
    "missing": "is required", "extra_forbidden": "is not a known key",
}


def _one(error: Any) -> tuple[str, str]:
    """(field path, message) of one pydantic error."""
    where = _loc(tuple(error["loc"]))
    kind = error["type"]
    msg = str(error["msg"])
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    if msg.startswith("@"):  # a model-level check that names its field itself
        where, _, msg = msg[1:].partition(": ")
    elif kind in _TYPE_WORDS:
        msg = _TYPE_WORDS[kind]
        if kind not in ("missing", "extra_forbidden"):
            got = repr(error.get("input"))
            msg += f", got {got[:40] + '...' if len(got) > 40 else got}"
    elif kind == "literal_error":
        msg = f"{msg[0].lower()}{msg[1:]}, got {repr(error.get('input'))[:40]}"
    else:
        msg = msg[0].lower() + msg[1:]
    return where, msg


def describe(exc: ValidationError, what: str) -> str:
    """One line naming the first fault of a validation error (and the next one, if
    any), prefixed with ``what``."""
    errors = exc.errors(include_url=False)
    where, msg = _one(errors[0])
    line = f"{what}: {where}: {msg}" if where else f"{what}: {msg}"
    if len(errors) > 1:
        w2, m2 = _one(errors[1])
        others = f"{len(errors) - 1} more" if len(errors) > 2 else "1 more"
        line += f" (and {others}, e.g. {w2}: {m2})" if w2 else f" (and {others})"
    return line


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a number JSON allows")


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number with {digits} digits (at most {MAX_NUMBER_DIGITS})")
    return int(text)


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


def _depth(text: str) -> int:
    depth = deepest = 0
    for ch in _BRACKETS.findall(_STRINGS.sub("", text)):
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def decode_json(raw: str | bytes, what: str, error: Callable[[str], Exception],
                *, max_bytes: int) -> Any:
    """Decode JSON text or UTF-8 bytes with bounded size, nesting and numbers.

    Every fault raises ``error(message)``: invalid UTF-8, too large, too deep, a
    number too long, NaN/Infinity, or malformed JSON.
    """
    if isinstance(raw, bytes | bytearray):
        if len(raw) > max_bytes:
            raise error(f"{what}: {len(raw)} bytes is too large (at most {max_bytes})")
        try:
            text = bytes(raw).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise error(f"{what}: not valid UTF-8 text (byte {exc.start})") from None
    else:
        text = raw
        if len(text) > max_bytes:
            raise error(f"{what}: {len(text)} characters is too large (at most {max_bytes})")
    if text.startswith("\ufeff"):  # a byte-order mark some editors write
        text = text[1:]
    if (d := _depth(text)) > MAX_DEPTH:
        raise error(f"{what}: nested {d} levels deep (at most {MAX_DEPTH})")
    try:
        return json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise error(f"{what}: not valid JSON (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise error(f"{what}: nested too deeply") from None
    except ValueError as exc:
        raise error(f"{what}: not valid JSON ({exc})") from None


def read_regular_file(path: str | os.PathLike[str], limit: int,
                      error: Callable[[str], Exception], *, what: str | None = None) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; ``error(message)`` otherwise.

    Opened non-blocking and checked with fstat before reading, so a FIFO cannot
    hang and a device such as /dev/zero cannot fill memory.
    """
    name = str(path) if what is None else what
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise error(f"{name}: cannot read ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{name}: not a regular file")
        if st.st_size > limit:
            raise error(f"{name}: {st.st_size} bytes is too large (at most {limit})")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # the file grew while being read
                raise error(f"{name}: too large (at most {limit} bytes)")
        return b"".join(chunks)
    except OSError as exc:
        raise error(f"{name}: cannot read ({exc.strerror})") from None
    finally:
        os.close(fd)


def validate_map(data: Any) -> MapModel:
    """``data`` as a :class:`MapModel`; ValueError(message naming the field) otherwise."""
    try:
        return MapModel.model_validate(data)
    except ValidationError as exc:
        raise ValueError(describe(exc, "map")) from None


def validate_record(data: Any) -> RecordModel | TableRecordModel:
    """``data`` as a :class:`RecordModel` (or, with ``"table": true``, a
    :class:`TableRecordModel`); ValueError(message naming the field) otherwise."""
    try:
        if isinstance(data, dict) and data.get("table") is True:
            return TableRecordModel.model_validate(data)
        return RecordModel.model_validate(data)
    except ValidationError as exc:
        raise ValueError(describe(exc, "record")) from None
