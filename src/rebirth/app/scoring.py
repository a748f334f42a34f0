"""How a position scores "if the game ended now": shared by ``rebirth score`` and ``POST /api/score``.

FILE is a game record (normal or table game, scored at its last position: a finished
game gives its final result, the same as ``rebirth replay --json``) or a ``Position``
JSON (docs/positions.md). Everything is computed by the engine: the record's state or
:mod:`rebirth.engine.position` (end scoring E-2, T-7, C-5, missions K-2/I-9, winners
E-3/E-4, castle control C-1…C-4, settlement standings T-1…T-7).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from rebirth.engine import explain
from rebirth.engine.actions import IllegalActionError
from rebirth.engine.board import MapError, load_board
from rebirth.engine.events import Event
from rebirth.engine.game import Game, SetupError
from rebirth.engine.i18n import pick
from rebirth.engine.messages import msg, render_value
from rebirth.engine.messages import text as message_text
from rebirth.engine.position import (
    Position,
    PositionError,
    castle_control,
    end_scoring,
    settlement_standings,
    tiles_state,
)
from rebirth.engine.records import RecordError, replay_game
from rebirth.engine.state import State
from rebirth.engine.table import TableGame
from rebirth.engine.tiles import TILE_CODES, starting_tiles, tile_code


def tr(key: str, lang: str, **kw: Any) -> str:
    """The scoring text ``score.<key>`` in ``lang`` (see ``docs/messages.md``)."""
    return message_text(f"score.{key}", lang, **kw)


@dataclass
class Scored:
    """What ``score`` shows, however the file came in."""

    game: Game
    names: list[str]
    finished: bool
    running: tuple[tuple[int, ...], list[dict[str, int]]] | None
    scores: list[int]
    breakdown: list[dict[str, int]]
    winners: list[int]
    events: list[Event]
    missions_scored: bool
    position: Position
    board_state: State
    checked: State | None = None
    """The validated state at ``position`` (:meth:`Position.checked_state`), when one was built."""


def _board_state(state: State) -> State:
    """The board of ``state`` as a not-finished state (for standings and tiebreak counts)."""
    return state.board_copy() if state.done else state


def from_record(record: Any, board_file: str | None) -> Scored:
    """Score a record at its last position (RecordError / PositionError on bad input)."""
    board = load_board(board_file) if board_file else None
    got = replay_game(record, board=board)
    names = [str(p.get("name", f"Player {i + 1}")) if isinstance(p, dict) else f"Player {i + 1}"
             for i, p in enumerate(record["players"])]
    if got.is_chance_node():
        raise RecordError("error.record.pending_outcome")
    state = got.state if isinstance(got, TableGame) else got
    if state.done:
        board_state = _board_state(state)
        if isinstance(got, TableGame):
            pos = got.board_copy().position()
        else:
            pos = Position.from_state(board_state, secrets=True)
        return Scored(state.game, names, True, None, state.score[:],
                      [state.breakdown(q) for q in range(state.n)], state.winners,
                      list(state.final_events), True, pos, board_state)
    pos = got.position() if isinstance(got, TableGame) else Position.from_state(state, secrets=True)
    return _from_position(state.game, pos, names, state)


def _from_position(game: Game, pos: Position, names: list[str], state: State | None,
                   checked: State | None = None) -> Scored:
    """``checked``: the validated state at ``pos``, if the caller has one (else built here)."""
    chk = pos.checked_state(game) if checked is None else checked
    end = end_scoring(game, pos, state=chk)
    running = (pos.scores, [dict(b) for b in pos.breakdown])
    if state is None:
        # As Position.to_state(game): play would go on with seat 0 to move.
        state = chk.clone()
        state.start_play(0)
    return Scored(game, names, False, running, list(end.scores), list(end.breakdown),
                  list(end.winners), list(end.events), end.missions_scored, pos, state, chk)


def from_position_json(data: Any, lang: str) -> Scored:
    """Score a Position JSON (PositionError naming the bad field or hex)."""
    pos = Position.from_json(data)
    try:
        game = Game.create(pos.board, pos.players, pos.variants)
    except (SetupError, MapError) as exc:
        raise PositionError("error.board_variants", exc=exc) from exc
    pos.validate(game)
    names = [tr("player", lang, n=q + 1) for q in range(pos.players)]
    return _from_position(game, pos, names, None)


def tiebreak(sc: Scored, lang: str) -> dict[str, Any]:
    """Which rule decides the winner (E-3 / E-4), with the counts it used; ``text`` is the
    engine's tiebreak message (``msg``, see :func:`rebirth.engine.explain.tiebreak_message`)."""
    st = sc.board_state
    b = st.board
    best = max(sc.scores)
    tied = [q for q in range(st.n) if sc.scores[q] == best]
    rule = "E-4" if b.is_ireland else "E-3"
    names = sc.names
    winners, how = st.decide_winners(list(sc.scores))
    m = explain.tiebreak_message(b, how, best, winners)
    said = {"msg": m, "text": render_value(m, lang, names)}
    if len(tied) == 1:
        return {"tied": tied, "rule": None, "by": "score", **said}
    assert how is not None  # seats are tied
    if how["by"] == "castle":
        c = next(c for c in b.castles if c.id == how["id"])
        return {"tied": tied, "rule": rule, "by": f"castle:{c.id}", "holder": sc.winners[0], **said}
    if how["by"] == "tower":
        tw = next(t for t in b.towers if t.id == how["id"])
        counts = {q: how["counts"][q] for q in tied}
        return {"tied": tied, "rule": rule, "by": f"tower:{tw.id}", "counts": counts, **said}
    return {"tied": list(sc.winners), "rule": rule, "by": "shared", **said}


def to_json(sc: Scored, lang: str) -> dict[str, Any]:
    """The JSON ``score --json`` prints; ``scores``/``breakdown``/``winners`` are the result."""
    game = sc.game
    chk = sc.checked if sc.checked is not None else sc.position.checked_state(game)
    castles = [{"castle": c.castle, "hex": c.hex, "holder": c.holder, "adjacent": list(c.adjacent),
                "farms": list(c.farms)} for c in castle_control(game, sc.position, state=chk)]
    districts = [{"district": d.district, "hexes": list(d.hexes), "complete": d.complete,
                  "influence": list(d.influence), "order": list(d.order),
                  "last_placer": d.last_placer, "tied": d.tied, "points": list(d.points),
                  # A tie is decided by the last placer: at completion (T-4), or at the end (T-7).
                  "tie_rule": "T-4" if d.complete else "T-7", "last_matters": d.last_matters}
                 for d in settlement_standings(game, sc.position, state=chk)]
    missions = [{"seat": e.seat, "card": e.data.get("mission"), "fulfilled": e.data.get("fulfilled"),
                 "points": e.points, "rule": e.rule,
                 "text": e.render(lang, sc.names, seat=e.seat)}
                for e in sc.events if e.kind == "mission"]
    return {
        "board": game.board.id,
        "players": game.players,
        "variants": sorted(game.variants),
        "names": sc.names,
        "finished": sc.finished,
        "categories": list(sc.board_state.categories),
        "running": None if sc.running is None else {"scores": list(sc.running[0]),
                                                    "breakdown": sc.running[1]},
        "scores": sc.scores,
        "breakdown": sc.breakdown,
        "winners": sc.winners,
        "tiebreak": tiebreak(sc, lang),
        "missions_scored": sc.missions_scored,
        "missions": missions,
        "end_scoring": [{"rule": e.rule, "seat": e.seat, "points": e.points, "key": e.key,
                         "text": e.render(lang, sc.names, seat=e.seat)} for e in sc.events],
        "castles": castles,
        "settlements": districts,
    }


# ------------------------------------------------------------- the calculator page


class CalcAsk(PositionError):
    """A position the board cannot decide alone: the page must ask (castle or district tie)."""

    def __init__(self, key: str, asks: list[dict[str, Any]], /, **args: Any) -> None:
        super().__init__(key, **args)
        self.asks = asks


def _seats(mask: int, n: int) -> tuple[int, ...]:
    """The seats of a bit mask (cathedral pieces, tower visits)."""
    return tuple(q for q in range(n) if mask >> q & 1)


def complete(game: Game, pos: Position, *, refresh: bool = False) -> tuple[Position, list[dict[str, Any]]]:
    """See :func:`_complete` (which also hands back the state it built)."""
    out, choices, _ = _complete(game, pos, refresh=refresh)
    return out, choices


def _complete(game: Game, pos: Position, *,
              refresh: bool = False) -> tuple[Position, list[dict[str, Any]], State]:
    """Fill in what the tiles decide and the position leaves out: cathedral pieces and tower
    visits (exactly the seats next to them, K-1/I-6), the holder of a castle whose majority or
    farm tiebreak decides it (C-1…C-3), and the public missions met (I-10). What the position
    does give is kept, so that validation refuses a contradiction exactly as ``rebirth score``
    does; ``refresh`` (the page after an edit, whose derived facts may be stale) recomputes
    them from the tiles instead, keeping only tie choices and fulfilled castle missions.
    A full tie at a castle or on influence in a district depends on history: :class:`CalcAsk`
    names it and the seats when the position does not say; when it does, the tie is returned
    as a choice the page shows (``kind``, ``id``, ``seats``, ``chosen``)."""
    b = game.board
    n = game.players
    # What the tiles decide is the engine's answer (the rules are not worked out here).
    tiles = tiles_state(game, pos)
    cath = dict(pos.cathedrals)
    for c in b.cathedrals:
        if refresh or c.id not in cath:
            cath[c.id] = _seats(tiles.visited.cathedral_pieces[c.index], n)
    visits = dict(pos.tower_visits)
    for tw in b.towers:
        if refresh or tw.id not in visits:
            visits[tw.id] = _seats(tiles.visited.tower_visits[tw.index], n)
    held = dict(pos.castles)
    asks: list[dict[str, Any]] = []
    choices: list[dict[str, Any]] = []
    for c in b.castles:
        top = tiles.castle_contenders(c.index)
        if not refresh and c.id in held and (len(top) < 2 or held[c.id] not in top):
            continue  # given: validation checks it against the tiles (C-1…C-3)
        if not top:
            held.pop(c.id, None)
        elif len(top) == 1:
            held[c.id] = top[0]
        elif held.get(c.id) not in top:
            held.pop(c.id, None)
            asks.append({"kind": "castle", "id": c.id, "hex": c.label, "seats": top,
                         "name": dict(c.name)})
        else:
            choices.append({"kind": "castle", "id": c.id, "hex": c.label, "seats": top,
                            "name": dict(c.name), "chosen": held[c.id]})
    last = dict(pos.district_last)
    for d in b.districts:
        present = tiles.district_seats(d.index)
        if refresh and last.get(d.id) not in present:
            last.pop(d.id, None)
        if tiles.last_placer_matters(d.index):
            entry = {"kind": "district", "id": d.id, "seats": present,
                     "hexes": [b.spaces[h].label for h in d.spaces]}
            if d.id in last:
                choices.append({**entry, "chosen": last[d.id]})
            else:
                asks.append(entry)
    out = replace(pos, cathedrals=tuple((k, v) for k, v in cath.items() if v),
                  tower_visits=tuple((k, v) for k, v in visits.items() if v),
                  castles=tuple(held.items()), district_last=tuple(last.items()))
    out = _fulfilled(game, out, tiles, refresh=refresh)
    if asks:
        a = asks[0]
        what = (msg("score.ask.castle", id=a["id"], hex=a["hex"]) if a["kind"] == "castle"
                else msg("score.ask.district", id=a["id"]))
        raise CalcAsk("score.ask", asks, what=what, seats=str(a["seats"]))
    return out, choices, tiles


def _fulfilled(game: Game, pos: Position, st: State, *, refresh: bool = False) -> Position:
    """Ireland: every seat that meets a public mission on display has fulfilled it (I-10); a
    castle mission listed as fulfilled stays so (castles can be lost again). A mission the
    position lists is kept as given (validation checks it) unless ``refresh``. ``st``: the
    state of the position's tiles (:func:`tiles_state`), into which the position is loaded
    to find out (not validated: the caller loads and validates it again)."""
    by_id = {c.id: i for i, c in enumerate(game.cards)}
    if not game.board.is_ireland or not pos.display or any(m not in by_id for m in pos.display):
        return pos
    try:
        st.load_facts(replace(pos, fulfilled=()))
    except (PositionError, ValueError, KeyError, IndexError):
        return pos  # validate names what is wrong
    given = dict(pos.fulfilled)
    ful = []
    for mid in pos.display:
        m = by_id[mid]
        if not refresh and mid in given:
            if given[mid]:
                ful.append((mid, tuple(given[mid])))
            continue
        keep = {q for q in given.get(mid, ()) if isinstance(q, int) and 0 <= q < st.n
                and st.is_castle_mission(m)}
        seats = sorted({q for q in range(st.n) if st.meets_mission(m, q)} | keep)
        if seats:
            ful.append((mid, tuple(seats)))
    return replace(pos, fulfilled=tuple(ful))


def _regions(st: State, lang: str) -> list[dict[str, Any]]:
    b = st.board
    n = st.n
    out = []
    for r in b.regions:
        spaces = [s for s in b.spaces if s.region == r.index]
        out.append({"region": r.id, "name": r.name.get(lang, r.name["en"]), "spaces": len(spaces),
                    "free": sum(1 for s in spaces if st.occupancy.owner[s.index] == -1),
                    "tiles": [st.occupancy.region_tiles[r.index * n + q] for q in range(n)],
                    "hexes": [s.label for s in spaces]})
    return out


def _clusters(st: State) -> list[dict[str, Any]]:
    """Farm clusters: connected tiles of one seat and one farm kind (E or F)."""
    b = st.board
    groups: dict[int, list[int]] = {}
    for s in b.spaces:
        q = st.occupancy.owner[s.index]
        if 0 <= q < st.n and st.occupancy.tile[s.index] < 2:
            groups.setdefault(st.group_root(s.index), []).append(s.index)
    rows = sorted(groups.values(), key=lambda hs: (-len(hs), st.occupancy.owner[hs[0]], hs))
    return [{"seat": st.occupancy.owner[hs[0]], "tile": tile_code(st.occupancy.tile[hs[0]]), "size": len(hs),
             "hexes": sorted(b.spaces[h].label for h in hs)} for hs in rows]


def heat(game: Game, pos: Position, seat: int, lang: str, names: list[str], *,
         state: State | None = None) -> list[dict[str, Any]]:
    """What the next tile of each kind the seat still has would score on every free hex (P-5).

    :meth:`State.score_placement` (as :func:`rebirth.engine.position.preview`) on one validated state
    (the position is checked once per request, not once per hex); illegal pairs are skipped."""
    base = pos.checked_state(game) if state is None else state
    if not 0 <= seat < base.n:
        raise PositionError("error.seat_not_seat_0", seat=repr(seat), n=base.n - 1)
    b = base.board
    have = sorted(set(base.tiles.supply[seat]))
    out = []
    for s in b.spaces:
        if base.occupancy.owner[s.index] != -1:
            continue
        for t in have:
            try:
                sc = base.score_placement(s.index, tile=t, seat=seat)
            except IllegalActionError:
                continue
            events = [e.for_seat(None) for e in sc.events]
            out.append({"hex": s.label, "tile": tile_code(t), "points": list(sc.points),
                        "extra_tiles": sc.extra_tiles, "x2_markers": sc.x2_markers,
                        "why": [f"[{e.rule}] {e.render(lang, names)}" if e.rule else e.render(lang, names)
                                for e in events]})
    return out


def calculate(data: Any, seat: int, lang: str, names: list[str] | None = None, *,
              refresh: bool = False) -> dict[str, Any]:
    """Everything the calculator page shows for a (possibly incomplete) Position JSON;
    ``names`` (one per seat) name the seats in the explanations ("Player n" if not given);
    ``refresh``: see :func:`complete`.

    Raises PositionError (CalcAsk where the page must ask) naming the field or hex."""
    pos = Position.from_json(data)
    try:
        game = Game.create(pos.board, pos.players, pos.variants)
    except (SetupError, MapError) as exc:
        raise PositionError("error.board_variants", exc=exc) from exc
    pos, choices, built = _complete(game, pos, refresh=refresh)
    # The one validation and the one state of the request: every part below reads it (or a
    # clone of it where the engine must play on).
    chk = pos.checked_state(game, into=built)
    if names is None or len(names) != pos.players:
        names = [tr("player", lang, n=q + 1) for q in range(pos.players)]
    sc = _from_position(game, pos, names, None, chk)
    out = to_json(sc, lang)
    st = sc.board_state
    b = st.board
    n = st.n
    out["position"] = pos.to_json()
    out["choices"] = choices
    out["regions"] = _regions(st, lang)
    out["clusters"] = _clusters(st)
    out["heat"] = {"seat": seat, "cells": heat(game, pos, seat, lang, names, state=chk)}
    out["cathedrals"] = [{"id": c.id, "hex": c.label, "name": c.name.get(lang, c.name["en"]),
                          "seats": [q for q in range(n) if st.visited.cathedral_pieces[c.index] >> q & 1]}
                         for c in b.cathedrals]
    tok = dict(pos.tower_tokens)
    out["towers"] = [{"id": t.id, "hex": t.label, "name": t.name.get(lang, t.name["en"]),
                      "token": tok.get(t.id),
                      "seats": [q for q in range(n) if st.visited.tower_visits[t.index] >> q & 1],
                      "next_to": [st.tara_count(t.index, q) for q in range(n)]} for t in b.towers]
    out["ports"] = [sum(1 for s in b.spaces if s.port and st.occupancy.owner[s.index] == q) for q in range(n)]
    out["offshore"] = [st.occupancy.offshore_farms[q] for q in range(n)]
    full, _ = starting_tiles(n)
    out["supply"] = [{code: sum(1 for x in st.tiles.supply[q] if tile_code(x) == code) for code in TILE_CODES}
                     for q in range(n)]
    cards = {c.id: c for c in game.cards}
    ful = dict(pos.fulfilled)
    out["public"] = [{"card": mid, "text": pick(cards[mid].text, lang),
                      "values": list(cards[mid].values),
                      "fulfilled": list(ful.get(mid, ()))} for mid in pos.display]
    out["supply_full"] = {code: sum(1 for x in full if tile_code(x) == code) for code in TILE_CODES}
    return out
