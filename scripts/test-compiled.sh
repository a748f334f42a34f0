#!/bin/sh
# Run the engine, bots, RL environment and match tests against the compiled build
# (building it first when build/compiled/ is missing). The identity test
# (tests/compiled) runs in the main suite. Python: $PYTHON, else .venv/bin/python, else python3.
set -eu
cd "$(dirname "$0")/.."
py=${PYTHON:-}
if [ -z "$py" ]; then
  if [ -x .venv/bin/python ]; then py=.venv/bin/python; else py=python3; fi
fi
out=${REBIRTH_COMPILED_BUILD:-build/compiled}
[ -d "$out/rebirth" ] || sh scripts/build-compiled.sh
PYTHONPATH="$out" "$py" -c 'from rebirth.bots.levels import build_kind; assert build_kind() == "compiled", "not the compiled build"'
echo "+ tests against the compiled build in $out"
# Left out: the AST test of the bots' sources (it reads State.__slots__, which a compiled
# class has not, and checks source text, the same in both builds), and the one test that
# patches a State method (mock.patch.object(State, "_finish")): a compiled class's methods
# cannot be replaced.
PYTHONPATH="$out" "$py" -m pytest -q -n 2 tests/engine tests/bots tests/env tests/test_match.py \
  --ignore=tests/bots/test_bots_use_public_api.py \
  --deselect tests/engine/test_position.py::test_E2_end_scoring_of_the_last_position_is_the_engines_final_score
