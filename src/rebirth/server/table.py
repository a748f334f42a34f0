"""The table companion's REST API (``/api/tables``) and page (``/table``): a physical game
recorded entry by entry and scored by the engine's table mode (docs/table.md).

Persistence: two tables of their own in the server's database (``table_games`` with the
setup and the hashed secret token, ``table_entries`` append-only with ``UNIQUE(game, seq)``).
An undo deletes the last entries in one transaction: the log then holds exactly the entries
that count, so a restart rebuilds the game by re-entering them (the engine checks each).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
    delete,
    func,
    insert,
    select,
)
from sqlalchemy.exc import SQLAlchemyError

from rebirth.engine.actions import ActionError
from rebirth.engine.board import MapError
from rebirth.engine.events import Event
from rebirth.engine.game import SetupError
from rebirth.engine.messages import UserError
from rebirth.engine.records import Seat, table_record
from rebirth.engine.replay import LogEntry, ReplayedStep, logged, replay_log
from rebirth.engine.table import TableState, apply_table_chance, new_table_game
from rebirth.engine.tiles import TILE_CODES
from rebirth.server.deps import SettingsDep
from rebirth.server.hub import LobbyError
from rebirth.server.static import _page
from rebirth.server.store import Store, hash_token, metadata

router = APIRouter(tags=["table"])

MAX_UNDO = 50
"""The most entries one undo takes back (a whole game is re-entered otherwise)."""

table_games = Table(
    "table_games", metadata,
    Column("id", String(32), primary_key=True),
    Column("token_hash", String(64), nullable=False, unique=True),  # SHA-256 of the secret token
    Column("board", String(64), nullable=False),
    Column("players", Integer, nullable=False),
    Column("variants", Text, nullable=False),  # JSON list
    Column("names", Text, nullable=False),  # JSON list
    Column("colours", Text, nullable=False),  # JSON list of #rrggbb
    Column("setup", Text, nullable=False),  # JSON: start_player, display, tower_tokens
    Column("lang", String(8), nullable=False),
    Column("created", Float, nullable=False),
)

table_entries = Table(
    "table_entries", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game", String(32), ForeignKey("table_games.id"), nullable=False),
    Column("seq", Integer, nullable=False),  # 1, 2, ... (the version this entry produced)
    Column("seat", Integer, nullable=True),  # None: an entered outcome
    Column("text", String(64), nullable=False),
    Column("created", Float, nullable=False),
    UniqueConstraint("game", "seq", name="uq_table_entries_game_seq"),
)

COLOURS = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#F0E442", "#D55E00", "#0072B2", "#999999")
"""Colours a seat may take (Okabe–Ito); the defaults are the browser game's."""

ERR: dict[str, dict[str, str]] = {
    "conflict": {"en": "someone entered something meanwhile: the page was refreshed, check and retry",
                 "de": "inzwischen wurde etwas eingegeben: die Seite wurde aktualisiert, prüfen und erneut"},
}


# ---------------------------------------------------------------------- models

class NewTable(BaseModel):
    """``POST /api/tables``."""

    model_config = ConfigDict(extra="forbid")
    board: str = Field(default="scotland", max_length=40)
    players: int = Field(default=3, ge=2, le=4)
    names: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list, max_length=4)
    colours: list[Annotated[str, Field(pattern=r"^#[0-9A-Fa-f]{6}$")]] = Field(default_factory=list,
                                                                                max_length=4)
    variants: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list, max_length=10)
    start_player: int = Field(default=0, ge=0, le=3)
    display: list[Annotated[str, Field(max_length=16)]] = Field(default_factory=list, max_length=8)
    tower_tokens: list[Annotated[str, Field(max_length=32)] | None] | None = Field(default=None,
                                                                                 max_length=20)
    lang: str = Field(default="en", pattern="^(en|de)$")


class Entry(BaseModel):
    """``POST /api/tables/{id}/entries``: one entry; ``version`` (optional) guards against
    two devices entering the same move, ``seat`` (optional, 0-based) against entering a
    placement for the wrong player (leave it out for an entered outcome)."""

    model_config = ConfigDict(extra="forbid")
    entry: str = Field(min_length=1, max_length=64)
    seat: int | None = Field(default=None, ge=0, le=3)
    version: int | None = Field(default=None, ge=0)


class Undo(BaseModel):
    """``POST /api/tables/{id}/undo``: take back the last ``count`` entries."""

    model_config = ConfigDict(extra="forbid")
    count: int = Field(default=1, ge=1, le=MAX_UNDO)
    version: int | None = Field(default=None, ge=0)


# ---------------------------------------------------------------------- in memory

@dataclass
class TableGame:
    """One table game: its stored header and the engine state rebuilt from the entries."""

    id: str
    board: str
    players: int
    variants: list[str]
    names: list[str]
    colours: list[str]
    setup: dict[str, Any]
    lang: str
    state: TableState
    last_entry: str | None = None
    last_events: list[Event] = field(default_factory=list)
    series: list[list[int]] = field(default_factory=list)
    """The scores after each entry (the end screen's chart)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def fresh(self) -> TableState:
        """The state before any entry."""
        s = self.setup
        return new_table_game(self.board, self.players, start_player=s["start_player"],
                              variants=self.variants, display=s.get("display", []),
                              tower_tokens=s.get("tower_tokens"))

    def replay(self, log: list[LogEntry]) -> None:
        """Re-enter the stored ``log`` from the start (load, undo) by the engine's one replay;
        keeps the scores after each entry and the last entry's events."""
        st = self.fresh()
        events: list[Event] = []
        self.series = []

        def keep(step: ReplayedStep) -> None:
            nonlocal events
            events = step.events
            self.series.append(st.score[:])

        self.state = replay_log(st, log, on_step=keep, apply_chance=apply_table_chance)
        self.last_entry = log[-1].text if log else None
        self.last_events = events


def _log(rows: Any) -> list[LogEntry]:
    """Stored entry rows (seat, text) as log entries (seat None: an entered outcome)."""
    return [logged(r.seat, r.text) for r in rows]


class Book:
    """The table games of one app, loaded from its store on demand."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.games: dict[str, TableGame] = {}

    def _load(self, gid: str) -> TableGame | None:
        with self.store.engine.connect() as c:
            g = c.execute(select(table_games).where(table_games.c.id == gid)).first()
            if g is None:
                return None
            log = _log(c.execute(select(table_entries.c.seat, table_entries.c.text).where(
                table_entries.c.game == gid).order_by(table_entries.c.seq)))
        setup = json.loads(g.setup)
        tg = TableGame(g.id, g.board, g.players, json.loads(g.variants), json.loads(g.names),
                       json.loads(g.colours), setup, g.lang, state=None)  # type: ignore[arg-type]
        tg.replay(log)
        return tg

    async def get(self, gid: str) -> TableGame:
        if len(gid) > 64:
            raise LobbyError(404, "unknown_game")
        tg = self.games.get(gid)
        if tg is None:
            tg = await asyncio.to_thread(self._load, gid)
            if tg is None:
                raise LobbyError(404, "unknown_game")
            tg = self.games.setdefault(gid, tg)
        return tg

    def check_token(self, gid: str, token: str) -> None:
        with self.store.engine.connect() as c:
            row = c.execute(select(table_games.c.id).where(
                table_games.c.token_hash == hash_token(token))).first()
        if row is None or row.id != gid:
            raise LobbyError(403, "bad_token")


def _book(request: Request) -> Book:
    book: Book | None = getattr(request.app.state, "tables", None)
    store: Store = request.app.state.registry.store
    if book is None or book.store is not store:
        # Made on first use: the app's lifespan (owned by the server) knows nothing of tables.
        book = Book(store)
        request.app.state.tables = book
    return book


def _bearer(authorization: str | None) -> str:
    if not authorization or not authorization.startswith("Bearer ") or len(authorization) > 200:
        raise LobbyError(401, "bad_token")
    return authorization[len("Bearer "):].strip()


async def _authed(request: Request, gid: str, authorization: str | None) -> TableGame:
    book = _book(request)
    tok = _bearer(authorization)
    tg = await book.get(gid)
    await asyncio.to_thread(book.check_token, gid, tok)
    return tg


AuthHeader = Annotated[str | None, Header()]


# ---------------------------------------------------------------------- answers

def _seat_entry(st: TableState) -> int | None:
    """The seat an entry is stored for (None: an entered outcome)."""
    return None if st.is_chance_node() else st.cur


def _legal(st: TableState) -> dict[str, Any]:
    """What may be entered now: per hex the tiles (placements), discards, marks, outcomes."""
    out: dict[str, Any] = {"hexes": {}, "discards": [], "marks": [], "outcomes": []}
    if st.is_terminal():
        return out
    if st.is_chance_node():
        out["outcomes"] = [st.action_text(o) for o, _ in st.chance_outcomes()]
        return out
    for aid in st.legal_action_ids():
        text = st.action_text(aid)
        if text.startswith("discard "):
            out["discards"].append(text)
        elif text.startswith("mark "):
            out["marks"].append(text)
        else:
            tile, hexl = text.split("@", 1)
            out["hexes"].setdefault(hexl, []).append(tile)
    return out


def _answer(tg: TableGame) -> dict[str, Any]:
    st = tg.state
    view = st.view(None).to_json()
    n = tg.players
    asked = {"en": st.asked("en"), "de": st.asked("de")} if st.is_chance_node() else None
    return {
        "table": tg.id,
        "board": tg.board,
        "players": n,
        "names": tg.names,
        "colours": tg.colours,
        "variants": tg.variants,
        "lang": tg.lang,
        "version": len(st.entries),
        "over": st.is_terminal(),
        "current_player": st.current_player if not st.is_chance_node() else None,
        "seat": st.cur,
        "asked": asked,
        "legal": _legal(st),
        "remaining": [dict(zip(TILE_CODES, st.remaining(q), strict=True)) for q in range(n)],
        "supply_left": [st.supply_left(q) for q in range(n)],
        "last": {"entry": tg.last_entry, "events": [e.to_json(None) for e in tg.last_events]},
        "entries": st.history_json(),
        "series": tg.series if st.is_terminal() else [],
        "view": view,
    }


def _entry_error(exc: ActionError) -> LobbyError:
    return LobbyError(400, "illegal_entry", exc.texts())


def _setup_texts(exc: Exception) -> dict[str, str]:
    """The refused set-up in every language: the engine's own message (key + args), else
    its English text inside a generic sentence."""
    if isinstance(exc, UserError):
        return exc.texts()
    return UserError("setup.failed", reason=str(exc)).texts()


# ---------------------------------------------------------------------- routes

@router.post("/api/tables", status_code=201)
async def create_table(body: NewTable, request: Request) -> dict[str, Any]:
    """A new table game: its id and its secret token (shown once; only its hash is stored)."""
    from rebirth.server.lobby import _data_names

    if body.board not in _data_names("maps"):
        raise LobbyError(400, "bad_board", {"en": f"unknown board {body.board!r}",
                                            "de": f"unbekannter Spielplan {body.board!r}"})
    n = body.players
    names = [x.strip() for x in body.names]
    if body.names and len(names) != n:
        raise LobbyError(400, "bad_seats", {"en": f"{n} players need {n} names, got {len(names)}",
                                            "de": f"{n} Spieler brauchen {n} Namen, nicht {len(names)}"})
    names = [x or f"Player {i + 1}" for i, x in enumerate(names)] or [f"Player {i + 1}" for i in range(n)]
    colours = [c.upper() for c in body.colours] or list(COLOURS[:n])
    if len(colours) != n or len(set(colours)) != n:
        raise LobbyError(400, "bad_colours", {"en": f"{n} players need {n} different colours",
                                              "de": f"{n} Spieler brauchen {n} verschiedene Farben"})
    if body.start_player >= n:
        sp = body.start_player + 1
        raise LobbyError(400, "bad_game", {"en": f"start player {sp} is not one of {n} seats",
                                           "de": f"Startspieler {sp} ist keiner der {n} Plätze"})
    setup: dict[str, Any] = {"start_player": body.start_player, "display": list(body.display),
                             "tower_tokens": body.tower_tokens}
    try:
        new_table_game(body.board, n, start_player=body.start_player, variants=body.variants,
                       display=body.display, tower_tokens=body.tower_tokens)
    except (SetupError, MapError, ValueError, KeyError) as exc:
        raise LobbyError(400, "bad_game", _setup_texts(exc)) from exc
    book = _book(request)
    gid = secrets.token_urlsafe(9)
    token = secrets.token_urlsafe(24)

    def store() -> None:
        with book.store.tx() as c:
            c.execute(insert(table_games).values(
                id=gid, token_hash=hash_token(token), board=body.board, players=n,
                variants=json.dumps(body.variants), names=json.dumps(names),
                colours=json.dumps(colours), setup=json.dumps(setup), lang=body.lang,
                created=time.time()))

    await asyncio.to_thread(store)
    return {"table": gid, "token": token, "url": f"/table/{gid}#t={token}"}


@router.get("/api/tables/{gid}")
async def table_state(gid: str, request: Request, authorization: AuthHeader = None) -> dict[str, Any]:
    """The game now: view, scores, breakdown, what may be entered, the last entry's events."""
    tg = await _authed(request, gid, authorization)
    async with tg.lock:
        return _answer(tg)


@router.post("/api/tables/{gid}/entries")
async def add_entry(gid: str, body: Entry, request: Request,
                    authorization: AuthHeader = None) -> dict[str, Any]:
    """Enter what happened at the table; the engine checks it (nothing changes on an error)."""
    tg = await _authed(request, gid, authorization)
    book = _book(request)
    async with tg.lock:
        st = tg.state
        version = len(st.entries)
        if body.version is not None and body.version != version:
            raise LobbyError(409, "conflict", ERR["conflict"])
        text = body.entry.strip()
        trial = st.clone()
        seat = _seat_entry(trial)
        try:
            events = trial.apply(text, seat=body.seat)
        except ActionError as exc:
            raise _entry_error(exc) from None
        canon = trial.history_json()[-1]
        stored = canon.get("chance") or canon["action"]

        def save() -> None:
            with book.store.tx() as c:
                c.execute(insert(table_entries).values(game=gid, seq=version + 1, seat=seat,
                                                       text=stored, created=time.time()))

        try:
            await asyncio.to_thread(save)
        except SQLAlchemyError as exc:
            # Another writer took this seq (a second server on the same database): forget
            # this copy, the next request reloads the log as stored.
            book.games.pop(gid, None)
            raise LobbyError(409, "conflict", ERR["conflict"]) from exc
        tg.state = trial
        tg.series.append(trial.score[:])
        tg.last_entry = stored
        tg.last_events = events
        return _answer(tg)


@router.post("/api/tables/{gid}/undo")
async def undo(gid: str, body: Undo, request: Request, authorization: AuthHeader = None) -> dict[str, Any]:
    """Take back the last ``count`` entries (deleted from the log in one transaction)."""
    tg = await _authed(request, gid, authorization)
    book = _book(request)
    async with tg.lock:
        have = len(tg.state.entries)
        if body.version is not None and body.version != have:
            raise LobbyError(409, "conflict", ERR["conflict"])
        if body.count > have:
            raise LobbyError(400, "bad_undo", {
                "en": f"cannot undo {body.count} entries: {have} were made",
                "de": f"{body.count} Eingaben können nicht zurückgenommen werden: es gibt {have}"})
        keep = have - body.count

        def drop() -> list[LogEntry]:
            with book.store.tx() as c:
                c.execute(delete(table_entries).where(table_entries.c.game == gid,
                                                      table_entries.c.seq > keep))
                left = c.execute(select(func.count()).select_from(table_entries).where(
                    table_entries.c.game == gid)).scalar_one()
                assert left == keep
                return _log(c.execute(select(table_entries.c.seat, table_entries.c.text).where(
                    table_entries.c.game == gid).order_by(table_entries.c.seq)))

        log = await asyncio.to_thread(drop)
        tg.replay(log)
        return _answer(tg)


@router.get("/api/tables/{gid}/record")
async def record(gid: str, request: Request, authorization: AuthHeader = None) -> dict[str, Any]:
    """The table record (``"table": true``; replays with ``rebirth replay``)."""
    tg = await _authed(request, gid, authorization)
    async with tg.lock:
        seats = [Seat(name=nm, kind="human") for nm in tg.names]
        return table_record(tg.state, seats)


@router.get("/table", include_in_schema=False)
async def table_page(settings: SettingsDep) -> FileResponse:
    """The companion's page (set-up form)."""
    return _page(settings, "table.html")


@router.get("/table/{gid}", include_in_schema=False)
async def table_game_page(gid: str, settings: SettingsDep) -> FileResponse:
    """The companion's page of one game (the token is in the fragment)."""
    return _page(settings, "table.html")
