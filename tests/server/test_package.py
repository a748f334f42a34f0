"""Packaging: the wheel ships the server and every file of the page (package data), so that
``pip install .`` then ``rebirth serve`` serves everything."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_ships_the_server_and_the_page(tmp_path: Path) -> None:
    # Build from a copy: an in-tree build would leave build/ behind in the work tree.
    src = tmp_path / "src-copy"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"))
    out = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
                   check=True, capture_output=True, timeout=300)
    wheel = next(out.glob("rebirth-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for mod in ("app", "hub", "lobby", "play", "static", "store", "settings", "cli"):
        assert f"rebirth/server/{mod}.py" in names
    page = [p.relative_to(ROOT / "src").as_posix() for p in (ROOT / "src" / "rebirth" / "web").rglob("*")
            if p.is_file() and not p.name.startswith(".")]
    missing = [p for p in page if p not in names]
    assert missing == []
    assert "rebirth/data/maps/ireland.json" in names
