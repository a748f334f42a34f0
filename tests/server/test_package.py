"""Packaging: the wheel ships the server and every file of the page (package data), so that
``pip install .`` then ``rebirth serve`` serves everything."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built once for this module."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    # Build from a copy: an in-tree build would leave build/ behind in the work tree.
    src = tmp_path / "src-copy"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"))
    out = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
                   check=True, capture_output=True, timeout=300)
    return next(out.glob("rebirth-*.whl"))


def test_wheel_ships_the_server_and_the_page(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for mod in ("app", "play/session", "api/lobby", "api/play", "api/pages", "persistence/store",
                "persistence/migrations/env", "settings", "cli"):
        assert f"rebirth/server/{mod}.py" in names
    assert "rebirth/server/persistence/migrations/script.py.mako" in names
    page = [p.relative_to(ROOT / "src").as_posix() for p in (ROOT / "src" / "rebirth" / "web").rglob("*")
            if p.is_file() and not p.name.startswith(".")]
    missing = [p for p in page if p not in names]
    assert missing == []
    assert "rebirth/data/maps/ireland.json" in names


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_installed_wheel_serves_the_page_from_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    """`pip install` of the wheel into a new venv, then `rebirth serve` from that venv serves
    the lobby page and a static file (no work tree involved). The venv sees the test's own
    site-packages for the dependencies (no download); the wheel itself is installed."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    deps = [p for p in sys.path if p.endswith("site-packages")]
    # Dependencies from the test's environment, placed after the venv's own packages.
    (Path(site) / "zz-test-deps.pth").write_text("\n".join(deps) + "\n", encoding="utf-8")
    # --force-reinstall: the test's environment (visible through the .pth) may hold an
    # installed rebirth of the same version, which pip would otherwise take as this one.
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--force-reinstall",
                    str(wheel)],
                   check=True, capture_output=True, timeout=300)
    where = subprocess.run([str(py), "-c", "import rebirth, sys; print(rebirth.__file__)"],
                           check=True, capture_output=True, text=True, cwd=tmp_path).stdout
    assert where.startswith(str(venv)), where  # the installed wheel, not the work tree
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.Popen([str(venv / "bin" / "rebirth"), "serve", "--port", str(port),
                             "--db", str(tmp_path / "g.db")], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                page = httpx.get(base + "/", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
                assert time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.2)
        assert page.status_code == 200 and "<html" in page.text.lower()
        js = httpx.get(base + "/static/board.js", timeout=5)
        assert js.status_code == 200 and "export" in js.text
        assert httpx.get(base + "/api/boards/ireland", timeout=5).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=20)
