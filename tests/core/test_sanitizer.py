"""The native core's tests once against a sanitizer build (issue 28 item 3): runs
scripts/test-sanitizer.sh (AddressSanitizer + UBSan) with a few games per configuration of
the differential test; the script with its defaults runs all 10,080. Skipped where no gcc
with libasan is found."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _asan() -> bool:
    cc = shutil.which(os.environ.get("CC", "gcc"))
    if cc is None:
        return False
    out = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True, text=True)
    return out.returncode == 0 and Path(out.stdout.strip()).is_file()


@pytest.mark.skipif(not _asan(), reason="no gcc with libasan here")
@pytest.mark.skipif("asan" in os.environ.get("LD_PRELOAD", ""), reason="already the sanitizer run")
def test_core_tests_pass_under_the_sanitizers() -> None:
    env = {**os.environ, "REBIRTH_DIFF_SEEDS": "4", "JOBS": "1", "PYTHON": sys.executable}
    env.pop("REBIRTH_CORE", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    res = subprocess.run(["sh", str(ROOT / "scripts" / "test-sanitizer.sh")], capture_output=True,
                         text=True, timeout=1800, env=env, cwd=ROOT)
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-4000:]
    assert " passed" in res.stdout and "ERROR: AddressSanitizer" not in res.stderr
