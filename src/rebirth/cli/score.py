"""``rebirth score FILE``: the scoring of a position "if the game ended now".

FILE is a game record (normal or table game, scored at its last position: a finished
game gives its final result, the same as ``rebirth replay --json``) or a ``Position``
JSON (docs/positions.md). Everything is computed by the engine: the record's state or
:mod:`rebirth.engine.position` (end scoring E-2, T-7, C-5, missions K-2/I-9, winners
E-3/E-4, castle control C-1…C-4, settlement standings T-1…T-7).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any

from rebirth.engine.board import MapError, load_board
from rebirth.engine.events import Event
from rebirth.engine.formats import MAX_RECORD_BYTES, decode_json, read_regular_file
from rebirth.engine.game import Game, SetupError
from rebirth.engine.position import (
    FORMAT as POSITION_FORMAT,
)
from rebirth.engine.position import (
    Position,
    PositionError,
    castle_control,
    end_scoring,
    settlement_standings,
)
from rebirth.engine.records import FORMAT as RECORD_FORMAT
from rebirth.engine.records import RecordError, replay
from rebirth.engine.state import State
from rebirth.engine.table import TableState

_T: dict[str, tuple[str, str]] = {
    "player": ("Player {n}", "Spieler {n}"),
    "head_final": ("Final scoring (the game is over)", "Schlusswertung (die Partie ist vorbei)"),
    "head_now": ('If the game ended now (E-2)', "Wenn die Partie jetzt endete (E-2)"),
    "running": ("so far", "bisher"),
    "end": ("end", "Ende"),
    "total": ("total", "Summe"),
    "winner": ("Winner", "Sieger"),
    "winners": ("Shared win", "Geteilter Sieg"),
    "tb_none": ("{score} points, no tie", "{score} Punkte, kein Gleichstand"),
    "tb_castle": ("tie on {score} points ({tied}): {holder} holds {castle} ({rule})",
                  "Gleichstand mit {score} Punkten ({tied}): {holder} hält {castle} ({rule})"),
    "tb_castle_literal": ("tie on {score} points ({tied}): {holder} holds {castle} and wins "
                          "(variant stirling_literal, E-3)",
                          "Gleichstand mit {score} Punkten ({tied}): {holder} hält {castle} und "
                          "gewinnt (Variante stirling_literal, E-3)"),
    "tb_tower": ("tie on {score} points ({tied}): most occupied spaces next to {tower}: {counts} "
                 "(E-4)",
                 "Gleichstand mit {score} Punkten ({tied}): die meisten besetzten Felder an "
                 "{tower}: {counts} (E-4)"),
    "tb_shared": ("tie on {score} points ({tied}): no tiebreak decides, the win is shared ({rule})",
                  "Gleichstand mit {score} Punkten ({tied}): kein Stichentscheid, der Sieg wird "
                  "geteilt ({rule})"),
    "castles": ("Castles (C-1…C-5): holder, tiles next to it, farms among them",
                "Burgen (C-1…C-5): Halter, Plättchen daneben, davon Farmen"),
    "nobody": ("nobody", "niemand"),
    "settlements": ("Settlement districts (T-1…T-7): influence in rank order",
                    "Siedlungsgebiete (T-1…T-7): Einfluss in Rangfolge"),
    "complete": ("complete, paid", "vollständig, gezahlt"),
    "incomplete": ("incomplete, would pay (T-7)", "unvollständig, würde zahlen (T-7)"),
    "last": ("last placer", "zuletzt gelegt"),
    "end_events": ("End scoring, rule by rule", "Schlusswertung, Regel für Regel"),
    "missions_unknown": (
        "Secret missions are not scored: the position does not hold the players' cards.",
        "Geheime Missionen werden nicht gewertet: die Stellung enthält die Karten der Spieler nicht."),
    "bad_file": ("error: cannot read {path}: {msg}", "Fehler: {path} kann nicht gelesen werden: {msg}"),
    "bad_kind": ("error: {path}: neither a game record nor a position (its 'format' is {fmt!r})",
                 "Fehler: {path}: weder eine Partie noch eine Stellung ('format' ist {fmt!r})"),
    "error": ("error: {path}: {msg}", "Fehler: {path}: {msg}"),
}


def _t(key: str, lang: str, **kw: Any) -> str:
    en, de = _T[key]
    return (de if lang == "de" else en).format(**kw)


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


def _board_state(state: State) -> State:
    """The board of ``state`` as a not-finished state (for standings and tiebreak counts)."""
    if not state.done:
        return state
    c = state.clone()
    c.done = False  # the tables (occupancy, holders, influence) are the same; scores are not read
    return c


def _position_of(state: State) -> Position:
    if isinstance(state, TableState):
        return state.position()
    return Position.from_state(state, secrets=True)


def from_record(record: Any, board_file: str | None) -> Scored:
    """Score a record at its last position (RecordError / PositionError on bad input)."""
    board = load_board(board_file) if board_file else None
    state = replay(record, board=board)
    names = [str(p.get("name", f"Player {i + 1}")) if isinstance(p, dict) else f"Player {i + 1}"
             for i, p in enumerate(record["players"])]
    if state.is_chance_node():
        raise RecordError("record: it ends at a pending outcome; enter it first")
    if state.done:
        return Scored(state.game, names, True, None, state.score[:],
                      [state.breakdown(q) for q in range(state.n)], state.winners,
                      list(state.final_events), True, _position_of(_board_state(state)),
                      _board_state(state))
    pos = _position_of(state)
    return _from_position(state.game, pos, names, state)


def _from_position(game: Game, pos: Position, names: list[str], state: State | None) -> Scored:
    end = end_scoring(game, pos)
    running = (pos.scores, [dict(b) for b in pos.breakdown])
    st = state if state is not None else pos.to_state(game)
    return Scored(game, names, False, running, list(end.scores), list(end.breakdown),
                  list(end.winners), list(end.events), end.missions_scored, pos, st)


def from_position_json(data: Any, lang: str) -> Scored:
    """Score a Position JSON (PositionError naming the bad field or hex)."""
    pos = Position.from_json(data)
    try:
        game = Game.create(pos.board, pos.players, pos.variants)
    except (SetupError, MapError) as exc:
        raise PositionError(f"board/variants: {exc}", f"Spielplan/Varianten: {exc}") from exc
    pos.validate(game)
    names = [_t("player", lang, n=q + 1) for q in range(pos.players)]
    return _from_position(game, pos, names, None)


def tiebreak(sc: Scored, lang: str) -> dict[str, Any]:
    """Which rule decides the winner (E-3 / E-4), with the counts it used."""
    st = sc.board_state
    b = st.board
    best = max(sc.scores)
    tied = [q for q in range(st.n) if sc.scores[q] == best]
    rule = "E-4" if b.is_ireland else "E-3"
    names = sc.names
    tied_txt = ", ".join(names[q] for q in tied)
    if len(tied) == 1:
        return {"tied": tied, "rule": None, "by": "score",
                "text": _t("tb_none", lang, score=best)}
    for kind, ix in b.tiebreak:
        if kind == "castle":
            hol = st.holder[ix]
            c = b.castles[ix]
            cname = c.name.get(lang, c.name["en"])
            if hol >= 0 and sc.winners == [hol]:
                key = "tb_castle" if hol in tied else "tb_castle_literal"
                return {"tied": tied, "rule": rule, "by": f"castle:{c.id}", "holder": hol,
                        "text": _t(key, lang, score=best, tied=tied_txt, holder=names[hol],
                                   castle=cname, rule=rule)}
        else:
            tw = b.towers[ix]
            counts = {q: st.tara_count(ix, q) for q in tied}
            top = max(counts.values())
            tied_now = [q for q in tied if counts[q] == top]
            if len(tied_now) == 1:
                ctext = ", ".join(f"{names[q]} {counts[q]}" for q in tied)
                return {"tied": tied, "rule": rule, "by": f"tower:{tw.id}", "counts": counts,
                        "text": _t("tb_tower", lang, score=best, tied=tied_txt,
                                   tower=tw.name.get(lang, tw.name["en"]), counts=ctext)}
            tied = tied_now
    return {"tied": tied, "rule": rule, "by": "shared",
            "text": _t("tb_shared", lang, score=best, tied=tied_txt, rule=rule)}


def to_json(sc: Scored, lang: str) -> dict[str, Any]:
    """The JSON ``score --json`` prints; ``scores``/``breakdown``/``winners`` are the result."""
    game = sc.game
    castles = [{"castle": c.castle, "hex": c.hex, "holder": c.holder, "adjacent": list(c.adjacent),
                "farms": list(c.farms)} for c in castle_control(game, sc.position)]
    districts = [{"district": d.district, "hexes": list(d.hexes), "complete": d.complete,
                  "influence": list(d.influence), "order": list(d.order),
                  "last_placer": d.last_placer, "tied": d.tied, "points": list(d.points)}
                 for d in settlement_standings(game, sc.position)]
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


def _print(sc: Scored, lang: str) -> None:
    data = to_json(sc, lang)
    names = sc.names
    cats = data["categories"]
    from rebirth.cli.texts import Texts

    tx = Texts(lang)
    print(_t("head_final" if sc.finished else "head_now", lang))
    width = max(len(n) for n in names)
    heads = [tx(f"cat_{c}") for c in cats]
    extra = [] if sc.running is None else [_t("running", lang)]
    print(" " * width + "  " + " ".join(f"{h:>9}" for h in heads + extra)
          + f" {_t('total', lang):>7}")
    for q in range(len(names)):
        row = [f"{sc.breakdown[q].get(c, 0):>9}" for c in cats]
        if sc.running is not None:
            row.append(f"{sc.running[0][q]:>9}")
        print(f"{names[q]:<{width}}  " + " ".join(row) + f" {sc.scores[q]:>7}")
    w = ", ".join(names[q] for q in sc.winners)
    print(f"{_t('winner' if len(sc.winners) == 1 else 'winners', lang)}: {w} — "
          f"{data['tiebreak']['text']}")
    print()
    print(_t("end_events", lang) + ":")
    for e in data["end_scoring"]:
        print(f"  [{e['rule']}] {e['text']}")
    if not sc.missions_scored:
        print("  " + _t("missions_unknown", lang))
    print()
    print(_t("castles", lang) + ":")
    for c in data["castles"]:
        hol = names[c["holder"]] if c["holder"] >= 0 else _t("nobody", lang)
        counts = ", ".join(f"{names[q]} {a}/{f}" for q, (a, f) in
                           enumerate(zip(c["adjacent"], c["farms"], strict=True)) if a)
        print(f"  {c['castle']} ({c['hex']}): {hol}" + (f" — {counts}" if counts else ""))
    print()
    print(_t("settlements", lang) + ":")
    for d in data["settlements"]:
        order = ", ".join(f"{names[q]} {d['influence'][q]}" for q in d["order"])
        pts = ", ".join(f"{names[q]} +{p}" for q, p in enumerate(d["points"]) if p)
        state = _t("complete" if d["complete"] else "incomplete", lang)
        last = f"; {_t('last', lang)}: {names[d['last_placer']]}" if d["last_placer"] >= 0 else ""
        print(f"  {d['district']} [{' '.join(d['hexes'])}]: {order} — {state}: {pts or '0'}{last}")


def run(args: argparse.Namespace) -> int:
    lang = args.lang
    try:
        # Bounded and safe: a FIFO, a device or an oversized file is refused unread.
        raw = read_regular_file(args.file, MAX_RECORD_BYTES, RecordError, what="file")
    except RecordError as exc:
        print(_t("bad_file", lang, path=args.file, msg=exc), file=sys.stderr)
        return 2
    try:
        data = decode_json(raw, "file", RecordError, max_bytes=MAX_RECORD_BYTES)
        fmt = data.get("format") if isinstance(data, dict) else None
        if fmt == RECORD_FORMAT:
            sc = from_record(data, args.map)
        elif fmt == POSITION_FORMAT:
            sc = from_position_json(data, lang)
        else:
            print(_t("bad_kind", lang, path=args.file, fmt=fmt), file=sys.stderr)
            return 1
    except PositionError as exc:
        print(_t("error", lang, path=args.file, msg=exc.message(lang)), file=sys.stderr)
        return 1
    except (RecordError, MapError) as exc:
        print(_t("error", lang, path=args.file, msg=exc), file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(to_json(sc, lang), ensure_ascii=False))
        return 0
    _print(sc, lang)
    return 0
