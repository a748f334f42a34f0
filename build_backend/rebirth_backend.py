"""The in-tree build backend: setuptools, plus what the compiled build needs only when
``REBIRTH_COMPILE=1`` asks for it (see setup.py, README "Compiled build").

The default build needs nothing beyond setuptools. A compiled build gets mypy (which holds
mypyc) and the third-party packages its type check reads (``TYPE_CHECK_PACKAGES``) in its
isolated build environment; when compiling fails for any reason, the wheel is built again
as the pure package, with one sentence on stderr and the same sentence in the wheel
(``rebirth/build_note.txt``, reported by ``rebirth bench --json``). An editable install is
always pure Python: compiled modules next to the sources would shadow every later edit.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401  (the hooks this backend passes on)
    build_sdist,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_wheel,
)

# Exact: the compiled build is checked against the pure one with this mypyc (tests/compiled).
MYPYC_REQUIREMENT = "mypy==2.4.1"

# mypyc type-checks the compiled modules and everything they import. Two of the modules they
# reach are not compiled but import third-party packages: engine/formats.py (pydantic) and
# bots/value.py (numpy). Without those packages mypy reports the imports as errors, so the
# build environment gets them, at the project's own requirement (pyproject [project]
# dependencies): a platform that can install rebirth at all can install these. The
# alternative, telling mypy to ignore the missing imports, would compile the engine
# against other types than the ones `mypy` checks in development.
# tests/compiled/test_build_fallback.py checks that this list covers every third-party
# import reachable from setup.py's COMPILED modules.
TYPE_CHECK_PACKAGES = ("pydantic", "numpy")

# The environment variable through which the pure retry passes its note to setup.py.
NOTE_ENV = "REBIRTH_BUILD_NOTE"

ConfigSettings = dict[str, Any] | None


def compile_requested() -> bool:
    """Whether this build was asked to compile (``REBIRTH_COMPILE=1``)."""
    return os.environ.get("REBIRTH_COMPILE", "").strip() == "1"


def _requirement_name(req: str) -> str:
    """The distribution name at the start of a requirement string (``"numpy>=1.26"`` → ``numpy``)."""
    name = req.strip()
    for stop in "[<>=!~;@ (":
        name = name.split(stop, 1)[0]
    return name.strip().lower().replace("_", "-")


def type_check_requirements(pyproject: Path | None = None) -> list[str]:
    """The project's own requirements (from pyproject.toml) of ``TYPE_CHECK_PACKAGES``."""
    path = pyproject or Path("pyproject.toml")
    deps: list[str] = tomllib.loads(path.read_text(encoding="utf-8"))["project"]["dependencies"]
    found = {_requirement_name(d): d for d in deps}
    missing = [p for p in TYPE_CHECK_PACKAGES if p not in found]
    if missing:
        raise RuntimeError(f"pyproject.toml does not require {', '.join(missing)}, which the "
                           "compiled build's type check needs (build_backend/rebirth_backend.py)")
    return [found[p] for p in TYPE_CHECK_PACKAGES]


def get_requires_for_build_wheel(config_settings: ConfigSettings = None) -> list[str]:
    """setuptools' requirements; for a compiled build also mypy (which holds mypyc) and the
    packages the type check of the compiled modules reads."""
    reqs = list(_setuptools.get_requires_for_build_wheel(config_settings))
    if not compile_requested():
        return reqs
    return [*reqs, MYPYC_REQUIREMENT, *type_check_requirements()]


def _reason(exc: BaseException) -> str:
    """One line saying why the compiled build failed, from what setup.py or setuptools raised."""
    if isinstance(exc, SystemExit) and not isinstance(exc.code, str):
        text = f"the build stopped with exit status {exc.code}"
    else:
        text = str(exc).strip() or type(exc).__name__
    text = text.splitlines()[0] if text else type(exc).__name__
    text = text.removeprefix("error: ")
    return text if len(text) <= 300 else text[:297] + "..."


def fallback_sentence(reason: str) -> str:
    """The one sentence a failed compiled build prints (and leaves in the pure wheel)."""
    return (f"REBIRTH_COMPILE=1, but the compiled build failed ({reason}), so the pure Python "
            "package was built instead: it plays the same games, only slower.")


def build_wheel(wheel_directory: str, config_settings: ConfigSettings = None,
                metadata_directory: str | None = None) -> str:
    """setuptools' wheel; when ``REBIRTH_COMPILE=1`` and compiling fails in any way (no
    mypyc, no C compiler, no headers, a type error, a C error), the pure wheel instead."""
    if not compile_requested():
        return str(_setuptools.build_wheel(wheel_directory, config_settings, metadata_directory))
    try:
        return str(_setuptools.build_wheel(wheel_directory, config_settings, metadata_directory))
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit too: setuptools reports errors with it
        note = fallback_sentence(_reason(exc))
    # One sentence, on stderr (pip shows it with -v) and in the wheel (rebirth bench --json).
    print(f"rebirth build: {note}", file=sys.stderr, flush=True)
    with _pure(note=note):
        return str(_setuptools.build_wheel(wheel_directory, config_settings, metadata_directory))


@contextmanager
def _pure(note: str | None = None) -> Iterator[None]:
    """Build without compiling, whatever REBIRTH_COMPILE says; ``note`` goes into the wheel."""
    old = os.environ.pop("REBIRTH_COMPILE", None)
    old_note = os.environ.pop(NOTE_ENV, None)
    if note is not None:
        os.environ[NOTE_ENV] = note
    try:
        yield
    finally:
        os.environ.pop(NOTE_ENV, None)
        if old_note is not None:
            os.environ[NOTE_ENV] = old_note
        if old is not None:
            os.environ["REBIRTH_COMPILE"] = old


@contextmanager
def _editable() -> Iterator[None]:
    if compile_requested():
        print("rebirth build: an editable install is pure Python; for the compiled build "
              "use a normal install (REBIRTH_COMPILE=1 pip install .)", file=sys.stderr)
    with _pure():
        yield


def get_requires_for_build_editable(config_settings: ConfigSettings = None) -> list[str]:
    with _editable():
        return list(_setuptools.get_requires_for_build_editable(config_settings))


def prepare_metadata_for_build_editable(metadata_directory: str,
                                        config_settings: ConfigSettings = None) -> str:
    with _editable():
        return str(_setuptools.prepare_metadata_for_build_editable(metadata_directory, config_settings))


def build_editable(wheel_directory: str, config_settings: ConfigSettings = None,
                   metadata_directory: str | None = None) -> str:
    with _editable():
        return str(_setuptools.build_editable(wheel_directory, config_settings, metadata_directory))
