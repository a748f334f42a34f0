#!/bin/sh
# Starts the database the server tests need (PostgreSQL on 127.0.0.1:5432, user postgres
# without a password) when it is not answering, installing Debian's postgresql where it is
# missing, and installs Debian's redis-server and caddy where they are missing. Idempotent;
# needs root (CI runs as root). The tests fail, never skip, without it.
set -eu
# The multi-worker tests start private redis-servers; the proxy test (scripts/proxy-stack.sh)
# runs Debian's Caddy in front of two workers.
missing=""
command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
command -v caddy >/dev/null 2>&1 || missing="$missing caddy"
if [ -n "$missing" ]; then
  apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
up() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
if command -v pg_isready >/dev/null 2>&1 && up; then
  pg_isready -h 127.0.0.1 -p 5432
  exit 0
fi
if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
ver=$(ls /usr/lib/postgresql | sort -n | tail -n 1)
if ! pg_lsclusters -h 2>/dev/null | grep -q "^$ver  *main "; then
  pg_createcluster "$ver" main >/dev/null
fi
# A cluster this script set up is a test machine's: loopback connections are trusted, as on
# the development machines (a host's own server is never touched: it answered above).
hba="/etc/postgresql/$ver/main/pg_hba.conf"
if ! grep -q "rebirth-tests" "$hba"; then
  { echo "host all all 127.0.0.1/32 trust  # rebirth-tests"; cat "$hba"; } > "$hba.new" && mv "$hba.new" "$hba"
fi
pg_ctlcluster --skip-systemctl-redirect "$ver" main start 2>/dev/null || pg_ctlcluster --skip-systemctl-redirect "$ver" main reload
i=0
until up; do
  i=$((i + 1))
  [ "$i" -gt 60 ] && { echo "PostgreSQL did not start" >&2; exit 1; }
  sleep 1
done
pg_isready -h 127.0.0.1 -p 5432
