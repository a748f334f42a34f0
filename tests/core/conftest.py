"""The native core's tests run only where the extension was built (an install with a C
compiler); ``REBIRTH_REQUIRE_NATIVE=1`` makes its absence a failure instead of a skip
(CI with a compiler, scripts/test-sanitizer.sh)."""

from __future__ import annotations

import os

import pytest

from rebirth.engine import native


@pytest.fixture(autouse=True)
def _native_core(monkeypatch: pytest.MonkeyPatch) -> None:
    if not native.available():
        if os.environ.get("REBIRTH_REQUIRE_NATIVE") == "1":
            pytest.fail("REBIRTH_REQUIRE_NATIVE=1, but rebirth._core is not built")
        pytest.skip("the native core (rebirth._core) is not built here")
    monkeypatch.delenv("REBIRTH_CORE", raising=False)
