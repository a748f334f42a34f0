"""Issue 24 item 8, hosting: ``scripts/proxy-stack.sh start DIR`` checks every prerequisite
before it starts anything and says in one line each what is missing and how to get it (a
Python with rebirth and psycopg, caddy, redis-server, PostgreSQL's initdb/pg_ctl); a port that
is taken is a clear refusal naming the port and the variable to change. Nothing is started
and nothing is written to DIR then (no settings file that a corrected start would have to
contradict). Fast: only the checks run (the whole stack is tests/browser/test_proxy_stack.py
and scripts/fresh-clone-hosting.sh)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "proxy-stack.sh"
TOOLS = ("sh", "sed", "head", "ls", "sort", "tail", "id", "kill", "cat", "mkdir", "dirname", "tr",
         "uniq", "grep", "wc", "env", "mv", "runuser", "test", "setsid", "chmod", "chown")
"""What the script runs besides the prerequisites (POSIX tools)."""


OURS = {"REBIRTH_CMD": f"{sys.executable} -m rebirth.cli.main", "PYTHONPATH": str(ROOT / "src")}
"""This checkout's rebirth, run by the tests' Python (which has psycopg: the dev extra)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def stack_dir() -> Iterator[Path]:
    """An empty DIR the postgres user can reach when the tests run as root (pytest's own
    temporary folders are closed to other users, which the script rightly reports)."""
    base = Path(tempfile.mkdtemp(prefix="rebirth-stack-check-", dir="/tmp"))
    base.chmod(0o711)
    try:
        yield base / "stack"
    finally:
        shutil.rmtree(base)


def path_without(tmp: Path, *hidden: str) -> str:
    """A PATH holding the script's tools and the prerequisites except ``hidden``."""
    fake = tmp / "bin"
    fake.mkdir()
    for name in (*TOOLS, "caddy", "redis-server"):
        found = shutil.which(name)
        if found and name not in hidden:
            (fake / name).symlink_to(found)
    return str(fake)


def ports(**given: int) -> dict[str, str]:
    """Four free ports (proxy, two workers, Redis, PostgreSQL), some replaced by ``given``."""
    out = {"PROXY_PORT": str(free_port()), "WORKER_PORTS": f"{free_port()} {free_port()}",
           "REDIS_PORT": str(free_port()), "PG_PORT": str(free_port())}
    out.update({k: str(v) for k, v in given.items()})
    return out


def start(dir_: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("REBIRTH_")}
    return subprocess.run(["/bin/sh", str(SCRIPT), "start", str(dir_)], env={**base, **env},
                          capture_output=True, text=True, timeout=60)


def assert_nothing_started(dir_: Path, out: subprocess.CompletedProcess[str]) -> None:
    assert out.returncode == 1, out
    assert out.stderr.strip().endswith("nothing was started"), out.stderr
    assert "Rebirth is running" not in out.stdout and "ports:" not in out.stdout
    assert sorted(p.name for p in dir_.iterdir()) == [], "a refused start wrote into DIR"


def test_every_missing_prerequisite_is_named_with_how_to_get_it(stack_dir: Path) -> None:
    """A Python without rebirth and psycopg, no caddy, no redis-server, no PostgreSQL: one
    line each, then nothing started."""
    python = shutil.which("python3", path="/usr/bin:/bin")
    assert python is not None
    probe = subprocess.run([python, "-c", "import rebirth"], capture_output=True)
    if probe.returncode == 0:
        pytest.skip("the system python3 has rebirth installed")
    env = {"PATH": path_without(stack_dir.parent, "caddy", "redis-server"), "PG_BIN": "/nonexistent/bin",
           "REBIRTH_CMD": python, **ports()}
    out = start(stack_dir, env)
    assert_nothing_started(stack_dir, out)
    lines = out.stderr.strip().splitlines()
    assert lines[-1] == "nothing was started"
    want = [f"rebirth is not importable by {python}: .venv/bin/pip install -e '.[postgres]'",
            f"psycopg (PostgreSQL's driver) is missing in {python}: install the postgres extra",
            "caddy is missing: apt-get install caddy",
            "redis-server is missing: apt-get install redis-server",
            "PostgreSQL is missing (no initdb pg_ctl psql in /nonexistent/bin): apt-get install postgresql"]
    assert len(lines) == len(want) + 1, out.stderr
    for line, start_of in zip(lines, want, strict=False):
        assert line.startswith(start_of), (line, start_of)


def test_an_installed_stack_passes_the_checks_but_a_missing_caddy_alone(stack_dir: Path) -> None:
    """The project's own Python (rebirth and psycopg importable), Redis and PostgreSQL there:
    only caddy is named."""
    if not (shutil.which("redis-server") and list(Path("/usr/lib/postgresql").glob("*/bin/initdb"))):
        pytest.skip("redis-server or PostgreSQL is not installed (scripts/services.sh)")
    env = {"PATH": path_without(stack_dir.parent, "caddy"), **OURS, **ports()}
    out = start(stack_dir, env)
    assert_nothing_started(stack_dir, out)
    assert out.stderr.splitlines() == [
        "caddy is missing: apt-get install caddy (or sh scripts/services.sh)", "nothing was started"]


def test_a_launcher_that_is_not_there_is_named(stack_dir: Path) -> None:
    out = start(stack_dir, {"REBIRTH_CMD": "/nonexistent/rebirth", **ports()})
    assert_nothing_started(stack_dir, out)
    assert "cannot find the Python of REBIRTH_CMD (/nonexistent/rebirth)" in out.stderr


@pytest.mark.parametrize("variable", ["PROXY_PORT", "WORKER_PORTS", "REDIS_PORT", "PG_PORT"])
def test_a_busy_port_is_refused_naming_it_and_its_variable(stack_dir: Path, variable: str) -> None:
    """Something already listens on one of the ports: the refusal names the port and the
    variable to change, before anything starts (no database, Redis, worker or proxy)."""
    if not (shutil.which("caddy") and shutil.which("redis-server")
            and list(Path("/usr/lib/postgresql").glob("*/bin/initdb"))):
        pytest.skip("caddy, redis-server or PostgreSQL is not installed (scripts/services.sh)")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = int(taken.getsockname()[1])
        given = ports()
        given[variable] = f"{port} {free_port()}" if variable == "WORKER_PORTS" else str(port)
        out = start(stack_dir, {**OURS, **given})
    assert_nothing_started(stack_dir, out)
    assert out.stderr.splitlines() == [
        f"port {port} is already in use (for {variable}): stop what listens there, or choose a free "
        f"port with {variable}=...", "nothing was started"]


def test_ports_given_twice_are_refused(stack_dir: Path) -> None:
    p = free_port()
    out = start(stack_dir, {**OURS, **ports(PROXY_PORT=p, REDIS_PORT=p)})
    assert_nothing_started(stack_dir, out)
    assert f"port {p} is given twice" in out.stderr
