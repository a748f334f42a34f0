"""``rebirth score FILE``: the scoring of a position "if the game ended now".

FILE is a game record (scored at its last position) or a ``Position`` JSON
(docs/positions.md). The computation lives in :mod:`rebirth.app.scoring`, shared with the
calculator page's ``POST /api/score``; this module reads the file and prints.
"""

from __future__ import annotations

import argparse
import json
import sys

from rebirth.app.scoring import Scored, from_position_json, from_record, tiebreak, to_json, tr
from rebirth.engine.board import MapError
from rebirth.engine.formats import MAX_RECORD_BYTES, decode_json, read_regular_file
from rebirth.engine.position import FORMAT as POSITION_FORMAT
from rebirth.engine.position import PositionError
from rebirth.engine.records import FORMAT as RECORD_FORMAT
from rebirth.engine.records import RecordError

__all__ = ["Scored", "from_position_json", "from_record", "run", "tiebreak", "to_json"]


def _print(sc: Scored, lang: str) -> None:
    data = to_json(sc, lang)
    names = sc.names
    cats = data["categories"]
    from rebirth.cli.texts import Texts

    tx = Texts(lang)
    print(tr("head_final" if sc.finished else "head_now", lang))
    width = max(len(n) for n in names)
    heads = [tx(f"cat_{c}") for c in cats]
    extra = [] if sc.running is None else [tr("running", lang)]
    print(" " * width + "  " + " ".join(f"{h:>9}" for h in heads + extra)
          + f" {tr('total', lang):>7}")
    for q in range(len(names)):
        row = [f"{sc.breakdown[q].get(c, 0):>9}" for c in cats]
        if sc.running is not None:
            row.append(f"{sc.running[0][q]:>9}")
        print(f"{names[q]:<{width}}  " + " ".join(row) + f" {sc.scores[q]:>7}")
    w = ", ".join(names[q] for q in sc.winners)
    print(f"{tr('winner' if len(sc.winners) == 1 else 'winners', lang)}: {w} — "
          f"{data['tiebreak']['text']}")
    print()
    print(tr("end_events", lang) + ":")
    for e in data["end_scoring"]:
        print(f"  [{e['rule']}] {e['text']}")
    if not sc.missions_scored:
        print("  " + tr("missions_unknown", lang))
    print()
    print(tr("castles", lang) + ":")
    for c in data["castles"]:
        hol = names[c["holder"]] if c["holder"] >= 0 else tr("nobody", lang)
        counts = ", ".join(f"{names[q]} {a}/{f}" for q, (a, f) in
                           enumerate(zip(c["adjacent"], c["farms"], strict=True)) if a)
        print(f"  {c['castle']} ({c['hex']}): {hol}" + (f" — {counts}" if counts else ""))
    print()
    print(tr("settlements", lang) + ":")
    for d in data["settlements"]:
        order = ", ".join(f"{names[q]} {d['influence'][q]}" for q in d["order"])
        pts = ", ".join(f"{names[q]} +{p}" for q, p in enumerate(d["points"]) if p)
        state = tr("complete" if d["complete"] else "incomplete", lang)
        last = f"; {tr('last', lang)}: {names[d['last_placer']]}" if d["last_placer"] >= 0 else ""
        print(f"  {d['district']} [{' '.join(d['hexes'])}]: {order} — {state}: {pts or '0'}{last}")


def run(args: argparse.Namespace) -> int:
    lang = args.lang
    try:
        # Bounded and safe: a FIFO, a device or an oversized file is refused unread.
        raw = read_regular_file(args.file, MAX_RECORD_BYTES, RecordError, what="file")
    except RecordError as exc:
        print(tr("bad_file", lang, path=args.file, msg=exc), file=sys.stderr)
        return 2
    try:
        data = decode_json(raw, "file", RecordError, max_bytes=MAX_RECORD_BYTES)
        fmt = data.get("format") if isinstance(data, dict) else None
        if fmt == RECORD_FORMAT:
            sc = from_record(data, args.map)
        elif fmt == POSITION_FORMAT:
            sc = from_position_json(data, lang)
        else:
            print(tr("bad_kind", lang, path=args.file, fmt=repr(fmt)), file=sys.stderr)
            return 1
    except PositionError as exc:
        print(tr("error", lang, path=args.file, msg=exc.message(lang)), file=sys.stderr)
        return 1
    except (RecordError, MapError) as exc:
        print(tr("error", lang, path=args.file, msg=exc), file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(to_json(sc, lang), ensure_ascii=False))
        return 0
    _print(sc, lang)
    return 0
