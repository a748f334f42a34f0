#!/bin/sh
# The native core's tests (tests/core) against a build of rebirth._core with AddressSanitizer
# and UndefinedBehaviorSanitizer (issue 28): any invalid memory access or undefined behaviour in
# the C code stops the run with a report. Needs gcc (or clang) and Python's headers.
#
#   sh scripts/test-sanitizer.sh            # the full differential test (10,080 games) too
#   REBIRTH_DIFF_SEEDS=25 sh scripts/test-sanitizer.sh   # fewer games per configuration
#
# The library is built into a temporary folder (the installed one is left alone) and loaded
# through REBIRTH_CORE_LIB; libasan is preloaded, as a sanitized library in an
# uninstrumented python requires. Leak detection is off: CPython keeps its objects to the end.
set -eu
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
CC=${CC:-gcc}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
INC=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
SUFFIX=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
LIB="$OUT/_core$SUFFIX"
$CC -shared -fPIC -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
    -fno-sanitize-recover=undefined -I"$INC" src/rebirth/csrc/core.c -o "$LIB"
ASAN=$($CC -print-file-name=libasan.so)
echo "test-sanitizer: $LIB built with -fsanitize=address,undefined; running tests/core" >&2
env LD_PRELOAD="$ASAN" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 REBIRTH_CORE_LIB="$LIB" \
    REBIRTH_REQUIRE_NATIVE=1 REBIRTH_DIFF_SEEDS="${REBIRTH_DIFF_SEEDS:-210}" \
    "$PY" -m pytest -q -p no:cacheprovider -n "${JOBS:-2}" tests/core --ignore tests/core/test_sanitizer.py
