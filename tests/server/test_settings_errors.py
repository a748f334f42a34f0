"""Settings and start-up errors (issue 26 item 6): a refused setting is named as the user wrote
it (``--public-url``, ``REBIRTH_PUBLIC_URL``) and what is wrong is said in plain words, on one
line, exit code 2, no traceback; a started server prints its own addresses and not uvicorn's
"Uvicorn running on http://0.0.0.0:…" line."""

from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import sys
from contextlib import redirect_stderr
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebirth.cli.main import main
from server.workerkit import start_serve

CLEAN = {k: v for k, v in os.environ.items() if not k.startswith("REBIRTH_")}


def _serve(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rebirth.cli.main", "serve", *argv],
                          env={**CLEAN, **(env or {})}, capture_output=True, text=True, timeout=120)


def _one_clear_line(err: str, name: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert name in lines[0] and "is not valid: it must" in lines[0], err
    for jargon in ("Traceback", "pydantic", "Input should", "('"):
        assert jargon not in err, err


def test_a_bad_public_url_flag_is_named_as_written(tmp_path: Path) -> None:
    out = _serve("--public-url", "nonsense", "--db", str(tmp_path / "g.db"))
    assert out.returncode == 2 and out.stdout == ""
    _one_clear_line(out.stderr, "--public-url 'nonsense'")
    assert "http" in out.stderr


def test_a_bad_variable_is_named_as_written_and_a_good_flag_hides_it(tmp_path: Path) -> None:
    out = _serve("--db", str(tmp_path / "g.db"), env={"REBIRTH_PUBLIC_URL": "ftp://x"})
    assert out.returncode == 2
    _one_clear_line(out.stderr, "REBIRTH_PUBLIC_URL 'ftp://x'")
    out = _serve("--db", str(tmp_path / "g.db"), env={"REBIRTH_PORT": "eighty"})
    assert out.returncode == 2
    _one_clear_line(out.stderr, "REBIRTH_PORT 'eighty'")
    assert "whole number" in out.stderr


def test_a_database_url_is_never_repeated(capsys: pytest.CaptureFixture[str]) -> None:
    """A URL may carry a password: the error names the setting, never its value."""
    with mock.patch.dict(os.environ, {"REBIRTH_DATABASE_URL": "not a url:secret"}):
        assert main(["serve"]) == 2
    err = capsys.readouterr().err
    _one_clear_line(err, "REBIRTH_DATABASE_URL")
    assert "secret" not in err


def _letters(min_size: int = 1) -> st.SearchStrategy[str]:
    """Words that are no number, no boolean and no address."""
    return st.text(st.characters(min_codepoint=ord("a"), max_codepoint=ord("z")), min_size=min_size,
                   max_size=12).filter(lambda w: w not in {"true", "false", "yes", "no", "on", "off",
                                                           "t", "f", "y", "n"})


BAD: dict[str, st.SearchStrategy[str]] = {
    "PORT": st.one_of(_letters(), st.integers(65536, 10 ** 9).map(str), st.integers(-999, 0).map(str)),
    "SMTP_PORT": st.one_of(_letters(), st.integers(65536, 10 ** 6).map(str)),
    "MAX_MESSAGE_BYTES": _letters(),
    "BOT_DELAY": _letters(),
    "WS_COMPRESSION": _letters(),
    "WEBHOOK_ALLOW_PRIVATE": _letters(),
    "MIN_CLOCK_S": st.integers(-10 ** 6, 0).map(str),
    "VACATION_DAYS": st.one_of(st.integers(61, 10 ** 6).map(str), st.integers(-10 ** 6, -1).map(str)),
    "ANALYSIS_WORLDS": st.one_of(st.integers(49, 10 ** 6).map(str), st.integers(-5, 1).map(str)),
    "PUSH_TTL": st.integers(2419201, 10 ** 9).map(str),
    "HEARTBEAT_S": st.integers(-100, 0).map(str),
    "PUBLIC_URL": _letters(),
    "REMINDERS": st.tuples(st.integers(1, 10 ** 5), _letters()).map(lambda t: f"{t[0]},{t[1]}"),
    "RATE_CREATE": _letters(),
    "RATE_SOCKET": _letters(),
    "PUSH_CONTACT": _letters(),
    "REDIS_URL": _letters().map(lambda w: f"http://{w}"),
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(BAD)).flatmap(lambda k: st.tuples(st.just(k), BAD[k])))
def test_every_bad_setting_is_one_clear_line(case: tuple[str, str]) -> None:
    """Fuzzed bad ``REBIRTH_*`` values: exit 2 and one line naming the variable, in plain
    words, never a traceback (in-process: ``run`` refuses before it starts anything)."""
    name, value = case
    env = {**CLEAN, f"REBIRTH_{name}": value}
    err = io.StringIO()
    with mock.patch.dict(os.environ, env, clear=True), redirect_stderr(err):
        rc = main(["serve"])
    assert rc == 2
    _one_clear_line(err.getvalue(), f"REBIRTH_{name}")


def test_a_started_server_prints_its_addresses_but_not_uvicorns(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = start_serve(tmp_path / "g.db", port)
    try:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert f"Rebirth is running at http://127.0.0.1:{port}/" in out
    assert "Application startup complete" in out  # uvicorn's other lines stay
    assert "Uvicorn running on" not in out, out
