"""The compiled build plays exactly the games of the pure build (issue 14 item 8).

Both builds play the same seeded games (tests/compiled/games.py: every board x 2, 3, 4
players x every bot kind, plus fast-path random playouts) in two processes, and their
records (RULES.md S-1…S-8 deal, every action and chance outcome, E-1 result) and event
streams must be byte-identical.

The compiled build is the folder ``build/compiled`` (or ``$REBIRTH_COMPILED_BUILD``) made by
``sh scripts/build-compiled.sh``. This test fails, never skips, when it is missing, is a
pure fallback, or was built from other sources than the working tree's: the README's
test command builds it before running the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "compiled" / "games.py"
BUILD_HINT = "build it with: sh scripts/build-compiled.sh"


def compiled_build() -> Path:
    """The compiled build's folder (it holds a ``rebirth`` package)."""
    return Path(os.environ.get("REBIRTH_COMPILED_BUILD") or ROOT / "build" / "compiled")


def _sources(top: Path) -> dict[str, bytes]:
    """Every Python source of the ``rebirth`` package under ``top``, by relative path."""
    return {str(f.relative_to(top)): f.read_bytes() for f in sorted((top / "rebirth").rglob("*.py"))}


def _run(pythonpath: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.Popen([sys.executable, str(SCRIPT)], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_compiled_build_is_present_and_built_from_these_sources() -> None:
    build = compiled_build()
    if not (build / "rebirth").is_dir():
        pytest.fail(f"no compiled build in {build}; {BUILD_HINT}")
    ours, theirs = _sources(ROOT / "src"), _sources(build)
    stale = sorted(p for p in ours.keys() | theirs.keys() if ours.get(p) != theirs.get(p))
    assert not stale, f"the compiled build in {build} is of other sources ({stale[:5]}); {BUILD_HINT}"
    shims = sorted(p.name for p in (build / "rebirth" / "engine").glob("state.*"))
    assert any(n.endswith((".so", ".pyd")) for n in shims), (
        f"{build} holds no compiled engine (the build fell back to pure Python); {BUILD_HINT}")


def test_both_builds_play_byte_identical_games() -> None:
    build = compiled_build()
    if not (build / "rebirth").is_dir():
        pytest.fail(f"no compiled build in {build}; {BUILD_HINT}")
    # Both at once: the two processes take about as long as the pure one alone on 2 cores.
    procs = {"pure": _run(ROOT / "src"), "compiled": _run(build)}
    outs = {}
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=1800)
        assert proc.returncode == 0, f"the {name} build's games failed:\n{err[-4000:]}"
        outs[name] = out.splitlines()
    pure, compiled = outs["pure"], outs["compiled"]
    assert json.loads(pure[0])["build"] == "pure", pure[0]
    assert json.loads(compiled[0])["build"] == "compiled", compiled[0]
    assert len(pure) > 60
    assert len(pure) == len(compiled), f"{len(pure)} lines from the pure build, {len(compiled)} compiled"
    for a, b in zip(pure[1:], compiled[1:], strict=True):
        if a != b:
            config = json.loads(a)["config"]
            first = next(i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y)
            pytest.fail(f"game {config} differs between the builds at character {first}:\n"
                        f"pure:     ...{a[max(0, first - 120):first + 120]}\n"
                        f"compiled: ...{b[max(0, first - 120):first + 120]}")


@pytest.mark.parametrize("which", ["pure", "compiled"])
def test_bench_names_the_build_that_runs(which: str) -> None:
    path = ROOT / "src" if which == "pure" else compiled_build()
    if not (path / "rebirth").is_dir():
        pytest.fail(f"no compiled build in {path}; {BUILD_HINT}")
    env = {**os.environ, "PYTHONPATH": str(path)}
    res = subprocess.run([sys.executable, "-m", "rebirth.cli.main", "bench", "--board", "scotland",
                          "--players", "3", "--runs", "1", "--seconds", "0.05", "--no-mcts", "--json"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["build"] == which
