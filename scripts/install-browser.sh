#!/bin/sh
# Installs Debian's Chromium for the browser tests (tests/browser/), unless it is there already.
# Idempotent; needs root (CI runs as root). The tests fail, never skip, without it.
set -eu
command -v chromium >/dev/null 2>&1 || { apt-get update && apt-get install -y chromium; }
chromium --version
