"""The native code never crashes the process (issue 28 item 3): tests/core/fuzz_child.py runs
every map and record the loaders accept through it, and corrupted states and tables, in a
child process, so that a crash (a signal) fails this test instead of killing pytest.
``REBIRTH_FUZZ_SCALE=10`` runs ten times as many."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_the_native_core_survives_the_fuzzer() -> None:
    scale = os.environ.get("REBIRTH_FUZZ_SCALE", "1")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    env.pop("REBIRTH_CORE", None)
    res = subprocess.run([sys.executable, str(TESTS / "core" / "fuzz_child.py"), scale],
                         capture_output=True, text=True, timeout=900, env=env, cwd=TESTS)
    assert res.returncode == 0, (f"the child ended with {res.returncode} (a negative code is a "
                                 f"signal: a crash)\n{res.stdout[-2000:]}{res.stderr[-4000:]}")
    assert "no crash" in res.stdout
