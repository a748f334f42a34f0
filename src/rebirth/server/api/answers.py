"""The REST answers, declared (issue 24 item 3): one pydantic model per answer of every route,
and the one error shape of every refusal (:mod:`.errors`), so ``GET /openapi.json`` describes
what each route returns (docs/protocol.md).

The routes still build their answers as dicts; FastAPI validates each against its model and
serialises it in pydantic's Rust core (``response_model``; faster than the untyped path's
``jsonable_encoder``, see benchmarks/rest_answers.py). Every model forbids keys it does not
declare: a route that grows a key without its model fails in the tests (a 500 there), instead
of the key being dropped or the schema drifting. Routes that leave optional keys out are
served with ``response_model_exclude_unset`` so that they stay out (never ``null``).

The engine's own documents inside an answer (a view, events, a record's setup and actions, an
analysis, a map file) are objects described by their docs (docs/api.md, docs/records.md,
docs/analysis.md, docs/maps.md), not re-declared here: their shape belongs to the engine.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Texts = dict[str, str]
"""A text in every language (``{"en": …, "de": …}``)."""
Doc = dict[str, Any]
"""A JSON object whose shape a doc of the engine gives."""


class Answer(BaseModel):
    """The base of every answer: unknown keys are refused (see the module's docstring)."""

    model_config = ConfigDict(extra="forbid")


# ---------------------------------------------------------------------- errors


class ErrorObject(BaseModel):
    """One refusal: a protocol code, its words in every language, optional details."""

    code: str
    message: Texts
    details: Doc | None = None


class ErrorBody(BaseModel):
    """An HTTP error answer (``{"error": {...}}``)."""

    error: ErrorObject


# ---------------------------------------------------------------------- health


class Health(Answer):
    """``GET /healthz``."""

    status: Literal["ok"]


class Readiness(Answer):
    """``GET /readyz``: ``ready`` (200) or ``unavailable`` (503) with the reason per check."""

    status: Literal["ready", "unavailable"]
    checks: dict[str, str]


# ---------------------------------------------------------------------- lobby


class ClockProposal(Answer):
    """A clock change waiting for the other seats' agreement (public)."""

    by: int | None
    """The seat that asked (None: the admin link)."""
    add_s: int | None = None
    off: bool | None = None
    waiting: list[int]
    """The seats still to accept (``creator`` mode: the creator's)."""


class ClockFrame(Answer):
    """The clock as every frame and summary carries it (docs/protocol.md "Clocks")."""

    kind: Literal["realtime", "turn"]
    initial_s: int | None = None
    increment_s: int | None = None
    per_move_s: int | None = None
    enabled: bool
    running: int | None
    """The seat whose time runs (None: nobody's)."""
    left: list[float]
    deadline: float | None
    server_time: float
    timed_out: list[bool]
    notices: list[Doc]
    vacation: list[float] = []
    """Per seat, seconds of vacation left (turn clocks; issue 26 item 3)."""
    away: list[bool] = []
    """Per seat: on vacation (its own turn clock stands still)."""
    changes: Literal["agreement", "creator"] = "agreement"
    """Who agrees to its changes: every human seat, or the creator alone (issue 26 item 6)."""
    creator: int | None = None
    """The creator's own seat (None: none)."""
    proposal: ClockProposal | None = None
    """A change asked for and not yet agreed."""


class AccountVacation(Answer):
    """``POST /api/account/vacation``: whether the account is away now, and the games changed."""

    away: bool
    games: list[str]


class GameSummary(Answer):
    """A game's public summary (``GET /api/games/{id}``; also the answer of the seat and clock
    changes)."""

    game: str
    board: str
    players: int
    names: list[str]
    kinds: list[str]
    variants: list[str]
    lang: str
    hotseat: bool
    status: Literal["playing", "over"]
    version: int
    online: list[bool]
    clock: ClockFrame | None
    bots: list[bool] | None = None
    """``GET /api/games/{id}``: per seat, whether a bot account holds it (the "BOT" badge)."""


class BaseLink(Answer):
    """Where the links of a new game point."""

    url: str
    loopback: bool
    """Built on a loopback address: the links work on this computer only."""
    public: bool
    """Built on the configured public address."""


class SeatLink(Answer):
    """One seat of a new game: its invitation (None for a bot seat)."""

    seat: int
    name: str
    kind: str
    url: str | None


class GameLinks(Answer):
    """The links of a new game, given once."""

    seats: list[SeatLink]
    table: str | None
    spectator: str
    admin: str


class GameCreated(Answer):
    """``POST /api/games`` (201)."""

    game: str
    base: BaseLink
    links: GameLinks


class Claimed(Answer):
    """``POST /api/games/{id}/claim``: the seat's (or the table's) token, once."""

    game: str
    role: Literal["seat", "table"]
    seat: int | None
    token: str


class Reopened(Answer):
    """``POST /api/games/{id}/seats/{seat}/revoke``: the seat's new invitation."""

    seat: int
    role: Literal["seat", "table"]
    url: str


class RecordPlayer(Answer):
    """One seat of a record."""

    seat: int
    name: str
    kind: str


class RecordResult(Answer):
    """The result of a finished game."""

    scores: list[int]
    breakdown: list[dict[str, int]]
    winners: list[int]


class ChatLine(Answer):
    """One chat message of a record (``chat_in_record``)."""

    seq: int
    seat: int | None
    role: Literal["player", "spectator"]
    name: str
    text: str
    at: float


class RecordHead(Answer):
    """What every record has (docs/records.md): its format, the board, the players, the set-up
    and the actions."""

    format: Literal["rebirth-record"]
    version: int
    engine: str | None = None
    board: str
    map_digest: str | None = None
    players: list[RecordPlayer]
    variants: list[str]
    setup: Doc
    actions: list[Doc]
    result: RecordResult | None = None


class GameRecord(RecordHead):
    """``GET /api/games/{id}/record``: complete once the game is over (with ``seed`` and
    ``result``), before that redacted for the token's seat (``redacted_for``)."""

    seed: int | None = None
    redacted_for: int | None = None
    chat: list[ChatLine] | None = None


class RematchLink(Answer):
    """``GET /api/games/{id}/rematch``: the caller's own link to the rematch (nulls: none yet)."""

    game: str | None
    role: str
    url: str | None


class RematchStarted(RematchLink):
    """``POST /api/games/{id}/rematch``: as :class:`RematchLink`, and whether this call made it."""

    created: bool


# ---------------------------------------------------------------------- notifications


class Channels(Answer):
    """``GET``/``PUT /api/games/{id}/notify``: a seat's own channels."""

    seat: int
    webhook: str | None
    email: str | None
    email_available: bool
    policy: Literal["away", "every"] | None = None
    """The seat's own choice (null: none — the account's default, else ``away``)."""
    policy_used: Literal["away", "every"] = "away"
    """The policy that applies now."""
    push: bool = False
    """The seat has a web push subscription (its endpoint and keys are never sent back)."""


class PushKey(Answer):
    """``GET /api/push/key``: the server's VAPID public key (base64url)."""

    key: str


class MyGame(GameSummary):
    """One game of "my games": its summary and what the link is in it."""

    i: int
    """The token's place in the request."""
    role: str
    seat: int | None
    to_move: int | None
    your_turn: bool
    last_move: float | None


class GoneGame(Answer):
    """A token of "my games" that is unknown or revoked."""

    i: int
    gone: Literal[True]


class MyGames(Answer):
    """``POST /api/my-games``: newest move first."""

    games: list[MyGame | GoneGame]


# ---------------------------------------------------------------------- data


class BoardFacts(Answer):
    """What the pages would otherwise derive from the rules (server/pages/facts.py)."""

    labels: list[str]
    structure_labels: list[str]
    neighbours: list[list[int]]
    tiles: list[str]
    categories: list[str]
    neutral: dict[str, list[str]]
    display_size: int
    secret_points: dict[str, int]
    colours: list[str]


class BoardData(Answer):
    """``GET /api/boards/{board}``: the shipped files of a map (docs/maps.md, docs/missions.md)."""

    board: str
    map: Doc
    missions: Doc | None
    tokens: Doc | None
    facts: BoardFacts


class Language(Answer):
    """A declared language: its code and its name in itself."""

    code: str
    name: str


class Languages(Answer):
    """``GET /api/languages``: the language registry (data/i18n/languages.json), in menu order."""

    languages: list[Language]


class Catalog(Answer):
    """``GET /api/i18n/{lang}``: the engine's and the page's message catalogs (docs/messages.md)."""

    lang: str
    events: dict[str, str]
    page: dict[str, str]


class Variant(Answer):
    """A rule variant."""

    name: str
    text: Texts
    boards: list[str]


class Variants(Answer):
    """``GET /api/variants``: the rule variants and the seat kinds."""

    variants: list[Variant]
    kinds: list[str]


# ---------------------------------------------------------------------- calculator


class Heat(Answer):
    """The heat map of one seat (P-5)."""

    seat: int
    cells: list[Doc]


class Running(Answer):
    """The score so far, before the end's scoring."""

    scores: list[int]
    breakdown: list[dict[str, int]]


class Visits(Answer):
    """A cathedral and the seats that placed next to it."""

    id: str
    hex: str
    name: str
    seats: list[int]


class TowerVisits(Visits):
    """A tower (Ireland), its token and how many tiles each seat has next to it."""

    token: str | None
    next_to: list[int]


class PublicMission(Answer):
    """A public mission card of the display (Ireland)."""

    card: str
    text: str
    values: list[int]
    fulfilled: list[int]


class Score(Answer):
    """``POST /api/score``: everything the calculator page shows (what ``rebirth score --json``
    prints, and the page's parts; docs/positions.md, docs/server.md)."""

    board: str
    players: int
    variants: list[str]
    names: list[str]
    finished: bool
    categories: list[str]
    running: Running | None
    scores: list[int]
    breakdown: list[dict[str, int]]
    winners: list[int]
    tiebreak: Doc
    missions_scored: bool
    missions: list[Doc]
    end_scoring: list[Doc]
    castles: list[Doc]
    settlements: list[Doc]
    position: Doc
    """The position as completed (docs/positions.md)."""
    choices: list[Doc]
    regions: list[Doc]
    clusters: list[Doc]
    heat: Heat
    cathedrals: list[Visits]
    towers: list[TowerVisits]
    ports: list[int]
    offshore: list[int]
    supply: list[dict[str, int]]
    public: list[PublicMission]
    supply_full: dict[str, int]


# ---------------------------------------------------------------------- table companion


class TableCreated(Answer):
    """``POST /api/tables`` (201): the table's id and secret token (shown once)."""

    table: str
    token: str
    url: str


class TableLegal(Answer):
    """What may be entered now: per hex its tiles, discards, marks, outcomes."""

    hexes: dict[str, list[str]]
    discards: list[dict[str, str]]
    marks: list[dict[str, str]]
    outcomes: list[dict[str, str]]


class LastEntry(Answer):
    """The last entry and the events it caused."""

    entry: str | None
    fact: dict[str, str] | None = None
    """The entry's facts (``engine.table.entry_json``: ``kind``, its parts, ``text``)."""
    events: list[Doc]


class LastPlace(Answer):
    """Where the last tile went."""

    seat: int
    hex: str


class TableState(Answer):
    """``GET /api/tables/{id}`` and the answer of every entry and undo (docs/table.md)."""

    table: str
    board: str
    players: int
    names: list[str]
    colours: list[str]
    variants: list[str]
    lang: str
    version: int
    over: bool
    current_player: int | None
    seat: int | None
    asked: Texts | None
    legal: TableLegal
    remaining: list[dict[str, int]]
    supply_left: list[int]
    last: LastEntry
    last_place: LastPlace | None
    entries: list[Doc]
    series: list[list[int]]
    view: Doc
    """The spectator's view (docs/api.md)."""


class TableRecord(RecordHead):
    """``GET /api/tables/{id}/record``: the table record (``table`` true)."""

    table: Literal[True]


# ---------------------------------------------------------------------- analysis


class AnalysisDone(Answer):
    """A finished analysis (200; docs/analysis.md)."""

    status: Literal["done"]
    analysis: Doc


class AnalysisProgress(Answer):
    """An analysis under way or failed (202): record entries done of ``total``."""

    status: Literal["running", "failed"]
    done: int
    total: int


AnalysisAnswer = Annotated[AnalysisDone | AnalysisProgress, Field(discriminator="status")]
"""The answer of the analysis routes."""


# ---------------------------------------------------------------------- sharing (issue 26 item 5)


class PublicPosition(Answer):
    """``GET /api/games/{id}/public``: the spectators' view ``behind`` moves ago (the embed)."""

    game: str
    board: str
    names: list[str]
    lang: str
    over: bool
    moves: int
    """Moves made in the game so far."""
    move: int
    """The moves made in the position shown (``moves - behind``)."""
    behind: int
    version: int
    """The game version of the position shown."""
    view: Doc
    """A spectator's View (docs/api.md)."""


def described(model: type[BaseModel], why: str) -> dict[str, Any]:
    """A ``responses=`` entry: another status's answer and its description."""
    return {"model": model, "description": why}
