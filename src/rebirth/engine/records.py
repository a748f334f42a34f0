"""Game records: a self-contained JSON document that replays exactly (docs/records.md).

A record stores the setup as dealt and every action and chance outcome, so it
replays without drawing chance: records stay valid when shuffling changes. The log is
re-entered by the engine's one replay (:func:`rebirth.engine.replay.replay_log`), which
advances the chance stream as the authority did. Table records (engine/table.py) are
read and written here too, so table mode needs nothing from this module.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rebirth import __version__
from rebirth.engine.board import Board, MapError, builtin_board, builtin_names, resolve_board
from rebirth.engine.events import Event
from rebirth.engine.formats import (
    MAX_RECORD_BYTES,
    FormatError,
    decode_json,
    read_regular_file,
    validate_record,
)
from rebirth.engine.game import Game, Setup, SetupError
from rebirth.engine.messages import UserError, msg
from rebirth.engine.missions import DataError
from rebirth.engine.replay import (
    CHANCE_MISSING,
    GAME_OVER,
    NO_CHANCE,
    WRONG_SEAT,
    ActionEntry,
    ChanceEntry,
    LogEntry,
    ReplayedStep,
    ReplayError,
    replay_log,
)
from rebirth.engine.state import State
from rebirth.engine.table import TableGame, apply_table_chance
from rebirth.engine.tiles import NEUTRAL, tile_code

FORMAT = "rebirth-record"
FORMAT_VERSION = 1


class RecordError(UserError):
    """A record that cannot be replayed: a catalog key plus arguments naming the first fault
    (a :class:`UserError`, so still a ValueError)."""


def map_digest(board: Board) -> str:
    """A short fingerprint of a map's content, so a record refuses a different map."""
    canon = json.dumps(board.source, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canon.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Seat:
    """Who sat at a seat: a display name and a kind (``human``, a bot or level name)."""

    name: str
    kind: str


def _header(state: State, seats: list[Seat] | None) -> dict[str, Any]:
    """The fields every record starts with: format, engine, map, seats, variants."""
    g = state.game
    seats = seats or [Seat(f"Player {i + 1}", "unknown") for i in range(g.players)]
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "engine": __version__,
        "board": g.board.id,
        "map_digest": map_digest(g.board),
        "players": [{"seat": i, "name": s.name, "kind": s.kind} for i, s in enumerate(seats)],
        "variants": sorted(g.variants),
    }


def make_record(state: State, seats: list[Seat] | None = None, seed: int | None = None) -> dict[str, Any]:
    """The record of a game so far (complete once the state is terminal)."""
    rec = _header(state, seats)
    rec.update(seed=seed, setup=state.setup.to_json(), actions=state.history_json())
    if state.is_terminal():
        rec["result"] = result_json(state)
    return rec


def redacted_record(state: State, seats: list[Seat] | None, for_seat: int | None) -> dict[str, Any]:
    """A mid-game record as ``for_seat`` (None: a spectator) may hold it: the public setup
    (start player, Ireland's display and tower tokens, all face up) and the public history;
    no supply order, set-aside tile, hand, deck order or seed. It cannot be replayed."""
    setup = state.setup
    public_setup: dict[str, Any] = {"start_player": setup.start_player}
    if state.game.board.is_ireland:
        public_setup["display"] = list(setup.display)
        public_setup["tower_tokens"] = list(setup.tower_tokens)
    rec = _header(state, seats)
    rec.update(redacted_for=for_seat, setup=public_setup, actions=state.history_json())
    return rec


def check_result(state: State, res: Any) -> None:
    """RecordError unless a record's ``result`` (if any) is what the replay gave."""
    if res is None:
        return
    _require(state.is_terminal(), "error.record.result_not_over")
    mine = result_json(state)
    for key in ("scores", "winners", "breakdown"):
        if key in res and res[key] != mine[key]:
            raise RecordError("error.record.result_differs", field=msg(f"error.record.field.{key}"),
                              recorded=str(res[key]),
                              replayed=str(mine[key]))


def result_json(state: State) -> dict[str, Any]:
    """Scores, breakdown by category, winners (the record's ``result``)."""
    return {
        "scores": state.score[:],
        "breakdown": [state.breakdown(q) for q in range(state.n)],
        "winners": state.winners,
    }


def summary_json(state: State) -> dict[str, Any]:
    """What ``rebirth replay --json`` prints."""
    b = state.board
    placements = []
    codec = state.game.codec
    for seat, aid in state.history:
        if seat >= 0 and codec.is_place(aid):
            placements.append({"seat": seat, "tile": tile_code(state.occupancy.tile[aid]),
                               "hex": b.spaces[aid].label})
    return {
        "board": b.id,
        "players": state.n,
        "variants": sorted(state.game.variants),
        "terminal": state.is_terminal(),
        **result_json(state),
        "placed": state.occupancy.placed[:],
        "neutral": sum(1 for o in state.occupancy.owner if o == NEUTRAL),
        "setup": state.setup.to_json(),
        "placements": placements,
    }


def _require(cond: bool, key: str, /, **args: Any) -> None:
    if not cond:
        raise RecordError(key, **args)


def replay(record: Any, *, board: Board | None = None,
           on_events: Callable[[int, list[Event]], None] | None = None,
           on_step: Callable[[ReplayedStep], None] | None = None) -> State:
    """Replay a decoded record and verify it; returns the final engine state (for a table
    record the state its :class:`~rebirth.engine.table.TableGame` holds; see
    :func:`replay_game`). Raises :class:`RecordError` as :func:`replay_game` does."""
    got = replay_game(record, board=board, on_events=on_events, on_step=on_step)
    return got.state if isinstance(got, TableGame) else got


def replay_game(record: Any, *, board: Board | None = None,
                on_events: Callable[[int, list[Event]], None] | None = None,
                on_step: Callable[[ReplayedStep], None] | None = None) -> State | TableGame:
    """Replay a decoded record and verify it; returns the final state, or for a record
    entered at the table (``"table": true``) the table game.

    ``on_step`` (or the older ``on_events``, given the entry's index) hears every entry
    with its events as it is re-entered. Raises :class:`RecordError` naming the first bad
    item: a malformed record, an unknown or different map, a bad setup, an illegal or
    tampered action, or a result that does not match.
    """
    _require(isinstance(record, dict), "error.record.not_object")
    _require("redacted_for" not in record, "error.record.redacted")
    # The whole document is checked against the typed schema first, so what follows sees
    # well-typed data (formats.RecordModel).
    try:
        validate_record(record)
    except FormatError as exc:
        raise RecordError.like(exc) from None
    players = record["players"]
    variants = record.get("variants", [])
    name = record["board"]
    if board is None:
        # Never a path: a record names a shipped map; a custom map is passed in
        # explicitly (``--map FILE``) and checked by its digest below.
        if name not in builtin_names():
            raise RecordError("error.record.not_shipped", name=repr(name),
                              shipped=", ".join(builtin_names()))
        try:
            board = builtin_board(name)
        except MapError as exc:  # pragma: no cover - shipped maps are valid
            raise RecordError("error.record.unknown_map", name=repr(name), reason=exc) from exc
    elif name != board.id:
        raise RecordError("error.record.other_map", name=repr(name), board=repr(board.id))
    digest = record.get("map_digest")
    if digest is not None and digest != map_digest(board):
        raise RecordError("error.record.other_digest", board=repr(board.id), digest=digest,
                          mine=map_digest(board))
    hear = _listener(on_events, on_step)
    if record.get("table") is True:
        # A physical game recorded at the table: supplies are counts (engine/table.py).
        try:
            game = Game.create(board, len(players), variants)
        except SetupError as exc:
            raise RecordError("error.record.because", reason=exc) from exc
        return _replay_table(record, game, hear)
    try:
        game = Game.create(board, len(players), variants)
        setup = Setup.from_json(record.get("setup"))
        seed = record.get("seed")
        state = game.from_setup(setup, seed=seed if isinstance(seed, int) else None)
    except (SetupError, DataError) as exc:
        raise RecordError("error.record.because", reason=exc) from exc
    # Chance outcomes are explicit steps: each sits in the list where the game reached a
    # chance node (after the action that caused it), so the list replays in order.
    try:
        replay_log(state, _log(record, "reveal S2"), on_step=hear)
    except ReplayError as exc:
        raise RecordError.of(_say(exc, table=False)) from exc
    if state.is_chance_node():
        raise RecordError("error.record.ends_before_chance")
    check_result(state, record.get("result"))
    return state


def _listener(on_events: Callable[[int, list[Event]], None] | None,
              on_step: Callable[[ReplayedStep], None] | None) -> Callable[[ReplayedStep], None] | None:
    if on_events is None:
        return on_step

    def hear(step: ReplayedStep) -> None:
        on_events(step.index, step.events)
        if on_step is not None:
            on_step(step)

    return hear


def _log(record: dict[str, Any], example: str) -> list[LogEntry]:
    """A record's ``actions`` as log entries (the schema has checked their types)."""
    actions = record.get("actions")
    if not isinstance(actions, list):
        raise RecordError("error.record.actions_list")
    out: list[LogEntry] = []
    for i, entry in enumerate(actions):
        _require(isinstance(entry, dict), "error.record.entry_object", n=i + 1)
        if "chance" in entry:
            _require(isinstance(entry["chance"], str), "error.record.chance_text", n=i + 1,
                     example=repr(example))
            out.append(ChanceEntry(entry["chance"]))
            continue
        seat, text = entry.get("seat"), entry.get("action")
        _require(isinstance(text, str), "error.record.action_text", n=i + 1)
        _require(isinstance(seat, int) and not isinstance(seat, bool), "error.record.action_seat",
                 n=i + 1, text=str(text))
        out.append(ActionEntry(seat, str(text)))
    return out


def _say(exc: ReplayError, *, table: bool) -> dict[str, Any]:
    """The record's message for an entry that does not replay (normal or table record), as a
    message value: "action #3 (H7): <why>" with the reason nested."""
    e = exc.entry
    n, text = exc.index + 1, e.text
    if exc.reason == NO_CHANCE:
        why = msg("error.record.no_outcome_asked" if table else "error.record.no_chance_pending")
    elif exc.reason == GAME_OVER:
        why = msg("error.record.game_over")
    elif exc.reason == CHANCE_MISSING:
        why = msg("error.record.chance_missing")
    elif exc.reason == WRONG_SEAT and isinstance(e, ActionEntry):
        why = msg("error.record.wrong_seat", seat=e.seat, to_act=exc.to_act)
    elif isinstance(e, ActionEntry) and not table:
        return msg("error.record.seat_action", n=n, seat=e.seat, text=text, why=_cause(exc))
    else:
        why = _cause(exc)
    return msg("error.record.action", n=n, text=text, why=why)


def _cause(exc: ReplayError) -> Any:
    """The engine's reason an entry was refused, as a message value (a refusal of the engine
    is a :class:`UserError`; anything else, which no engine path raises, shows as its text)."""
    cause = exc.cause
    return msg(cause.key, **cause.params) if isinstance(cause, UserError) else str(cause)


def table_record(game: TableGame, seats: Sequence[Any] | None = None) -> dict[str, Any]:
    """The record of a table game (``"table": true``; see docs/records.md)."""
    state = game.state
    rec = _header(state, list(seats) if seats is not None else None)
    rec.update(setup=game.setup.to_json(), actions=game.history_json())
    if state.is_terminal():
        rec["result"] = result_json(state)
    rec["table"] = True
    return rec


def replay_table(record: dict[str, Any], game: Game, *,
                 on_events: Callable[[int, list[Event]], None] | None = None,
                 on_step: Callable[[ReplayedStep], None] | None = None) -> TableGame:
    """Replay and verify a table record whose header :func:`replay` has checked."""
    return _replay_table(record, game, _listener(on_events, on_step))


def _replay_table(record: dict[str, Any], game: Game,
                  hear: Callable[[ReplayedStep], None] | None) -> TableGame:
    setup = record.get("setup")
    if not isinstance(setup, dict):
        raise RecordError("error.record.setup_object")
    for key in ("supplies", "set_aside", "mission_deck"):
        if key in setup:
            raise RecordError("error.record.table_setup_key", key=repr(key))
    start = setup.get("start_player", 0)
    display = setup.get("display", [])
    tokens = setup.get("tower_tokens")
    if not isinstance(start, int) or not isinstance(display, list) or not (
            tokens is None or isinstance(tokens, list)):
        raise RecordError("error.record.table_setup_shape")
    try:
        state = TableGame(game, start, [str(c) for c in display],
                           None if tokens is None else [None if t is None else str(t) for t in tokens])
    except SetupError as exc:
        raise RecordError("error.record.because", reason=exc) from exc
    try:
        replay_log(state, _log(record, "token points3a"), on_step=hear,
                   apply_chance=apply_table_chance)
    except ReplayError as exc:
        if exc.reason == CHANCE_MISSING:
            raise RecordError("error.record.action", n=exc.index + 1, text=exc.entry.text,
                              why=msg("error.record.entry_missing", asked=state.asked_msg() or "")) from exc
        raise RecordError.of(_say(exc, table=True)) from exc
    check_result(state.state, record.get("result"))
    return state


def table_entries(record: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """A finished or running record of a normal game re-entered as a table game would be:
    per action of ``record``, the table entries that say the same (the placement with its
    tile, the tower tokens it turns over, the P-7 discards that follow); one last group holds
    the mission cards entered at the end. Raises RecordError if the record does not replay."""
    groups: list[list[dict[str, Any]]] = []
    seen: set[str] = set()
    setup = record.get("setup") or {}
    tokens_by_tower: dict[str, str] = {}

    def on_step(step: ReplayedStep) -> None:
        entry = step.entry
        out: list[dict[str, Any]] = []
        for e in step.events:
            if e.kind == "place" and isinstance(entry, ActionEntry) and entry.seat == e.seat:
                out.append({"seat": e.seat, "action": f"{e.data['tile']}@{e.data['hex']}"})
        if not out:
            out.append(entry.to_json())  # a mark or a reveal reads the same at the table
        for e in step.events:
            tw = e.data.get("tower") if e.kind == "tower" else None
            if tw is not None and tw not in seen:
                seen.add(tw)
                out.append({"chance": f"token {tokens_by_tower[tw]}"})
        for e in step.events:
            if e.kind == "discard":
                out.append({"seat": e.seat, "action": f"discard {e.data['tile']}"})
        groups.append(out)

    board = resolve_board(str(record.get("board")))
    tokens_by_tower = {tw.id: tid for tw, tid in zip(board.towers, setup.get("tower_tokens", []),
                                                      strict=False)}
    final = replay(record, board=board, on_step=on_step)
    if final.is_terminal():
        own = final.cards.tower_cards if board.is_ireland else final.cards.cathedral_cards
        groups.append([{"chance": f"card {final.game.cards[c].id}"}
                       for q in range(final.n) for c in own[q]])
    return groups


def load_record(text: str | bytes) -> Any:
    """Decode record text (or UTF-8 bytes) and check it against the record schema.

    Returns the decoded document for :func:`replay`; RecordError, naming the
    field, on invalid UTF-8, malformed or oversized JSON, or an ill-typed record.
    """
    data = decode_json(text, "record", RecordError, max_bytes=MAX_RECORD_BYTES)
    if not isinstance(data, dict):
        raise RecordError("error.record.not_object")
    try:
        validate_record(data)
    except FormatError as exc:
        raise RecordError.like(exc) from None
    return data


def read_record(path: str) -> Any:
    """:func:`load_record` of a file; RecordError when it cannot be read (a FIFO,
    a device and an oversized file are refused without reading them)."""
    return load_record(read_regular_file(path, MAX_RECORD_BYTES, RecordError, what="record"))
