"""``rebirth serve`` refuses what would not work before it prints a URL: a bad port, a port
in use, a --db in a missing folder, an invalid REBIRTH_* setting (exit 2, a clear message)."""

from __future__ import annotations

import socket
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
