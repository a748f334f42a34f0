"""The server-side cost of one broadcast to N spectator connections (issue 15 item 6).

In-process, without a network: a Registry on a fresh SQLite file, one Scotland game of two
humans, N spectator connections whose sockets only take the text. Each of 20 steps is taken
by the match and broadcast; it prints the median and the largest broadcast time. What it
isolates is the serialisation: before each distinct payload was serialised once per
broadcast, every connection cost one serialisation of its own.

    python benchmarks/broadcast.py --spectators 1000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from rebirth.server.persistence.store import Store
from rebirth.server.play.session import Conn, Registry
from rebirth.server.settings import Settings, sqlite_url


class Sink:
    """A socket that takes the frames (serialised as Starlette would) and sends nothing."""

    async def send_text(self, text: str) -> None:
        return None

    async def send_json(self, msg: Any) -> None:
        json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


async def run(spectators: int, steps: int, tmp: Path) -> dict[str, Any]:
    s = Settings(database_url=sqlite_url(tmp / "broadcast.db"), bot_delay=0)
    registry = Registry(Store(s.resolved_database_url()), s)
    hub, _ = await registry.create("scotland", ["human", "human"], ["A", "B"], [], "en", False)
    for _ in range(spectators):
        c = Conn(Sink())  # type: ignore[arg-type]
        c.role, c.last = "spectator", hub.match.version
        hub.conns.append(c)
    times = []
    for _ in range(steps):
        m = hub.match
        p = m.state.current_player
        m.submit(p, m.view(p).to_json()["legal_actions"][0], m.version)
        t0 = time.perf_counter()
        await hub._broadcast()
        times.append(time.perf_counter() - t0)
    registry.store.close()
    return {"spectators": spectators, "steps": steps,
            "median_ms": round(1000 * statistics.median(times), 2), "max_ms": round(1000 * max(times), 2)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--spectators", type=int, default=1000)
    ap.add_argument("--steps", type=int, default=20)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = asyncio.run(run(args.spectators, args.steps, Path(tmp)))
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
