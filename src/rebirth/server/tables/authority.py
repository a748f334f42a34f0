"""The table companion's authority on the server: one :class:`TableHub` per table game (its
engine state and a lock), and the :class:`TableRegistry` of all of them, made in the app's
lifespan like the online game's :class:`~rebirth.server.play.session.Registry` (docs/table.md).

Every entry and undo goes through the one commit path, as the online game's steps do
(server/authority/kernel.py): proposed on a copy by the engine, written (off the event loop),
then accepted; a refused or failed one changes nothing. A restart
rebuilds a table game by re-entering its stored entries (the engine checks each). Several
server processes may share one database: every request reads the stored entries first
(:meth:`TableHub.current`) and re-enters them when another process changed them, and the
``UNIQUE(game, seq)`` log refuses a second writer of the same entry.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from rebirth.engine.actions import ActionError, Mark
from rebirth.engine.events import Event
from rebirth.engine.records import Seat, table_record
from rebirth.engine.replay import ReplayedStep, logged, replay_log
from rebirth.engine.table import TableDiscard, TableGame, apply_table_chance, entry_json, new_table_game
from rebirth.engine.tiles import TILE_CODES
from rebirth.server.authority.kernel import Authority, Replace
from rebirth.server.errors import LANGS, ApiError, texts
from rebirth.server.persistence.store import Step, Store, TableRow, hash_token

MAX_UNDO = 50
"""The most entries one undo takes back (a whole game is re-entered otherwise)."""

COLOURS = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#F0E442", "#D55E00", "#0072B2", "#999999")
"""Colours a seat may take (Okabe–Ito); the defaults are the browser game's."""

MAX_ID = 64
"""Longer ids are unknown without a database look-up."""


def fresh_state(row: TableRow) -> TableGame:
    """The state of a table game before any entry (raises the engine's set-up errors)."""
    s = row.setup
    return new_table_game(row.board, row.players, start_player=s["start_player"], variants=row.variants,
                          display=s.get("display", []), tower_tokens=s.get("tower_tokens"))


def _legal(st: TableGame) -> dict[str, Any]:
    """What may be entered now: per hex the tiles (placements), discards, marks, outcomes,
    from the engine's legal entries (values, not re-parsed text)."""
    out: dict[str, Any] = {"hexes": {}, "discards": [], "marks": [], "outcomes": []}
    if st.is_terminal():
        return out
    legal = st.legal_actions
    if st.is_chance_node():
        out["outcomes"] = [entry_json(e) for e in legal]
        return out
    out["hexes"] = {label: [p.tile for p in places] for label, places in legal.by_hex().items()}
    out["discards"] = [entry_json(e) for e in legal.of_kind(TableDiscard)]
    out["marks"] = [entry_json(e) for e in legal.of_kind(Mark)]
    return out


@dataclass(frozen=True)
class TableValue:
    """One table game as its authority holds it: the engine state of its entries (never edited:
    a change makes a new value), the entries as stored, the scores after each entry and the
    last entry's events."""

    state: TableGame
    stored: tuple[tuple[int | None, str], ...] = ()
    series: tuple[list[int], ...] = ()
    last_entry: str | None = None
    last_events: tuple[Event, ...] = ()

    @property
    def version(self) -> int:
        """The number of entries that count."""
        return len(self.state.entries)


def replayed(row: TableRow, stored: list[Step]) -> TableValue:
    """The value of the stored entries re-entered from the start by the engine's one replay."""
    log = [logged(e.seat, e.text) for e in stored]
    events: list[Event] = []
    series: list[list[int]] = []

    def keep(step: ReplayedStep) -> None:
        nonlocal events
        events = step.events
        series.append(st.score[:])

    st = fresh_state(row)
    st = replay_log(st, log, on_step=keep, apply_chance=apply_table_chance)
    return TableValue(st, tuple((e.seat, e.text) for e in stored), tuple(series),
                      log[-1].text if log else None, tuple(events))


@dataclass
class EntryChange:
    """One entry, checked by the engine on a copy of the state."""

    hub: TableHub
    text: str
    seat: int | None
    kind: str = "entry"

    def propose(self, current: TableValue) -> TableValue:
        trial = current.state.clone()
        stored_seat = None if trial.is_chance_node() else trial.cur
        if stored_seat is not None and self.seat is None:
            # Without it, a second device's entry would be recorded as the next player's move.
            raise ApiError(400, "missing_seat", texts("server.missing_seat"))
        try:
            events = trial.apply(self.text.strip(), seat=self.seat)
        except ActionError as exc:
            raise ApiError(400, "illegal_entry", exc.texts()) from None
        canon = trial.history_json()[-1]
        stored = str(canon.get("chance") or canon["action"])
        return TableValue(trial, (*current.stored, (stored_seat, stored)), (*current.series, trial.score[:]),
                          stored, tuple(events))

    async def write(self, before: TableValue, after: TableValue) -> None:
        seat, text = after.stored[-1]
        try:
            await asyncio.to_thread(self.hub.store.append_table_entry, self.hub.id, before.version + 1,
                                    seat, text)
        except IntegrityError as exc:
            # Another writer took this seq (a second server on the same database): the next
            # request reads the log as stored.
            raise ApiError(409, "conflict") from exc
        except SQLAlchemyError as exc:
            # Storage itself failed (disk full, read-only): say so; nothing was recorded.
            raise ApiError(503, "server_error") from exc


@dataclass
class UndoChange:
    """The last ``count`` entries taken back (one transaction in the store)."""

    hub: TableHub
    count: int
    kind: str = "undo"

    def propose(self, current: TableValue) -> TableValue:
        have = current.version
        if self.count > have:
            raise ApiError(400, "bad_undo", texts("server.bad_undo", count=self.count, have=have))
        keep = len(current.stored) - self.count
        return replayed(self.hub.row, [Step(i + 1, seat, text)
                                       for i, (seat, text) in enumerate(current.stored[:keep])])

    async def write(self, before: TableValue, after: TableValue) -> None:
        try:
            await asyncio.to_thread(self.hub.store.drop_table_entries, self.hub.id, len(after.stored))
        except SQLAlchemyError as exc:
            raise ApiError(503, "server_error") from exc  # one transaction: nothing was deleted


class TableHub:
    """One table game on the server: its stored header and the authority over its entries
    (server/authority/kernel.py: every entry and undo proposed on a copy, written, accepted)."""

    def __init__(self, store: Store, row: TableRow, value: TableValue) -> None:
        self.store = store
        self.row = row
        self.authority: Authority[TableValue] = Authority(value, f"table {row.id}")
        self.lock = self.authority.lock

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def value(self) -> TableValue:
        return self.authority.value

    @property
    def state(self) -> TableGame:
        return self.authority.value.state

    @property
    def version(self) -> int:
        return self.authority.value.version

    @contextlib.asynccontextmanager
    async def current(self) -> AsyncIterator[TableHub]:
        """Hold the hub's lock with its state as stored now: another server process on the
        same database (a second worker) may have entered or undone entries since this one
        last looked, so the stored entries are read and, if they differ, re-entered."""
        async with self.lock:
            try:
                stored = await asyncio.to_thread(self.store.table_steps, self.id)
            except SQLAlchemyError as exc:
                raise ApiError(503, "server_error") from exc
            if tuple((e.seat, e.text) for e in stored) != self.value.stored:
                await self.authority.commit(Replace(replayed(self.row, stored)))
            yield self

    # ------------------------------------------------------------------ reading

    def answer(self) -> dict[str, Any]:
        """The game now: view, scores, what may be entered, the last entry's events."""
        v = self.value
        st = v.state
        r = self.row
        n = r.players
        asked = {lang: st.asked(lang) for lang in LANGS} if st.is_chance_node() else None
        return {
            "table": r.id, "board": r.board, "players": n, "names": r.names, "colours": r.colours,
            "variants": r.variants, "lang": r.lang, "version": v.version, "over": st.is_terminal(),
            "current_player": st.current_player if not st.is_chance_node() else None,
            "seat": st.cur, "asked": asked, "legal": _legal(st),
            "remaining": [dict(zip(TILE_CODES, st.remaining(q), strict=True)) for q in range(n)],
            "supply_left": [st.supply_left(q) for q in range(n)],
            # The last entry as facts too (its kind and parts), so the page names the tile and
            # the space in words without splitting the entry's text (docs/table.md).
            "last": {"entry": v.last_entry,
                     "fact": None if v.last_entry is None else entry_json(st.parse(v.last_entry)),
                     "events": [e.to_json(None) for e in v.last_events]},
            "last_place": None if (lp := st.last_placement()) is None
            else {"seat": lp[0], "hex": lp[1].label},
            # Each entry with its facts, so that the page's log names tiles and spaces in words.
            "entries": [{**e, "fact": entry_json(st.parse(str(e.get("action") or e["chance"])))}
                        for e in st.history_json()],
            "series": list(v.series) if st.is_terminal() else [],
            "view": st.view(None).to_json(),
        }

    def record(self) -> dict[str, Any]:
        """The table record (``"table": true``; replays with ``rebirth replay``)."""
        return table_record(self.state, [Seat(name=nm, kind="human") for nm in self.row.names])

    # ------------------------------------------------------------------ entering

    def _check_version(self, version: int) -> None:
        if version != self.version:
            raise ApiError(409, "conflict", details={"version": self.version})

    async def enter(self, text: str, seat: int | None, version: int) -> None:
        """One entry (call under ``lock``). ``seat`` is the player the entry is for (None: an
        entered outcome); ``version`` the number of entries the device has seen."""
        self._check_version(version)
        await self.authority.commit(EntryChange(self, text, seat))

    async def undo(self, count: int, version: int) -> None:
        """Take back the last ``count`` entries (call under ``lock``)."""
        self._check_version(version)
        await self.authority.commit(UndoChange(self, count))


class TableRegistry:
    """All table games of this server, loaded from the store on demand."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.hubs: dict[str, TableHub] = {}
        self._load_lock = asyncio.Lock()

    def _load(self, table_id: str) -> TableHub | None:
        got = self.store.table(table_id)
        if got is None:
            return None
        row, entries = got
        return TableHub(self.store, row, replayed(row, entries))

    def forget(self, table_id: str) -> None:
        """Drop the in-memory copy (it is loaded again from the store on the next request)."""
        self.hubs.pop(table_id, None)

    async def get(self, table_id: str) -> TableHub:
        """The table game's hub (404 ``unknown_game`` when there is none)."""
        if len(table_id) > MAX_ID:
            raise ApiError(404, "unknown_game")
        hub = self.hubs.get(table_id)
        if hub is not None:
            return hub
        async with self._load_lock:
            hub = self.hubs.get(table_id)
            if hub is None:
                hub = await asyncio.to_thread(self._load, table_id)
                if hub is None:
                    raise ApiError(404, "unknown_game")
                self.hubs[table_id] = hub
            return hub

    async def authed(self, table_id: str, token: str) -> TableHub:
        """The hub of ``table_id`` when ``token`` is its secret token (404 / 403 otherwise)."""
        hub = await self.get(table_id)
        if await asyncio.to_thread(self.store.table_of_token, token) != table_id:
            raise ApiError(403, "bad_token")
        return hub

    async def create(self, header: TableRow) -> tuple[TableHub, str]:
        """Store a new table game (its set-up already checked; ``header.id`` is replaced by a
        fresh one); returns its hub and its secret token (shown once; only its hash is stored)."""
        token = secrets.token_urlsafe(24)
        row = replace(header, id=secrets.token_urlsafe(9))
        await asyncio.to_thread(self.store.create_table, row, hash_token(token))
        hub = TableHub(self.store, row, TableValue(fresh_state(row)))
        self.hubs[row.id] = hub
        return hub, token
