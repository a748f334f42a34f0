#!/bin/sh
# Build the compiled (mypyc) package into build/compiled/ (git-ignored), for the tests that
# run against it (scripts/test-compiled.sh, tests/compiled). A normal install of the working
# tree with REBIRTH_COMPILE=1 (README, "Compiled build"); fails if the result is not compiled.
# Python: $PYTHON, else .venv/bin/python, else python3. Folder: $REBIRTH_COMPILED_BUILD.
set -eu
cd "$(dirname "$0")/.."
py=${PYTHON:-}
if [ -z "$py" ]; then
  if [ -x .venv/bin/python ]; then py=.venv/bin/python; else py=python3; fi
fi
out=${REBIRTH_COMPILED_BUILD:-build/compiled}
echo "+ compiled build into $out (mypyc; a few minutes)"
rm -rf "$out"
REBIRTH_COMPILE=1 "$py" -m pip install -q --no-deps --no-compile --target "$out" .
kind=$(PYTHONPATH="$out" "$py" -c 'from rebirth.bots.levels import build_kind; print(build_kind())')
if [ "$kind" != compiled ]; then
  echo "build-compiled: $out holds the pure package: compiling failed or was not possible" >&2
  # The build backend's one sentence saying why (build_backend/rebirth_backend.py).
  [ -f "$out/rebirth/build_note.txt" ] && cat "$out/rebirth/build_note.txt" >&2
  echo "(see why: REBIRTH_COMPILE=1 $py -m pip install -v --no-deps --target $out .)" >&2
  exit 1
fi
echo "+ $out: compiled"
