"""Game records: a self-contained JSON document that replays exactly (docs/records.md).

A record stores the setup as dealt and every action and chance outcome, so it
replays without the RNG: records stay valid when shuffling changes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rebirth import __version__
from rebirth.engine.actions import ActionError, parse_action
from rebirth.engine.board import Board, MapError, builtin_board, builtin_names
from rebirth.engine.codec import ActionCodec
from rebirth.engine.events import Event
from rebirth.engine.formats import MAX_RECORD_BYTES, decode_json, read_regular_file, validate_record
from rebirth.engine.game import Game, Setup, SetupError
from rebirth.engine.missions import DataError
from rebirth.engine.state import State
from rebirth.engine.tiles import NEUTRAL, tile_code

FORMAT = "rebirth-record"
FORMAT_VERSION = 1


class RecordError(ValueError):
    """A record that cannot be replayed; the message names the first fault."""


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
    _require(state.is_terminal(), "record: it has a result but the game is not over")
    mine = result_json(state)
    for key in ("scores", "winners", "breakdown"):
        if key in res and res[key] != mine[key]:
            raise RecordError(
                f"record: the recorded {key} {res[key]} do not match the replay ({mine[key]})")


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
    for seat, aid in state.history:
        if seat >= 0 and aid < len(b.spaces):
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


def _require(cond: bool, msg: str) -> None:
    if not cond:
        raise RecordError(msg)


def replay(record: Any, *, board: Board | None = None,
           on_events: Callable[[int, list[Event]], None] | None = None) -> State:
    """Replay a decoded record and verify it; returns the final state.

    Raises :class:`RecordError` naming the first bad item: a malformed record, an
    unknown or different map, a bad setup, an illegal or tampered action, or a
    result that does not match.
    """
    _require(isinstance(record, dict), "record: must be a JSON object")
    _require("redacted_for" not in record,
             "record: it was redacted for one seat during the game; without the hidden setup "
             "it cannot be replayed (the complete record exists once the game is over)")
    # The whole document is checked against the typed schema first, so the loop
    # below sees well-typed data (formats.RecordModel).
    try:
        validate_record(record)
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    players = record["players"]
    variants = record.get("variants", [])
    name = record["board"]
    if board is None:
        # Never a path: a record names a shipped map; a custom map is passed in
        # explicitly (``--map FILE``) and checked by its digest below.
        if name not in builtin_names():
            raise RecordError(
                f"record: board: {name!r} is not a shipped map ({', '.join(builtin_names())}); "
                "give the map file of a custom map with --map FILE")
        try:
            board = builtin_board(name)
        except MapError as exc:  # pragma: no cover - shipped maps are valid
            raise RecordError(f"record: unknown map {name!r} ({exc})") from exc
    elif name != board.id:
        raise RecordError(f"record: board: it was played on map {name!r}, not on {board.id!r}")
    digest = record.get("map_digest")
    if digest is not None and digest != map_digest(board):
        raise RecordError(
            f"record: it was played on a different version of map {board.id!r} "
            f"(digest {digest}, this map {map_digest(board)})")
    if record.get("table") is True:
        # A physical game recorded at the table: supplies are counts (engine/table.py).
        return _replay_table(record, board, len(players), variants, on_events)
    try:
        game = Game.create(board, len(players), variants)
        setup = Setup.from_json(record.get("setup"))
        seed = record.get("seed")
        state = game.from_setup(setup, seed=seed if isinstance(seed, int) else None)
    except (SetupError, DataError) as exc:
        raise RecordError(f"record: {exc}") from exc
    actions = record.get("actions")
    _require(isinstance(actions, list), "record: 'actions' must be a list")
    # Chance outcomes are explicit steps: each sits in the list where the game reached a
    # chance node (after the action that caused it), so the list replays in order.
    for i, entry in enumerate(actions):
        where = f"action #{i + 1}"
        _require(isinstance(entry, dict), f"{where}: must be an object")
        if "chance" in entry:
            text = entry["chance"]
            _require(isinstance(text, str), f"{where}: 'chance' must be a text such as 'reveal S2'")
            if not state.is_chance_node():
                raise RecordError(f"{where} ({text}): no chance outcome is pending here")
            try:
                events = state.apply_chance(ActionCodec.parse_chance(text))
            except ActionError as exc:
                raise RecordError(f"{where} ({text}): {exc}") from exc
            # The authority drew this outcome with one call of the game's RNG: advance it the
            # same way, so a resumed or restarted game's future chance is what it would have been.
            state.rng.random()
            if on_events is not None:
                on_events(i, events)
            continue
        seat = entry.get("seat")
        text = entry.get("action")
        _require(isinstance(text, str), f"{where}: needs an 'action' text")
        if state.is_terminal():
            raise RecordError(f"{where} ({text}): the game is already over")
        if state.is_chance_node():
            raise RecordError(f"{where} ({text}): the record lacks a chance outcome before it")
        if seat != state.current_player:
            raise RecordError(
                f"{where} ({text}): recorded for seat {seat}, but seat {state.current_player} is to act")
        try:
            events = state.apply(parse_action(str(text)))
        except ActionError as exc:
            raise RecordError(f"{where} (seat {seat}: {text}): {exc}") from exc
        if on_events is not None:
            on_events(i, events)
    if state.is_chance_node():
        raise RecordError("record: it ends before a pending chance outcome (the extra tile's reveal)")
    check_result(state, record.get("result"))
    return state


def _replay_table(record: dict[str, Any], board: Board, players: int, variants: list[str],
                  on_events: Callable[[int, list[Event]], None] | None) -> State:
    from rebirth.engine.table import replay_table

    try:
        game = Game.create(board, players, variants)
    except SetupError as exc:
        raise RecordError(f"record: {exc}") from exc
    return replay_table(record, game, on_events=on_events)


def load_record(text: str | bytes) -> Any:
    """Decode record text (or UTF-8 bytes) and check it against the record schema.

    Returns the decoded document for :func:`replay`; RecordError, naming the
    field, on invalid UTF-8, malformed or oversized JSON, or an ill-typed record.
    """
    data = decode_json(text, "record", RecordError, max_bytes=MAX_RECORD_BYTES)
    if not isinstance(data, dict):
        raise RecordError("record: must be a JSON object")
    try:
        validate_record(data)
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    return data


def read_record(path: str) -> Any:
    """:func:`load_record` of a file; RecordError when it cannot be read (a FIFO,
    a device and an oversized file are refused without reading them)."""
    return load_record(read_regular_file(path, MAX_RECORD_BYTES, RecordError, what="record"))
