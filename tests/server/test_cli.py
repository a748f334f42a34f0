"""``rebirth serve`` refuses what would not work before it prints a URL: a bad port, a port
in use, a --db in a missing folder, an invalid REBIRTH_* setting (exit 2, a clear message)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from rebirth.cli.main import main


def test_serve_refuses_bad_input_before_starting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "99999"]) == 2
    assert "65535" in capsys.readouterr().err
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port), "--db", str(tmp_path / "g.db")]) == 2
        err = capsys.readouterr()
        assert f"cannot listen on 127.0.0.1:{port}" in err.err and "running at" not in err.out
    assert main(["serve", "--db", str(tmp_path / "missing" / "g.db")]) == 2
    assert "does not exist" in capsys.readouterr().err
    monkeypatch.setenv("REBIRTH_PORT", "abc")
    assert main(["serve"]) == 2
    assert "REBIRTH_" in capsys.readouterr().err


def test_a_server_process_freezes_its_start_and_collects_young_objects_less_often(tmp_path: Path) -> None:
    """``rebirth serve``'s processes (here a worker's app factory, as uvicorn calls it) tune the
    garbage collector (server/app.py ``tune_gc``): the start frozen, the young generation's
    threshold raised. In a process of its own: the tests' process keeps Python's defaults."""
    code = ("import gc; from rebirth.server.app import app_from_env, GC_YOUNG_THRESHOLD; "
            "before = gc.get_threshold()[0]; app_from_env(); "
            "print(before, gc.get_threshold()[0] == GC_YOUNG_THRESHOLD, gc.get_freeze_count() > 1000)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("REBIRTH_")}
    env["REBIRTH_DATABASE_URL"] = f"sqlite:///{tmp_path / 'gc.db'}"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["700", "True", "True"]
