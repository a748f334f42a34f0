"""Typed schemas of the two file formats: game records and maps (pydantic v2).

The models refuse, by construction, every ill-typed document: unknown keys,
booleans or floats where integers belong, numbers out of range, strings or
lists too long. Loaders validate with these models first and run their
semantic checks (legal moves, connected districts, capacity...) afterwards, on
data whose shape is then known. Sizes are bounded so that no input can hang a
loader or exhaust memory; every error message names the field at fault, e.g.
``record: actions[3].seat: must be an integer, got True``. Every message is a catalog key
plus arguments (:class:`FormatError`, a :class:`~rebirth.engine.messages.UserError`), so it reads
in every language; pydantic's own error kinds are mapped to keys by :func:`fault`.

Models stay free of engine imports other than the message catalogs and the language registry
(board and records import this module).
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

from rebirth.engine.i18n import is_language
from rebirth.engine.messages import UserError, msg

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


class FormatError(UserError):
    """A file or field that does not fit its format: a catalog key plus arguments.

    Raised inside the models' validators (pydantic keeps it, see :func:`fault`) and by the
    decoders; callers re-raise it as their own error class with the same message."""


def _shown(value: Any) -> str:
    """A refused input as the message shows it: its repr, cut to 40 characters."""
    got = repr(value)
    return got[:40] + "..." if len(got) > 40 else got


def _only_one(v: int) -> int:
    if v != 1:
        raise FormatError("error.format.version", version=v)
    return v


def printable(text: str) -> bool:
    """Text that prints safely on a terminal and through rich: no markup brackets,
    no backslash (rich's escape), no control or format characters."""
    return not any(c in "[]\\" or unicodedata.category(c)[0] == "C" for c in text)


def _printable(v: str) -> str:
    if not printable(v):
        raise FormatError("error.format.unprintable", text=repr(v[:40]))
    return v


def _tile(v: str) -> str:
    if v not in TILE_CODES:
        raise FormatError("error.format.unknown_tile", tile=repr(v), known=", ".join(TILE_CODES))
    return v


Version = Annotated[int, AfterValidator(_only_one)]
Seat = Annotated[int, Field(ge=0, le=3)]
Coord = Annotated[int, Field(ge=-COORD_LIMIT, le=COORD_LIMIT)]
Id = Annotated[str, Field(pattern=ITEM_ID)]
Name = Annotated[str, Field(max_length=200), AfterValidator(_printable)]
Tile = Annotated[str, AfterValidator(_tile)]
Points = Annotated[int, Field(ge=-10_000, le=10_000)]


class TextModel(BaseModel):
    """A display text: English, and any other declared language (data/i18n/languages.json;
    English where one is missing)."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)
    en: Name
    __pydantic_extra__: dict[str, Name] = Field(init=False)  # the other languages' texts

    @model_validator(mode="after")
    def _declared_languages(self) -> Self:
        unknown = sorted(k for k in self.model_extra or {} if not is_language(k))
        if unknown:
            raise FormatError("error.unknown_keys", value=", ".join(map(repr, unknown[:5])))
        return self


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
            raise FormatError("error.format.too_many_hexes", n=n, most=MAX_HEXES)
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
                raise FormatError("error.format.chance_only")
            if not self.CHANCE.match(self.chance):
                raise FormatError("error.format.unknown_chance", outcome=repr(self.chance),
                                  expected=self.EXPECTED)
        elif self.seat is None or self.action is None:
            raise FormatError("error.format.action_shape")
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
                _fail(f"players[{i}].seat", "error.format.seat_order", seat=i)
        if start_player >= n:
            _fail("setup.start_player", "error.format.not_a_seat", seat=start_player, last=n - 1)
        for i, seat in enumerate(seats):
            if seat is not None and seat >= n:
                _fail(f"actions[{i}].seat", "error.format.not_a_seat", seat=seat, last=n - 1)
        if result is not None:
            if len(result.scores) != n or len(result.breakdown) != n:
                _fail("result", "error.format.result_per_player", n=n)
            for i, w in enumerate(result.winners):
                if w >= n:
                    _fail(f"result.winners[{i}]", "error.format.not_a_seat", seat=w, last=n - 1)
            if len(set(result.winners)) != len(result.winners):
                _fail("result.winners", "error.format.seat_twice")


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
                _fail(f"setup.{key}", "error.format.list_per_player", n=n)
        if self.actions and self.actions[0].chance is not None:
            _fail("actions[0]", "error.format.chance_first")
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


class _FieldFault(FormatError):
    """A model-level check that names its own field (see :func:`fault`)."""

    def __init__(self, where: str, key: str, /, **args: Any) -> None:
        super().__init__(key, **args)
        self.where = where

    def __reduce__(self) -> tuple[Any, ...]:
        # Its own arguments, not BaseException's (key,): it unpickles in another process.
        return (_field_fault, (self.where, self.key, self.params))


def _field_fault(where: str, key: str, params: dict[str, Any]) -> _FieldFault:
    return _FieldFault(where, key, **params)


def _fail(where: str, key: str, /, **args: Any) -> NoReturn:
    raise _FieldFault(where, key, **args)


# --- decoding and messages ----------------------------------------------------------------------


def _loc(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


_TYPE_KEYS = {
    "int_type": "int", "string_type": "string", "list_type": "list", "dict_type": "object",
    "model_type": "object", "bool_type": "bool",
}
"""pydantic's type errors: the catalog key ``error.format.type.<word>`` (with the input got)."""
_LIMIT_KEYS = {
    "greater_than_equal": "ge", "less_than_equal": "le", "greater_than": "gt", "less_than": "lt",
    "too_short": "min_length", "too_long": "max_length",
    "string_too_short": "min_length", "string_too_long": "max_length",
    "string_pattern_mismatch": "pattern",
}
"""pydantic's limit errors: the key ``error.format.<kind>`` and the one ``ctx`` value it names."""


def field_fault(error: Any) -> tuple[str, dict[str, Any]]:
    """(field path, message value) of one pydantic error (an item of ``exc.errors()``): the
    shape pydantic found wrong as a catalog message, for files and request bodies alike."""
    where = _loc(tuple(error["loc"]))
    kind = str(error["type"])
    ctx = error.get("ctx") or {}
    cause = ctx.get("error")
    if isinstance(cause, _FieldFault):  # a model-level check that names its field itself
        return cause.where, msg(cause.key, **cause.params)
    if isinstance(cause, UserError):  # a field validator's own message
        return where, msg(cause.key, **cause.params)
    if kind in _TYPE_KEYS:
        return where, msg(f"error.format.type.{_TYPE_KEYS[kind]}", got=_shown(error.get("input")))
    if kind in ("missing", "extra_forbidden"):
        return where, msg(f"error.format.{kind}")
    if kind == "literal_error":
        return where, msg("error.format.literal_error", expected=str(ctx.get("expected", "")),
                          got=repr(error.get("input"))[:40])
    if kind in ("too_short", "too_long") and ctx.get("field_type") != "List":
        kind = "invalid"  # a dictionary's size: pydantic's words below
    if kind in _LIMIT_KEYS and _LIMIT_KEYS[kind] in ctx:
        return where, msg(f"error.format.{kind}", limit=str(ctx[_LIMIT_KEYS[kind]]))
    # Any other kind (none of the formats' models produces one today): pydantic's own
    # English words inside a sentence of the catalog.
    text = str(error["msg"])
    return where, msg("error.format.invalid", text=text[0].lower() + text[1:] if text else kind)


def fault(exc: ValidationError, what: str) -> FormatError:
    """The first fault of a validation error (and the next one, if any), as one message
    prefixed with ``what`` (``record``, ``map``): ``record: actions[3].seat: must be ...``."""
    errors = exc.errors(include_url=False)
    where, why = field_fault(errors[0])
    key, args = ("error.format.at", {"what": what_text(what), "where": where, "why": why}) if where \
        else ("error.format.whole", {"what": what_text(what), "why": why})
    if len(errors) > 1:
        w2, m2 = field_fault(errors[1])
        more = msg("error.format.more_n", n=len(errors) - 1) if len(errors) > 2 \
            else msg("error.format.more_1")
        first = msg(key, **args)
        if w2:
            return FormatError("error.format.and_more_eg", first=first, more=more, where=w2, why=m2)
        return FormatError("error.format.and_more", first=first, more=more)
    return FormatError(key, **args)


def describe(exc: ValidationError, what: str) -> str:
    """:func:`fault` as an English line (for logs and older callers)."""
    return str(fault(exc, what))


def _no_constant(name: str) -> NoReturn:
    raise FormatError("error.format.json_constant", name=name)


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_NUMBER_DIGITS:
        raise FormatError("error.format.json_digits", digits=digits, most=MAX_NUMBER_DIGITS)
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


WHATS = ("record", "map", "file", "missions", "tokens", "position")
"""The words a message may start with (``record: ...``): each has a catalog key
``error.format.what.<word>``; any other ``what`` (a file path) is shown as it is."""


def what_text(what: str) -> str | dict[str, Any]:
    """``what`` as a message value: a translated word or, for a path, the path."""
    return msg(f"error.format.what.{what}") if what in WHATS else what


ErrorClass = Callable[..., Exception]
"""An error class called as ``error(key, **args)`` (a :class:`UserError` subclass)."""


def decode_json(raw: str | bytes, what: str, error: ErrorClass, *, max_bytes: int) -> Any:
    """Decode JSON text or UTF-8 bytes with bounded size, nesting and numbers.

    Every fault raises ``error(key, **args)``: invalid UTF-8, too large, too deep, a
    number too long, NaN/Infinity, or malformed JSON.
    """
    w = what_text(what)
    if isinstance(raw, bytes | bytearray):
        if len(raw) > max_bytes:
            raise error("error.format.too_many_bytes", what=w, n=len(raw), most=max_bytes)
        try:
            text = bytes(raw).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise error("error.format.not_utf8", what=w, byte=exc.start) from None
    else:
        text = raw
        if len(text) > max_bytes:
            raise error("error.format.too_many_chars", what=w, n=len(text), most=max_bytes)
    if text.startswith("\ufeff"):  # a byte-order mark some editors write
        text = text[1:]
    if (d := _depth(text)) > MAX_DEPTH:
        raise error("error.format.too_deep", what=w, depth=d, most=MAX_DEPTH)
    try:
        return json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise error("error.format.not_json", what=w, line=exc.lineno, column=exc.colno) from None
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise error("error.format.too_deep_at_all", what=w) from None
    except ValueError as exc:
        raise error("error.format.not_json_because", what=w, reason=exc) from None


def read_regular_file(path: str | os.PathLike[str], limit: int,
                      error: ErrorClass, *, what: str | None = None) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; ``error(key, **args)`` otherwise.

    Opened non-blocking and checked with fstat before reading, so a FIFO cannot
    hang and a device such as /dev/zero cannot fill memory.
    """
    name = what_text(str(path) if what is None else what)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise error("error.format.cannot_read", what=name, reason=exc.strerror or "") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error("error.format.not_regular", what=name)
        if st.st_size > limit:
            raise error("error.format.too_many_bytes", what=name, n=st.st_size, most=limit)
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # the file grew while being read
                raise error("error.format.grew", what=name, most=limit)
        return b"".join(chunks)
    except OSError as exc:
        raise error("error.format.cannot_read", what=name, reason=exc.strerror or "") from None
    finally:
        os.close(fd)


def validate_map(data: Any) -> MapModel:
    """``data`` as a :class:`MapModel`; :class:`FormatError` (naming the field) otherwise."""
    try:
        return MapModel.model_validate(data)
    except ValidationError as exc:
        raise fault(exc, "map") from None


def validate_record(data: Any) -> RecordModel | TableRecordModel:
    """``data`` as a :class:`RecordModel` (or, with ``"table": true``, a
    :class:`TableRecordModel`); :class:`FormatError` (naming the field) otherwise."""
    try:
        if isinstance(data, dict) and data.get("table") is True:
            return TableRecordModel.model_validate(data)
        return RecordModel.model_validate(data)
    except ValidationError as exc:
        raise fault(exc, "record") from None
