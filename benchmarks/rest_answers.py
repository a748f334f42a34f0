"""CPU time per REST request of the heaviest answers (issue 24 item 3: the cost of declaring
every route's response model).

Starts the app in this process (FastAPI's TestClient, a temporary SQLite database), makes one
of each big answer — a finished bot game's record and summary, a table game's state after
``--entries`` entries (view, legal entries, series), its record, the calculator's answer for a
mid-game Ireland position, a shipped map with its facts, a catalog, "my games" for 50 links —
then asks each route ``--n`` times, the routes interleaved, and prints the median CPU time
(``time.process_time``: this process only, so a busy machine hardly moves it) and wall time per
request, in milliseconds. The client's own work is in both figures and the same before and
after a change: compare two runs, not absolute numbers.

    python benchmarks/rest_answers.py --n 200 --json
    PYTHONPATH=<other checkout>/src python benchmarks/rest_answers.py   # the other code

Measured (2026-12-02, the shared 2-core machine, n = 200): the answer's serialisation alone,
as ``dict[str, Any]`` (the routes' old return annotation, which FastAPI took as their response
model) / as its declared model: summary 1.8 / 3.0 µs, record 18 / 36, my games (50) 42 / 290,
table state 31 / 53, table record 6 / 14, score 103 / 189, Ireland map 65 / 87, catalog 67 /
122 µs: at most +250 µs a request, from +0.1 % (summary) to +2.2 % (catalog) of its CPU as
measured here (the test client's own work included: 1.8-25 ms). The whole requests, three
interleaved runs
of a807b71 and this code, differ by -0.2 to +14 % with ``/healthz`` (0.4 µs apart) at +7 %:
the machine's load drifted within the runs, more than the cost measured.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

import rebirth
from rebirth.app.match import Match
from rebirth.engine.game import Game
from rebirth.engine.position import Position
from rebirth.server.app import create_app
from rebirth.server.settings import Settings, sqlite_url

UNLIMITED: dict[str, Any] = {
    "rate_socket": "", "rate_socket_client": "", "rate_create": "", "rate_score": "", "rate_table": "",
    "max_games_per_client": 0, "max_bot_games": 0, "max_sockets_per_game": 0}
"""No rate limit and no cap: the benchmark asks as fast as it can."""


def _position(board: str, n: int, seed: int, moves: int) -> dict[str, Any]:
    """A mid-game Position JSON of a bot game (secret cards included)."""
    m = Match.start(Game.create(board, n), ["greedy"] * n, seed)
    for _ in range(moves):
        m.step_bot()
    if m.state.is_chance_node():
        m.step_bot()
    return Position.from_state(m.state, secrets=True).to_json()


def _finished_game(c: TestClient) -> tuple[str, str]:
    """A whole bot game (4 seats, Ireland); its id and its admin token."""
    r = c.post("/api/games", json={"board": "ireland", "players": 4, "seats": [{"kind": "easy"}] * 4})
    r.raise_for_status()
    g = r.json()
    gid, admin = g["game"], g["links"]["admin"].split("#t=", 1)[1]
    deadline = time.monotonic() + 300
    while c.get(f"/api/games/{gid}").json()["status"] != "over":
        if time.monotonic() > deadline:
            sys.exit("the bot game did not finish within 300 s")
        time.sleep(0.2)
    return gid, admin


def _table(c: TestClient, entries: int) -> tuple[str, dict[str, str]]:
    """A 4-player Scotland table game after ``entries`` entries (the first legal one each time)."""
    t = c.post("/api/tables", json={"players": 4}).json()
    auth = {"Authorization": f"Bearer {t['token']}"}
    url = f"/api/tables/{t['table']}"
    state = c.get(url, headers=auth).json()
    for _ in range(entries):
        legal = state["legal"]
        if state["over"]:
            break
        if legal["outcomes"]:
            body: dict[str, Any] = {"entry": legal["outcomes"][0]["text"], "version": state["version"]}
        else:
            hx, tiles = next(iter(legal["hexes"].items()))
            body = {"entry": f"{tiles[0]}@{hx}", "version": state["version"], "seat": state["seat"]}
        r = c.post(f"{url}/entries", json=body, headers=auth)
        r.raise_for_status()
        state = r.json()
    return t["table"], auth


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200, help="requests per route")
    ap.add_argument("--entries", type=int, default=40, help="table entries before measuring")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="rest-answers-"))
    settings = Settings(database_url=sqlite_url(tmp / "bench.db"), bot_delay=0.0, offline_grace=0.0,
                        web_dir=str(tmp / "web"), **UNLIMITED)
    with TestClient(create_app(settings)) as c:
        gid, admin = _finished_game(c)
        auth = {"Authorization": f"Bearer {admin}"}
        table, tauth = _table(c, args.entries)
        pos = _position("ireland", 4, 6, 30)
        toks = [admin] * 50
        routes: dict[str, Callable[[], httpx.Response]] = {
            "GET /api/games/{id}": lambda: c.get(f"/api/games/{gid}"),
            "GET /api/games/{id}/record": lambda: c.get(f"/api/games/{gid}/record", headers=auth),
            "POST /api/my-games (50)": lambda: c.post("/api/my-games", json={"tokens": toks}),
            "GET /api/tables/{id}": lambda: c.get(f"/api/tables/{table}", headers=tauth),
            "GET /api/tables/{id}/record": lambda: c.get(f"/api/tables/{table}/record", headers=tauth),
            "POST /api/score": lambda: c.post("/api/score", json={"position": pos, "seat": 1}),
            "GET /api/boards/ireland": lambda: c.get("/api/boards/ireland"),
            "GET /api/i18n/en": lambda: c.get("/api/i18n/en"),
            "GET /healthz": lambda: c.get("/healthz"),
        }
        cpu: dict[str, list[float]] = {k: [] for k in routes}
        wall: dict[str, list[float]] = {k: [] for k in routes}
        size: dict[str, int] = {}
        for k, call in routes.items():  # warm-up, and each answer's size
            r = call()
            r.raise_for_status()
            size[k] = len(r.content)
        for _ in range(args.n):
            for k, call in routes.items():
                c0, w0 = time.process_time(), time.perf_counter()
                call()
                cpu[k].append(time.process_time() - c0)
                wall[k].append(time.perf_counter() - w0)
        answers = {k: f().json() for k, f in routes.items()}
    out = {k: {"bytes": size[k], "cpu_ms": round(1000 * statistics.median(cpu[k]), 3),
               "wall_ms": round(1000 * statistics.median(wall[k]), 3)} for k in routes}
    alone = serialisation(answers, args.n)
    if args.json:
        print(json.dumps({"code": str(Path(rebirth.__file__).parent), "n": args.n, "routes": out,
                          "serialisation_us": alone}))
        return
    print(f"code: {Path(rebirth.__file__).parent}   n = {args.n} per route (medians)")
    print(f"{'route':32} {'bytes':>8} {'cpu ms':>8} {'wall ms':>8}")
    for k, v in out.items():
        print(f"{k:32} {v['bytes']:>8} {v['cpu_ms']:>8.3f} {v['wall_ms']:>8.3f}")
    if alone:
        print("\nthe answer's serialisation alone (µs, median; validate + dump_json, FastAPI's path): "
              "as dict[str, Any] (the return annotation before) / as its model in server/api/answers.py")
        for k, (untyped, typed) in alone.items():
            print(f"{k:32} {untyped:>10.1f} {typed:>10.1f}")


MODELS = {"GET /api/games/{id}": ("GameSummary", False), "GET /api/games/{id}/record": ("GameRecord", True),
          "POST /api/my-games (50)": ("MyGames", False), "GET /api/tables/{id}": ("TableState", False),
          "GET /api/tables/{id}/record": ("TableRecord", True), "POST /api/score": ("Score", False),
          "GET /api/boards/ireland": ("BoardData", False), "GET /api/i18n/en": ("Catalog", False),
          "GET /healthz": ("Health", False)}
"""Each route's answer model in server/api/answers.py and whether it is served without unset keys."""


def serialisation(answers: dict[str, Any], n: int) -> dict[str, tuple[float, float]]:
    """Per answer: what FastAPI does to it with the route's old return annotation
    (``dict[str, Any]``, which FastAPI also takes as a response model) and with its declared
    model (µs, medians). Empty when the code has no answer models (before issue 24)."""
    try:
        from rebirth.server import answers as models
    except ImportError:
        return {}
    from pydantic import TypeAdapter

    untyped: TypeAdapter[Any] = TypeAdapter(dict[str, Any])

    out: dict[str, tuple[float, float]] = {}
    for k, body in answers.items():
        name, unset = MODELS[k]
        ta: TypeAdapter[Any] = TypeAdapter(getattr(models, name))
        times: tuple[list[float], list[float]] = ([], [])
        for _ in range(n):
            t0 = time.perf_counter()
            untyped.dump_json(untyped.validate_python(body))
            t1 = time.perf_counter()
            ta.dump_json(ta.validate_python(body), exclude_unset=unset)
            t2 = time.perf_counter()
            times[0].append(t1 - t0)
            times[1].append(t2 - t1)
        out[k] = (round(1e6 * statistics.median(times[0]), 1), round(1e6 * statistics.median(times[1]), 1))
    return out


if __name__ == "__main__":
    main()
