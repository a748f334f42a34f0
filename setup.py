"""Build script: pure Python by default; ``REBIRTH_COMPILE=1`` compiles the engine and the
bots with mypyc (README, "Compiled build").

The metadata lives in pyproject.toml; this file only adds the compiled extension modules.
Without mypyc, a C compiler or Python's headers the build says so and falls back to the
pure Python package, which is always complete: the compiled modules sit beside their
``.py`` sources and take precedence on import.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"

# The modules the compiled build compiles: the engine's and the bots' hot paths. Left
# pure, as in the pure build (none is on a hot path):
#   engine/formats.py   pydantic models: mypyc cannot compile BaseModel subclasses
#                       (the generated C fails to build);
#   engine/views.py     View.to_json reads self.__dict__, which a compiled dataclass lacks;
#   engine/protocols.py typing protocols only (annotations: nothing runs there);
#   engine/explain.py, engine/messages.py, engine/i18n.py, engine/records.py
#                       texts, catalogs and records; their tests look into the modules
#                       (inspect.isfunction, monkeypatching a module function) in ways that
#                       compiled modules do not support.
COMPILED = [
    "rebirth/engine/actions.py",
    "rebirth/engine/board.py",
    "rebirth/engine/codec.py",
    "rebirth/engine/config.py",
    "rebirth/engine/determinize.py",
    "rebirth/engine/events.py",
    "rebirth/engine/game.py",
    "rebirth/engine/hexgrid.py",
    "rebirth/engine/infoset.py",
    "rebirth/engine/missions.py",
    "rebirth/engine/observer.py",
    "rebirth/engine/position.py",
    "rebirth/engine/state.py",
    "rebirth/engine/streams.py",
    "rebirth/engine/table.py",
    "rebirth/engine/tables.py",
    "rebirth/engine/tiles.py",
    "rebirth/bots/__init__.py",
    "rebirth/bots/base.py",
    "rebirth/bots/evaluate.py",
    "rebirth/bots/expert.py",
    "rebirth/bots/greedy.py",
    "rebirth/bots/heuristic.py",
    "rebirth/bots/levels.py",
    "rebirth/bots/mcts.py",
    "rebirth/bots/randombot.py",
]


# The setup.py commands that build modules (a wheel, or the extensions in place).
_BUILD_COMMANDS = {"bdist_wheel", "build", "build_ext", "install"}


def _say(msg: str) -> None:
    print(f"rebirth build: {msg}", file=sys.stderr, flush=True)


def _fallback(reason: str) -> list[Extension]:
    _say(f"{reason}; building the pure Python package instead (it plays the same games, "
         "only slower)")
    return []


def _missing_toolchain() -> str | None:
    """Why no extension module can be built here, or None when a compiler and the headers are found."""
    cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    if not cc or shutil.which(cc[0]) is None:
        return f"no C compiler ({cc[0] if cc else 'cc'}) found"
    include = sysconfig.get_paths().get("include", "")
    if not (Path(include) / "Python.h").is_file():
        return f"Python's C headers (Python.h) are not in {include or 'any include folder'}"
    return None


def compiled_extensions() -> list[Extension]:
    """The mypyc extension modules when ``REBIRTH_COMPILE=1`` asks for them and can be built."""
    if os.environ.get("REBIRTH_COMPILE", "").strip() != "1":
        return []
    if not _BUILD_COMMANDS & set(sys.argv[1:]):
        # Metadata only (egg_info, dist_info): nothing is compiled, and mypy may not be
        # installed yet when the build asks for its requirements.
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return _fallback("REBIRTH_COMPILE=1 but mypyc (the mypy package) is not installed")
    reason = _missing_toolchain()
    if reason is not None:
        return _fallback(f"REBIRTH_COMPILE=1 but {reason}")
    _say(f"compiling {len(COMPILED)} modules of rebirth.engine and rebirth.bots with mypyc")
    # mypy resolves `rebirth.*` from src/; the engine folder is a namespace package, so the
    # module names come from that explicit base, not from looking for __init__.py files.
    os.environ["MYPYPATH"] = str(SRC)
    exts: list[Extension] = mypycify(
        ["--explicit-package-bases", "--config-file", str(HERE / "pyproject.toml"),
         "--cache-dir", str(Path("build") / "mypyc" / "cache"),
         *(str(Path("src") / p) for p in COMPILED)],
        opt_level="3", group_name="rebirth", target_dir=str(Path("build") / "mypyc"))
    return exts


class FallbackBuildExt(build_ext):
    """build_ext that falls back to the pure package when compiling fails (say, a broken
    compiler): a half-built set of extension modules would fail on import."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:
            for out in self.get_outputs():
                Path(out).unlink(missing_ok=True)
            self.extensions = []
            _fallback(f"compiling failed ({exc})")


setup(ext_modules=compiled_extensions(), cmdclass={"build_ext": FallbackBuildExt})
