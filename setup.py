"""Build script: the pure Python package plus the native core ``rebirth._core`` (C through the
CPython API, issue 28) wherever a C compiler and Python's headers exist; ``REBIRTH_COMPILE=1``
also compiles the engine and the bots with mypyc (README, "Compiled build").

The native core is optional: without a compiler or headers, or when its compile fails, the
build goes on without it and says so in one sentence (:func:`native_note`); the pure engine
then plays the same games, slower. ``REBIRTH_CORE=pure`` skips it at build time too.

The metadata lives in pyproject.toml; this file only adds the compiled extension modules.
When they cannot be built (no mypyc, no C compiler, no Python headers, a type error, a C
error) the build fails with one line saying why, and the project's build backend
(build_backend/rebirth_backend.py) builds the pure Python package instead, which is always
complete: the compiled modules sit beside their ``.py`` sources and take precedence on import.
"""

from __future__ import annotations

import io
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from contextlib import redirect_stdout
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

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

# Written into the pure wheel when it replaces a failed compiled build (the backend passes
# the sentence in REBIRTH_BUILD_NOTE); rebirth.bots.levels.build_note() reads it.
NOTE_FILE = "rebirth/build_note.txt"


NATIVE = "rebirth._core"
NATIVE_SOURCES = ["src/rebirth/csrc/core.c"]


def native_note(reason: str) -> str:
    """The one sentence a build without the native core prints."""
    return (f"the native core (rebirth._core) was not built ({reason}), so the pure engine "
            "plays: the same games, only slower.")


def native_extensions() -> list[Extension]:
    """The native core as an optional extension (none with ``REBIRTH_CORE=pure``, or when no
    compiler or headers are found: then one sentence says so)."""
    if not _BUILD_COMMANDS & set(sys.argv[1:]) and "editable_wheel" not in sys.argv[1:]:
        return [Extension(NATIVE, NATIVE_SOURCES, optional=True)]
    if os.environ.get("REBIRTH_CORE", "").strip().lower() == "pure":
        _say(native_note("REBIRTH_CORE=pure"))
        return []
    reason = missing_toolchain()
    if reason is not None:
        _say(native_note(reason))
        return []
    flags = shlex.split(os.environ.get("REBIRTH_CORE_CFLAGS", "-O2"))
    return [Extension(NATIVE, NATIVE_SOURCES, optional=True, extra_compile_args=flags,
                      extra_link_args=shlex.split(os.environ.get("REBIRTH_CORE_LDFLAGS", "")))]


class CompiledBuildError(RuntimeError):
    """The compiled build is not possible here; the message says why, in one line."""


def _say(msg: str) -> None:
    print(f"rebirth build: {msg}", file=sys.stderr, flush=True)


def missing_toolchain() -> str | None:
    """Why no extension module can be built here, or None when a compiler and the headers are found.

    Checked before the type check, which takes minutes, would end in a failed compile."""
    cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    if not cc or shutil.which(cc[0]) is None:
        return f"no C compiler ({cc[0] if cc else 'cc'}) found"
    include = sysconfig.get_paths().get("include", "")
    if not (Path(include) / "Python.h").is_file():
        return f"Python's C headers (Python.h) are not in {include or 'any include folder'}"
    return None


def _first_error(output: str) -> str:
    """The first mypy error line of ``output`` (``path:line: error: ...``), else its first line."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ": error:" in ln]
    return (errors or lines or ["no message"])[0]


def compiled_extensions() -> list[Extension]:
    """The mypyc extension modules when ``REBIRTH_COMPILE=1`` asks for them; raises
    CompiledBuildError when they cannot be built here."""
    if os.environ.get("REBIRTH_COMPILE", "").strip() != "1":
        return []
    if not _BUILD_COMMANDS & set(sys.argv[1:]):
        # Metadata only (egg_info, dist_info): nothing is compiled, and mypy may not be
        # installed yet when the build asks for its requirements.
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        raise CompiledBuildError(f"mypyc (the mypy package) cannot be imported: {exc}") from exc
    reason = missing_toolchain()
    if reason is not None:
        raise CompiledBuildError(reason)
    _say(f"compiling {len(COMPILED)} modules of rebirth.engine and rebirth.bots with mypyc")
    # mypy resolves `rebirth.*` from src/; the engine folder is a namespace package, so the
    # module names come from that explicit base, not from looking for __init__.py files.
    os.environ["MYPYPATH"] = str(SRC)
    # mypyc prints the type errors on stdout and then exits: keep them (shown with pip -v)
    # and name the first one in the reason.
    out = io.StringIO()
    try:
        with redirect_stdout(out):
            exts: list[Extension] = mypycify(
                ["--explicit-package-bases", "--config-file", str(HERE / "pyproject.toml"),
                 "--cache-dir", str(Path("build") / "mypyc" / "cache"),
                 *(str(Path("src") / p) for p in COMPILED)],
                opt_level="3", group_name="rebirth", target_dir=str(Path("build") / "mypyc"))
    except SystemExit as exc:
        sys.stderr.write(out.getvalue())
        raise CompiledBuildError(f"mypy's type check of the compiled modules failed: "
                                 f"{_first_error(out.getvalue())}") from exc
    sys.stdout.write(out.getvalue())
    return exts


def compiler_failure(exc: BaseException) -> str:
    """A short reason for a failed C compile: the program and its exit status (the compiler's
    own messages are in the build's output above it), not the whole command line."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, subprocess.CalledProcessError):
            cmd = cause.cmd if isinstance(cause.cmd, list | tuple) else shlex.split(str(cause.cmd))
            return f"{cmd[0] if cmd else 'the compiler'} exited with status {cause.returncode}"
        cause = cause.__cause__ or cause.__context__
    line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return line if len(line) <= 160 else line[:157] + "..."


class ClearBuildExt(build_ext):
    """build_ext whose failure says, in one line, that the C compile of mypyc's output failed;
    a failed native core is left out with one sentence (the pure engine plays)."""

    def build_extension(self, ext: Extension) -> None:
        if ext.name != NATIVE:
            super().build_extension(ext)
            return
        try:
            super().build_extension(ext)
        except Exception as exc:
            _say(native_note(f"its C compile failed: {compiler_failure(exc)}"))

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:
            raise CompiledBuildError(f"compiling mypyc's C code failed: {compiler_failure(exc)}") from exc


class NoteBuildPy(build_py):
    """build_py that leaves the backend's note (if any) in the built package, and removes a
    note left in the build folder by an earlier build."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / NOTE_FILE
        note = os.environ.get("REBIRTH_BUILD_NOTE")
        if note:
            target.write_text(note + "\n", encoding="utf-8")
        else:
            target.unlink(missing_ok=True)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs: list[str] = super().get_outputs(include_bytecode)
        if os.environ.get("REBIRTH_BUILD_NOTE"):
            outputs.append(str(Path(self.build_lib) / NOTE_FILE))
        return outputs


if __name__ == "__main__":  # setuptools runs this file as __main__; tests import it
    setup(ext_modules=[*native_extensions(), *compiled_extensions()],
          cmdclass={"build_py": NoteBuildPy, "build_ext": ClearBuildExt})
