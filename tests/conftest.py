"""Make the test helpers (``mapkit``) importable from every test folder, and register the
hypothesis profiles (see docs/testing.md).

``ci`` (the default): 25 examples per property, derandomized, so every run, CI's included,
checks the same examples and a red build is reproducible. ``long``: 2,000 fresh random
examples per property, for a run by hand: ``HYPOTHESIS_PROFILE=long pytest tests/engine/test_invariants.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))

PROFILES = ("ci", "long")
settings.register_profile("ci", max_examples=25, derandomize=True, database=None, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=2000, derandomize=False, deadline=None,
                          print_blob=True, suppress_health_check=[HealthCheck.too_slow])

_profile = os.environ.get("HYPOTHESIS_PROFILE", "ci") or "ci"
if _profile not in PROFILES:
    raise SystemExit(f"HYPOTHESIS_PROFILE={_profile!r} is unknown; use one of {', '.join(PROFILES)}")
settings.load_profile(_profile)
