"""The load benchmark through the reverse proxy (issue 15, "Load"): loopback only, bounded.

For each set-up — 1 worker on SQLite, 1 worker on PostgreSQL, 2 workers on PostgreSQL + Redis —
it starts ``scripts/proxy-stack.sh`` (Caddy in front of the workers) in a temporary directory
and, for each N, plays N concurrent two-player games over WebSockets through the proxy, each
seat a client-side bot picking a random legal action (benchmarks/load.py's clients). It
reports actions/s, the p50/p99 action latency (``act`` sent to its committed ``update``) and
the server CPU seconds per accepted action (user + system time of every worker process, from
/proc, over the playing window; the proxy's and Redis' own CPU separately). Each run stops at
its time limit; games still running then count with the actions they made.

    python benchmarks/load_proxy.py --games 10,100,500 --out test-output/load
    python benchmarks/load_proxy.py --games 10 --setups sqlite1 --time-limit 20

Needs caddy, redis-server and PostgreSQL (scripts/services.sh); PostgreSQL at
``REBIRTH_TEST_POSTGRES`` (default postgres@127.0.0.1:5432) gets a fresh database per run.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import random
import re
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import uvloop

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "proxy-stack.sh"
ADMIN_URL = os.environ.get("REBIRTH_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
SETUPS = {"sqlite1": "1 worker, SQLite", "pg1": "1 worker, PostgreSQL",
          "pg2redis": "2 workers, PostgreSQL + Redis",
          "pg2redis-rr": "2 workers, PostgreSQL + Redis, round robin"}
"""pg2redis: Caddy's default per-game routing (uri_hash: a game's sockets on one worker);
pg2redis-rr: each new connection on the next worker (two seats of a game usually apart)."""


def _load_module() -> Any:
    """benchmarks/load.py (its client-side bots and figures), imported by path."""
    spec = importlib.util.spec_from_file_location("load", Path(__file__).with_name("load.py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["load"] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


load = _load_module()
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its waited-for children (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # After the command: state ppid ... utime(12) stime(13) cutime(14) cstime(15), 0-based here.
    return sum(int(x) for x in fields[11:15]) / TICK


def tree(pid: int) -> list[int]:
    """A process and all its descendants (uvicorn with --workers has children)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for t in Path(f"/proc/{p}/task").iterdir():
                kids = (t / "children").read_text().split()
                todo.extend(int(k) for k in kids)
        except OSError:
            pass
    return out


class Stack:
    """One set-up started with scripts/proxy-stack.sh."""

    def __init__(self, setup: str, tmp: Path) -> None:
        self.setup, self.dir = setup, tmp / setup
        self.proxy = load.free_port()
        two = setup.startswith("pg2redis")
        ports = [load.free_port() for _ in range(2 if two else 1)]
        self.db_name = ""
        env = {k: v for k, v in os.environ.items() if not k.startswith("REBIRTH_")}
        env.update(PROXY_PORT=str(self.proxy), WORKER_PORTS=" ".join(map(str, ports)),
                   REDIS_PORT=str(load.free_port()), REBIRTH_BOT_DELAY="0",
                   # One load generator is one client address: no rate limits or caps.
                   **load.UNLIMITED_ENV,
                   REBIRTH_CMD=f"{sys.executable} -m rebirth.cli.main",
                   PYTHONPATH=os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")]))
        if setup == "sqlite1":
            env["REBIRTH_DATABASE_URL"] = f"sqlite:///{self.dir / 'load.db'}"
        else:
            from sqlalchemy import create_engine, text
            from sqlalchemy.engine import make_url

            self.db_name = f"rebirth_load_{secrets.token_hex(4)}"
            admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
            with admin.connect() as c:
                c.execute(text(f'CREATE DATABASE "{self.db_name}"'))
            admin.dispose()
            env["REBIRTH_DATABASE_URL"] = make_url(ADMIN_URL).set(database=self.db_name) \
                .render_as_string(hide_password=False)
        if not two:
            env["REBIRTH_REDIS_URL"] = "none"
        env["LB_POLICY"] = "round_robin" if setup.endswith("-rr") else "uri_hash"
        env["REBIRTH_REDIS_PREFIX"] = f"rebirth-load-{secrets.token_hex(3)}:"
        self.env, self.workers = env, len(ports)

    def run(self, cmd: str) -> None:
        subprocess.run(["sh", str(SCRIPT), cmd, str(self.dir)], env=self.env, check=True,
                       stdout=subprocess.DEVNULL, timeout=120)

    def pids(self, name: str) -> list[int]:
        f = self.dir / f"{name}.pid"
        return tree(int(f.read_text())) if f.exists() else []

    def cpu(self) -> dict[str, float]:
        workers = [p for n in range(1, self.workers + 1) for p in self.pids(f"worker{n}")]
        return {"workers": sum(map(cpu_seconds, workers)),
                "proxy": sum(map(cpu_seconds, self.pids("caddy"))),
                "redis": sum(map(cpu_seconds, self.pids("redis")))}

    def pg_cpu(self) -> dict[int, float]:
        """CPU seconds of each PostgreSQL backend serving this stack's database (pid: seconds)."""
        if not self.db_name:
            return {}
        from sqlalchemy import create_engine, text

        admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as c:
                pids = [r[0] for r in c.execute(text("SELECT pid FROM pg_stat_activity WHERE datname = :d"),
                                                {"d": self.db_name})]
        finally:
            admin.dispose()
        return {p: cpu_seconds(p) for p in pids}

    def drop(self) -> None:
        if self.db_name:
            from sqlalchemy import create_engine, text

            admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
            with admin.connect() as c:
                c.execute(text(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)'))
            admin.dispose()


class Baseline:
    """The server of an earlier revision (``sqlite1@REV``: 1 worker on SQLite, as the issue
    measured "today"), run from ``git archive REV`` behind the same Caddyfile, so that the
    old and the new code are measured in one run on one machine state."""

    def __init__(self, setup: str, tmp: Path) -> None:
        self.setup, self.dir, self.rev = setup, tmp / setup.replace("@", "-"), setup.split("@", 1)[1]
        self.proxy, self.port, self.workers = load.free_port(), load.free_port(), 1
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def run(self, cmd: str) -> None:
        if cmd == "start":
            self._start()
        else:
            for p in reversed(list(self.procs.values())):
                load.stop_server(p)
            self.procs.clear()

    def _start(self) -> None:
        src = self.dir / "tree"
        src.mkdir(parents=True, exist_ok=True)
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", self.rev, "src"], check=True,
                             capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=tar, check=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("REBIRTH_")}
        env.update(REBIRTH_BOT_DELAY="0", **load.UNLIMITED_ENV, PYTHONPATH=str(src / "src"))
        log = (self.dir / "worker.log").open("ab")
        self.procs["worker1"] = subprocess.Popen(
            [sys.executable, "-m", "rebirth.cli.main", "serve", "--host", "127.0.0.1", "--port",
             str(self.port), "--db", str(self.dir / "load.db")], env=env, cwd=self.dir,
            stdout=log, stderr=log, start_new_session=True)
        caddy_env = {**os.environ, "REBIRTH_SITE": f"http://127.0.0.1:{self.proxy}",
                     "REBIRTH_UPSTREAMS": f"127.0.0.1:{self.port}", "REBIRTH_BIND": "127.0.0.1",
                     "HOME": str(self.dir), "XDG_DATA_HOME": str(self.dir), "XDG_CONFIG_HOME": str(self.dir)}
        self.procs["caddy"] = subprocess.Popen(
            ["caddy", "run", "--config", str(ROOT / "deploy" / "Caddyfile"), "--adapter", "caddyfile"],
            env=caddy_env, stdout=log, stderr=log, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.proxy}/api/variants", timeout=2):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"{self.setup} did not start: {self.dir / 'worker.log'}") from None
                time.sleep(0.2)

    def pids(self, name: str) -> list[int]:
        p = self.procs.get(name)
        return tree(p.pid) if p is not None else []

    def cpu(self) -> dict[str, float]:
        return {"workers": sum(map(cpu_seconds, self.pids("worker1"))),
                "proxy": sum(map(cpu_seconds, self.pids("caddy"))), "redis": 0.0}

    def pg_cpu(self) -> dict[int, float]:
        """No PostgreSQL (SQLite, in the worker's own process)."""
        return {}

    def drop(self) -> None:
        """Nothing outside its folder."""


def create(port: int, board: str, n: int) -> list[tuple[str, list[str]]]:
    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(lambda _: load.create_game(port, board), range(n)))


async def play(port: int, made: list[tuple[str, list[str]]], time_limit: float, seed: int) -> Any:
    res = load.Result(len(made))
    dropped: dict[str, int] = {}  # exception name: sockets lost that way (the rest: error frames)
    res.dropped = dropped
    rng = random.Random(seed)
    t0 = time.perf_counter()
    stop_at = time.monotonic() + time_limit

    async def seat(gid: str, tok: str, s: int, r: random.Random) -> None:
        try:
            await load.seat_loop(port, gid, tok, s, res, 10_000, stop_at, r)
        except Exception as exc:  # a dropped or refused connection: counted, the run goes on
            res.errors += 1
            dropped[type(exc).__name__] = dropped.get(type(exc).__name__, 0) + 1

    tasks = [asyncio.ensure_future(seat(gid, toks[s], s, random.Random(rng.random())))
             for gid, toks in made for s in (0, 1)]
    # At the time limit a seat stops acting, and the other seat of its game would wait for
    # its move for ever: every loop still running shortly after the limit is cancelled.
    _, pending = await asyncio.wait(tasks, timeout=time_limit + 5)
    for t in pending:
        t.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    res.seconds = min(time.perf_counter() - t0, time_limit)
    return res


def profile(stack: Stack | Baseline, seconds: float, out: Path) -> Path | None:
    """``py-spy record --gil`` of worker 1 (raw collapsed stacks) for ``seconds``, in the
    background: only the thread holding the GIL is sampled, so waiting on PostgreSQL or the
    network does not count, Python's CPU does."""
    pid = stack.pids("worker1")[:1]
    if not pid:
        return None
    spy = Path(sys.executable).with_name("py-spy")
    cmd = [str(spy if spy.exists() else "py-spy"), "record", "--pid", str(pid[0]), "--duration",
           str(int(seconds)), "--format", "raw", "--rate", "250", "--nonblocking", "--gil",
           "--output", str(out)]
    subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


PACKAGES = (("rebirth/engine", "rules engine (views, legal actions)"), ("rebirth/bots", "bots"),
            ("rebirth/app", "match authority"), ("rebirth/server/store", "store (SQL building)"),
            ("rebirth/server", "server (hub, play, broker)"), ("sqlalchemy", "SQLAlchemy"),
            ("psycopg", "psycopg"), ("sqlite3", "sqlite3"), ("json", "json"),
            ("redis", "redis-py"), ("websockets", "websockets"), ("uvicorn", "uvicorn"),
            ("starlette", "starlette"), ("fastapi", "fastapi"), ("asyncio", "asyncio"),
            ("threading", "threads"), ("concurrent", "threads"))


def _own_files() -> dict[str, str]:
    """File name -> ``rebirth/<package>/<file>`` for the names unique in the source tree: py-spy
    shows some frames with the bare file name."""
    seen: dict[str, list[str]] = {}
    for f in (ROOT / "src").rglob("*.py"):
        seen.setdefault(f.name, []).append(f.relative_to(ROOT / "src").as_posix())
    return {name: paths[0] for name, paths in seen.items() if len(paths) == 1}


def _frame(f: str, own: dict[str, str]) -> str:
    """``func (file:line)`` -> ``func (rebirth/pkg/file)``: functions, not lines."""
    m = re.fullmatch(r"(.*) \((.*?)(?::\d+)?\)", f)
    if not m:
        return f
    name, file = m.groups()
    return f"{name} ({own.get(file, file) if '/' not in file else file})"


def profile_summary(path: Path, top: int = 12) -> str:
    """Where worker 1's time went, from ``py-spy record --format raw``: the share of samples
    by the package of the innermost frame (self time) and the functions most often on the stack
    (inclusive)."""
    files = _own_files()
    total = 0
    own: dict[str, int] = {}
    incl: dict[str, int] = {}
    for line in path.read_text("utf-8").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = [_frame(f, files) for f in stack.split(";")]
        where = frames[-1]
        label = next((lab for key, lab in PACKAGES if key in where), "other")
        own[label] = own.get(label, 0) + n
        # Functions, not lines; the command-line entry frames are on every main-thread stack.
        for f in {f for f in frames
                  if "rebirth/" in f and "rebirth/cli/" not in f and "server/cli.py" not in f}:
            incl[f] = incl.get(f, 0) + n
    if not total:
        return "(no samples)\n"
    lines = [f"{total} samples of worker 1 (py-spy record --gil, 250 Hz: the thread holding "
             "the GIL, i.e. Python's own CPU time).", "",
             "Self time by package:", ""]
    for label, n in sorted(own.items(), key=lambda kv: -kv[1]):
        lines.append(f"- {label}: {100 * n / total:.1f} %")
    lines += ["", "Rebirth functions on the stack (inclusive):", ""]
    for f, n in sorted(incl.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"- {100 * n / total:.1f} % `{f}`")
    return "\n".join(lines) + "\n"


def run_one(stack: Stack | Baseline, n: int, board: str, time_limit: float, seed: int,
            spy: Path | None) -> dict[str, Any]:
    made = create(stack.proxy, board, n)
    pg0 = stack.pg_cpu()
    before, c0 = stack.cpu(), time.perf_counter()
    client0 = time.process_time()
    if spy is not None:
        profile(stack, min(time_limit, 30), spy)
    # In a thread of its own: the caller may already run an event loop.
    # uvloop: the load generator's own CPU competes with the server's for the same cores.
    with ThreadPoolExecutor(1) as pool, load.without_gc_pauses():
        res = pool.submit(uvloop.run, play(stack.proxy, made, time_limit, seed)).result()
    after = stack.cpu()
    pg1 = stack.pg_cpu()
    out: dict[str, Any] = {"setup": stack.setup, "label": label(stack.setup), **res.summary(),
                           "window_s": round(time.perf_counter() - c0, 2)}
    used = {k: after[k] - before[k] for k in after}
    # The database's backends (a backend that ended within the window is not counted).
    used["postgres"] = sum(v - pg0.get(p, 0.0) for p, v in pg1.items())
    out["cpu_s"] = {k: round(v, 2) for k, v in used.items()}
    out["dropped"] = res.dropped
    # The machine's load at the end (other work on it slows every figure down).
    out["loadavg_1m"] = round(os.getloadavg()[0], 2)
    out["client_cpu_s"] = round(time.process_time() - client0, 2)
    out["cpu_ms_per_action"] = round(1000 * used["workers"] / res.actions, 3) if res.actions else None
    # Every server process: the workers, the proxy, Redis and PostgreSQL's backends.
    total = sum(used.values())
    out["server_cpu_ms_per_action"] = round(1000 * total / res.actions, 3) if res.actions else None
    return out


def label(setup: str) -> str:
    """A set-up's name in the table."""
    if "@" in setup:
        return f"{SETUPS[setup.split('@')[0]]}, code of {setup.split('@')[1]}"
    return SETUPS[setup]


def table(rows: list[dict[str, Any]]) -> str:
    """The runs as a markdown table: with several rounds, one row per set-up and N holding each
    figure's median over the rounds (all runs are in the JSON)."""
    groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["setup"], r["games"]), []).append(r)
    head = ("| set-up | N | rounds | finished | actions/s | p50 ms | p99 ms | worker CPU ms/action "
            "| server CPU ms/action | CPU s workers / proxy / redis / postgres | errors |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    lines = [head]
    for (_setup, n), rs in groups.items():
        def med(key: str, rs: list[dict[str, Any]] = rs) -> Any:
            vals = [r[key] for r in rs if r.get(key) is not None]
            # An even number of rounds: the mean of two figures, printed as they are printed.
            return round(statistics.median(vals), 3) if vals else None

        def cpu(key: str, rs: list[dict[str, Any]] = rs) -> float:
            return round(statistics.median(r["cpu_s"].get(key, 0.0) for r in rs), 2)

        lines.append(f"| {rs[0]['label']} | {n} | {len(rs)} | {med('finished')} | {med('actions_per_s')} | "
                     f"{med('p50_ms')} | {med('p99_ms')} | {med('cpu_ms_per_action')} | "
                     f"{med('server_cpu_ms_per_action')} | {cpu('workers')} / {cpu('proxy')} / "
                     f"{cpu('redis')} / {cpu('postgres')} | {med('errors')} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--games", default="10,100,500", help="comma-separated N (concurrent games)")
    ap.add_argument("--setups", default=",".join(SETUPS),
                    help="comma-separated: " + ", ".join(SETUPS) + "; sqlite1@REV: that revision's server")
    ap.add_argument("--board", default="ireland", choices=("ireland", "scotland"))
    ap.add_argument("--time-limit", type=float, default=60.0,
                    help="seconds each run may play (N=500 runs: twice this)")
    ap.add_argument("--profile", default="", help="SETUP:N whose worker 1 py-spy records, e.g. pg2redis:100")
    ap.add_argument("--out", default="", help="folder for load.json and load.md (default: print only)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=1,
                    help="run every set-up and N this many times, interleaved; the table gives medians")
    args = ap.parse_args(argv)
    if threading.current_thread() is threading.main_thread():
        # A SIGTERM stops the run through the finally blocks: the stacks stop, databases go.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ns = [int(x) for x in args.games.split(",") if x]
    rows: list[dict[str, Any]] = []
    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for setup, n, rnd in ((st, n, k) for k in range(args.rounds) for st in args.setups.split(",")
                              for n in ns):
            # A fresh stack and database for each run: no run carries another's games.
            kind = Baseline if "@" in setup else Stack
            stack: Stack | Baseline = kind(setup, Path(tmp) / f"{n}-{rnd}")
            try:
                stack.run("start")
                spy = None
                if out and args.profile == f"{setup}:{n}" and rnd == 0:
                    spy = out / f"profile-{setup}-{n}.txt"
                limit = args.time_limit * (2 if n >= 500 else 1)
                row = run_one(stack, n, args.board, limit, args.seed, spy)
                rows.append(row)
                print(json.dumps(row), flush=True)
            finally:
                stack.run("stop")
                stack.drop()
    result = {"board": args.board, "time_limit_s": args.time_limit, "runs": rows,
              "cpu": os.cpu_count()}
    md = table(rows)
    if out and args.profile:
        prof = out / f"profile-{args.profile.replace(':', '-')}.txt"
        # py-spy writes its file when its recording ends (it may outlast a short run).
        for _ in range(100):
            if prof.exists():
                break
            time.sleep(0.5)
        if prof.exists():
            md += f"\nProfile of {args.profile}:\n\n" + profile_summary(prof)
    print(md)
    if out:
        (out / "load.json").write_text(json.dumps(result, indent=1) + "\n", "utf-8")
        (out / "load.md").write_text(md, "utf-8")
    return result


if __name__ == "__main__":
    main()
