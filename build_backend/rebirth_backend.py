"""The in-tree build backend: setuptools, plus mypy in the build environment only when
``REBIRTH_COMPILE=1`` asks for the compiled build (see setup.py).

The default build needs nothing beyond setuptools. An editable install is always pure
Python: compiled modules next to the sources would shadow every later edit.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401  (the hooks this backend passes on)
    build_sdist,
    build_wheel,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_wheel,
)

# Exact: the compiled build is checked against the pure one with this mypyc (tests/compiled).
MYPYC_REQUIREMENT = "mypy==2.4.1"

ConfigSettings = dict[str, Any] | None


def compile_requested() -> bool:
    """Whether this build was asked to compile (``REBIRTH_COMPILE=1``)."""
    return os.environ.get("REBIRTH_COMPILE", "").strip() == "1"


def get_requires_for_build_wheel(config_settings: ConfigSettings = None) -> list[str]:
    """setuptools' requirements, and mypy (which holds mypyc) for a compiled build."""
    reqs = list(_setuptools.get_requires_for_build_wheel(config_settings))
    return [*reqs, MYPYC_REQUIREMENT] if compile_requested() else reqs


@contextmanager
def _pure() -> Iterator[None]:
    """Build without compiling, whatever REBIRTH_COMPILE says."""
    if compile_requested():
        print("rebirth build: an editable install is pure Python; for the compiled build "
              "use a normal install (REBIRTH_COMPILE=1 pip install .)", file=sys.stderr)
    old = os.environ.pop("REBIRTH_COMPILE", None)
    try:
        yield
    finally:
        if old is not None:
            os.environ["REBIRTH_COMPILE"] = old


def get_requires_for_build_editable(config_settings: ConfigSettings = None) -> list[str]:
    with _pure():
        return list(_setuptools.get_requires_for_build_editable(config_settings))


def prepare_metadata_for_build_editable(metadata_directory: str,
                                        config_settings: ConfigSettings = None) -> str:
    with _pure():
        return str(_setuptools.prepare_metadata_for_build_editable(metadata_directory, config_settings))


def build_editable(wheel_directory: str, config_settings: ConfigSettings = None,
                   metadata_directory: str | None = None) -> str:
    with _pure():
        return str(_setuptools.build_editable(wheel_directory, config_settings, metadata_directory))
