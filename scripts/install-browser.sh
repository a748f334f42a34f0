#!/bin/sh
# Installs Debian's Chromium for the browser tests (tests/browser/), unless it is there already.
# Idempotent; needs root (CI runs as root). The tests fail, never skip, without it.
set -eu
command -v chromium >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
chromium --version
