#!/bin/sh
# Refreshes the screenshots in docs/img/ that the README and docs/table.md show. The browser tests
# save their screenshots only under the git-ignored test-output/screenshots/ (so running the suite
# leaves a clone clean); this runs the tests that take them and copies the images over, only if
# every one of those tests passed. Set PYTHON to use another interpreter than .venv/bin/python.
set -eu
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
SHOTS=test-output/screenshots
rm -rf "$SHOTS"
"$PYTHON" -m pytest -q -p no:cacheprovider tests/browser/test_play.py tests/browser/test_calculator.py \
    tests/browser/test_table_page.py tests/browser/test_phone.py
for name in web-board web-end calculator-desktop calculator-phone table-desktop table-phone table-end \
        phone-board phone-confirm phone-end; do
    cp "$SHOTS/$name.png" docs/img/
done
echo "refreshed docs/img/ from $SHOTS; review with git diff --stat docs/img/"
