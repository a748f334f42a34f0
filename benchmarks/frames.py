"""The cost of one WebSocket frame (issue 24 item 3): an ``update`` of a mid-game view encoded by
the declared types (server/realtime/protocol.py, msgspec) against the orjson dict it replaced,
and an ``act`` decoded and validated against the bounded parse it replaced. Medians of 7 runs.

    python benchmarks/frames.py
"""

from __future__ import annotations

import json
import statistics
import timeit

import orjson

from rebirth.app.match import Match
from rebirth.engine.game import Game
from rebirth.server.operations.guard import bounded_loads
from rebirth.server.realtime import protocol


def per_call(f: object, n: int = 2000) -> float:
    """Median microseconds per call of ``f`` over 7 runs of ``n``."""
    return statistics.median(timeit.repeat(f, number=n, repeat=7)) / n * 1e6  # type: ignore[arg-type]


def main() -> dict[str, float]:
    m = Match.start(Game.create("scotland", 4), ["greedy"] * 4, seed=3)
    for _ in range(30):
        m.step_bot()
    online = [True] * 4
    frame = protocol.update(m, 1, m.version - 2, online, None)
    as_dict = {"type": "update", "version": m.version, "view": m.view(1),
               "events": m.events_for(1, m.version - 2), "online": online, "clock": None}
    assert json.loads(protocol.encode(frame)) == orjson.loads(orjson.dumps(as_dict))
    raw = '{"type":"act","action":"C7","version":12}'
    out = {"update_bytes": float(len(protocol.encode(frame))),
           "update_encode_msgspec_us": per_call(lambda: protocol.encode(frame)),
           # What the server did before: the dict written by orjson, as text (a socket's frame).
           "update_encode_orjson_dict_us": per_call(
               lambda: orjson.dumps(as_dict, option=orjson.OPT_NON_STR_KEYS).decode()),
           "act_decode_typed_us": per_call(lambda: protocol.decode(raw)),
           "act_decode_bounded_loads_us": per_call(lambda: bounded_loads(raw))}
    print(json.dumps({k: round(v, 2) for k, v in out.items()}))
    return out


if __name__ == "__main__":
    main()
