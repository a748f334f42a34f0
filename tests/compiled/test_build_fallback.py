"""The compiled build installs from a fresh virtual environment, and every failure of it
falls back to the pure package with one sentence (issue 24 item 8; README "Compiled build").

Fast: the backend's fallback decision is checked with a stand-in for setuptools, and one
real wheel is built through pip with ``CC=/nonexistent`` (the build stops before the
minutes-long type check). The compiled build itself: scripts/build-compiled.sh and
tests/compiled/test_identity.py.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import rebirth.cli.bench
from rebirth.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# setup.py only calls setup() when run as a script, so it can be imported here.
setup_py = _load("rebirth_setup_py", ROOT / "setup.py")
backend = _load("rebirth_backend_under_test", ROOT / "build_backend" / "rebirth_backend.py")


def _module_file(mod: str) -> Path | None:
    base = ROOT / "src" / mod.replace(".", "/")
    for f in (base / "__init__.py", base.with_suffix(".py")):
        if f.is_file():
            return f
    return None


def _imports(mod: str, f: Path) -> set[str]:
    """Every module ``mod`` imports, anywhere in the file (mypy follows TYPE_CHECKING imports too)."""
    pkg = mod if f.name == "__init__.py" else mod.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = pkg.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                top = f"{base}.{node.module}" if node.module else base
            else:
                top = node.module or ""
            out.add(top)
            out.update(f"{top}.{a.name}" for a in node.names)  # `from pkg import module`
    return out


def test_the_build_environment_gets_every_package_the_type_check_reaches() -> None:
    """mypyc type-checks the compiled modules and all they import: every third-party package
    reachable from setup.py's COMPILED list is one the backend puts in the build environment
    (a fresh venv has nothing else; the failure of issue 24: pydantic and numpy)."""
    todo = [p.removesuffix(".py").replace("/", ".").removesuffix(".__init__") for p in setup_py.COMPILED]
    seen: set[str] = set()
    third: dict[str, set[str]] = {}
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        seen.add(mod)
        f = _module_file(mod)
        if f is None:
            continue
        for name in _imports(mod, f):
            parts = name.split(".")
            if parts[0] == "rebirth":
                todo.extend(".".join(parts[:i]) for i in range(1, len(parts) + 1))
            elif parts[0] not in sys.stdlib_module_names and parts[0] != "__future__":
                third.setdefault(parts[0], set()).add(mod)
    assert "rebirth.engine.formats" in seen and "rebirth.bots.value" in seen  # the walk works
    missing = {pkg: sorted(mods) for pkg, mods in third.items() if pkg not in backend.TYPE_CHECK_PACKAGES}
    assert missing == {}, "add these to TYPE_CHECK_PACKAGES in build_backend/rebirth_backend.py"
    assert set(third) == set(backend.TYPE_CHECK_PACKAGES)  # none listed that is not needed


def test_compiled_build_requires_mypy_and_the_projects_own_requirements(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(backend._setuptools, "get_requires_for_build_wheel", lambda cs=None: ["wheel"])
    monkeypatch.delenv("REBIRTH_COMPILE", raising=False)
    assert backend.get_requires_for_build_wheel() == ["wheel"]
    monkeypatch.setenv("REBIRTH_COMPILE", "1")
    assert backend.get_requires_for_build_wheel() == [
        "wheel", backend.MYPYC_REQUIREMENT, "pydantic>=2.6", "numpy>=1.26"]


def test_type_check_requirements_refuse_a_package_the_project_does_not_require(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["numpy>=1.26"]\n', encoding="utf-8")
    with pytest.raises(RuntimeError, match="does not require pydantic"):
        backend.type_check_requirements(tmp_path / "pyproject.toml")


FAILURES = [
    (setup_py.CompiledBuildError("no C compiler (/nonexistent) found"), "no C compiler (/nonexistent) found"),
    (setup_py.CompiledBuildError("Python's C headers (Python.h) are not in /x"),
     "Python's C headers (Python.h) are not in /x"),
    (setup_py.CompiledBuildError("mypy's type check of the compiled modules failed: "
                                 "src/rebirth/engine/state.py:3: error: Name \"x\" is not defined"),
     "mypy's type check of the compiled modules failed: "
     'src/rebirth/engine/state.py:3: error: Name "x" is not defined'),
    # What setuptools raises when the C compiler fails on the generated code.
    (SystemExit("error: command '/usr/bin/gcc' failed with exit code 1"),
     "command '/usr/bin/gcc' failed with exit code 1"),
    (SystemExit(1), "the build stopped with exit status 1"),
    (OSError("No space left on device"), "No space left on device"),
]


@pytest.mark.parametrize(("exc", "reason"), FAILURES, ids=lambda x: type(x).__name__ if isinstance(
    x, BaseException) else None)
def test_any_failure_of_the_compiled_build_gives_the_pure_wheel_and_one_sentence(
        exc: BaseException, reason: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[tuple[str | None, str | None]] = []

    def build_wheel(wheel_directory: str, config_settings: Any = None,
                    metadata_directory: str | None = None) -> str:
        calls.append((os.environ.get("REBIRTH_COMPILE"), os.environ.get(backend.NOTE_ENV)))
        if os.environ.get("REBIRTH_COMPILE") == "1":
            raise exc
        return "rebirth-0.1.0-py3-none-any.whl"

    monkeypatch.setattr(backend._setuptools, "build_wheel", build_wheel)
    monkeypatch.setenv("REBIRTH_COMPILE", "1")
    monkeypatch.delenv(backend.NOTE_ENV, raising=False)
    assert backend.build_wheel("dist") == "rebirth-0.1.0-py3-none-any.whl"
    assert len(calls) == 2 and calls[0] == ("1", None)
    compile_flag, note = calls[1]
    assert compile_flag is None  # the retry is the pure build
    assert note == backend.fallback_sentence(reason)
    err = capsys.readouterr().err
    assert err.splitlines() == [f"rebirth build: {note}"]  # one sentence
    assert os.environ.get("REBIRTH_COMPILE") == "1" and backend.NOTE_ENV not in os.environ  # restored


def test_a_build_that_is_not_asked_to_compile_is_built_once(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[str | None] = []

    def build_wheel(wheel_directory: str, config_settings: Any = None,
                    metadata_directory: str | None = None) -> str:
        calls.append(os.environ.get(backend.NOTE_ENV))
        raise SystemExit("error: something else")

    monkeypatch.setattr(backend._setuptools, "build_wheel", build_wheel)
    monkeypatch.delenv("REBIRTH_COMPILE", raising=False)
    with pytest.raises(SystemExit):  # a pure build's own failure is not hidden
        backend.build_wheel("dist")
    assert calls == [None] and capsys.readouterr().err == ""


def test_an_interrupt_is_not_a_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    def build_wheel(wheel_directory: str, config_settings: Any = None,
                    metadata_directory: str | None = None) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(backend._setuptools, "build_wheel", build_wheel)
    monkeypatch.setenv("REBIRTH_COMPILE", "1")
    with pytest.raises(KeyboardInterrupt):
        backend.build_wheel("dist")


def test_missing_compiler_and_headers_are_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CC", "/nonexistent -O2")
    assert setup_py.missing_toolchain() == "no C compiler (/nonexistent) found"
    monkeypatch.setenv("CC", sys.executable)  # a program that exists
    monkeypatch.setattr(setup_py.sysconfig, "get_paths", lambda: {"include": str(tmp_path)})
    assert setup_py.missing_toolchain() == f"Python's C headers (Python.h) are not in {tmp_path}"
    (tmp_path / "Python.h").write_text("", encoding="utf-8")
    assert setup_py.missing_toolchain() is None


def test_first_mypy_error_is_the_reason() -> None:
    out = "src/a.py:1: note: x\nsrc/rebirth/engine/state.py:9: error: Bad\nsrc/b.py:2: error: Other\n"
    assert setup_py._first_error(out) == "src/rebirth/engine/state.py:9: error: Bad"
    assert setup_py._first_error("") == "no message"


def test_a_failed_c_compile_is_named_by_program_and_status() -> None:
    cmd = ["gcc", "-O3", "-c", "build/mypyc/__native_rebirth.c"]
    try:
        try:
            raise subprocess.CalledProcessError(1, cmd)
        except subprocess.CalledProcessError as inner:
            raise RuntimeError(str(inner)) from inner  # as distutils wraps it
    except RuntimeError as exc:
        assert setup_py.compiler_failure(exc) == "gcc exited with status 1"
    assert setup_py.compiler_failure(OSError("x" * 400)) == "x" * 157 + "..."


def test_bench_json_names_the_build_note(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(rebirth.cli.bench, "build_note", lambda: "the note")
    assert main(["bench", "--board", "scotland", "--players", "3", "--runs", "1", "--seconds", "0.01",
                 "--no-mcts", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["build_note"] == "the note"


def test_without_a_compiler_pip_builds_the_pure_wheel_that_says_why(tmp_path: Path) -> None:
    """The real path: pip (isolated build environment, REBIRTH_COMPILE=1, CC=/nonexistent)
    builds a pure wheel; pip -v shows the sentence once; the package reports it."""
    src = tmp_path / "src-copy"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis",
        "tests", "docs", "benchmarks", "node_modules"))
    out = tmp_path / "dist"
    env = {**os.environ, "REBIRTH_COMPILE": "1", "CC": "/nonexistent"}
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w", str(out), str(src)],
                         capture_output=True, text=True, timeout=600, env=env)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    wheels = list(out.glob("rebirth-*.whl"))
    assert [w.name for w in wheels] == ["rebirth-0.1.0-py3-none-any.whl"]  # pure: no platform tag
    sentence = backend.fallback_sentence("no C compiler (/nonexistent) found")
    assert (res.stdout + res.stderr).count(sentence) == 1
    with zipfile.ZipFile(wheels[0]) as zf:
        names = zf.namelist()
        assert not [n for n in names if n.endswith((".so", ".pyd"))]
        assert zf.read("rebirth/build_note.txt").decode() == sentence + "\n"
        zf.extractall(tmp_path / "site")
    probe = subprocess.run(
        [sys.executable, "-c", "from rebirth.bots.levels import build_kind, build_note; "
                               "print(build_kind()); print(build_note())"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path / "site")}, check=True)
    assert probe.stdout.splitlines() == ["pure", sentence]
