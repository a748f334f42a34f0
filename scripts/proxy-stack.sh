#!/bin/sh
# Rebirth behind a real reverse proxy on this machine: PostgreSQL, Redis, two `rebirth serve`
# workers on two ports sharing one database URL and one Redis URL, and Caddy load-balancing
# HTTP and WebSockets across them (deploy/Caddyfile, the file compose.yaml uses too).
#
#   sh scripts/proxy-stack.sh start DIR   start what is not running yet; prints the public URL
#   sh scripts/proxy-stack.sh stop DIR    stop what `start` started (the data stays in DIR)
#   sh scripts/proxy-stack.sh status DIR  what runs
#
# Everything this writes (settings, logs, pid files, a private Redis or PostgreSQL) is in DIR.
# `start` is idempotent: run again, it reuses DIR's settings and starts only what is down (a
# killed worker, a restarted Redis). Optional settings, read on the first `start`:
#   PROXY_PORT (8080), WORKER_PORTS ("8001 8002"), REDIS_PORT (6390), PG_PORT (5433)
#   LB_POLICY             Caddy's lb_policy (uri_hash: a game's sockets on one worker;
#                         round_robin: each new connection on the next worker)
#   REBIRTH_DATABASE_URL  a database to use; else PostgreSQL on 127.0.0.1:SYSTEM_PG_PORT (5432)
#                         if it answers (database "rebirth"), else a private cluster in DIR/pg
#   REBIRTH_REDIS_URL     a Redis to use; else a private redis-server in DIR ("none", with one
#                         worker port: no Redis, the single-process mode)
#   REBIRTH_CMD           how to run rebirth (default: `rebirth` on PATH, else .venv/bin/rebirth)
#   any other REBIRTH_* server setting (docs/server.md) is handed to both workers.
set -eu

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|status DIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf="$dir/stack.env"

alive() { [ -f "$dir/$1.pid" ] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }

# The settings, decided once (first start) and kept in DIR/stack.env so that a second
# `start` (or `stop`) acts on the same ports, database and Redis.
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
if [ ! -f "$conf" ]; then
  [ "$cmd" = start ] || { echo "nothing was started in $dir" >&2; exit 1; }
  PROXY_PORT=${PROXY_PORT:-8080}
  WORKER_PORTS=${WORKER_PORTS:-"8001 8002"}
  LB_POLICY=${LB_POLICY:-uri_hash}
  own_redis=no own_pg=no
  if [ "${REBIRTH_REDIS_URL:-}" = none ]; then
    # One worker without Redis: the single-process mode (the load benchmark compares it).
    [ "$(echo $WORKER_PORTS | wc -w)" = 1 ] || { echo "REBIRTH_REDIS_URL=none needs one worker port" >&2; exit 2; }
    REBIRTH_REDIS_URL=""
  elif [ -z "${REBIRTH_REDIS_URL:-}" ]; then
    own_redis=yes
    REBIRTH_REDIS_URL="redis://127.0.0.1:${REDIS_PORT:-6390}/0"
  fi
  if [ -z "${REBIRTH_DATABASE_URL:-}" ]; then
    if pg_isready -h 127.0.0.1 -p "${SYSTEM_PG_PORT:-5432}" -q 2>/dev/null; then
      sp=${SYSTEM_PG_PORT:-5432}
      REBIRTH_DATABASE_URL="postgresql+psycopg://postgres@127.0.0.1:$sp/rebirth"
      psql -h 127.0.0.1 -p "$sp" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'rebirth'" \
        | grep -q 1 || psql -h 127.0.0.1 -p "$sp" -U postgres -qc 'CREATE DATABASE rebirth'
    else
      own_pg=yes
      REBIRTH_DATABASE_URL="postgresql+psycopg://postgres@127.0.0.1:${PG_PORT:-5433}/rebirth"
    fi
  fi
  if [ -z "${REBIRTH_CMD:-}" ]; then
    if command -v rebirth >/dev/null 2>&1; then REBIRTH_CMD=rebirth
    elif [ -x "$root/.venv/bin/rebirth" ]; then REBIRTH_CMD="$root/.venv/bin/rebirth"
    else echo "rebirth is not installed: see the README's first command (or set REBIRTH_CMD)" >&2; exit 1
    fi
  fi
  # The proxy is the only client whose X-Forwarded-* the workers believe; links are built
  # for the proxy's address.
  REBIRTH_PUBLIC_URL=${REBIRTH_PUBLIC_URL:-"http://127.0.0.1:$PROXY_PORT"}
  REBIRTH_FORWARDED_ALLOW_IPS=127.0.0.1
  REBIRTH_REDIS_PREFIX=${REBIRTH_REDIS_PREFIX:-"rebirth:"}
  export REBIRTH_DATABASE_URL REBIRTH_REDIS_URL REBIRTH_PUBLIC_URL REBIRTH_FORWARDED_ALLOW_IPS \
    REBIRTH_REDIS_PREFIX
  {
    printf 'PROXY_PORT=%s\nWORKER_PORTS=%s\nPG_PORT=%s\nLB_POLICY=%s\n' "$(quote "$PROXY_PORT")" \
      "$(quote "$WORKER_PORTS")" "$(quote "${PG_PORT:-5433}")" "$(quote "$LB_POLICY")"
    printf 'own_redis=%s\nown_pg=%s\nREBIRTH_CMD=%s\n' "$own_redis" "$own_pg" "$(quote "$REBIRTH_CMD")"
    # Every REBIRTH_* setting of the environment, for the workers of any later `start`.
    env | grep '^REBIRTH_[A-Z_]*=' | grep -v '^REBIRTH_CMD=' | while IFS= read -r line; do
      printf 'export %s=%s\n' "${line%%=*}" "$(quote "${line#*=}")"
    done
  } > "$conf.new"
  mv "$conf.new" "$conf"
fi
. "$conf"

start_redis() {
  [ "$own_redis" = yes ] || return 0
  alive redis && return 0
  port=${REBIRTH_REDIS_URL##*:}; port=${port%%/*}
  # A notification path only, never the source of truth (the database is): no persistence.
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
    --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
  i=0
  until redis-cli -p "$port" ping >/dev/null 2>&1; do
    i=$((i + 1)); [ "$i" -gt 100 ] && { echo "redis-server did not start: $dir/redis.log" >&2; exit 1; }
    sleep 0.1
  done
}

start_pg() {
  [ "$own_pg" = yes ] || return 0
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$bin" ] || { echo "PostgreSQL is not installed: run scripts/services.sh" >&2; exit 1; }
  # PostgreSQL refuses to run as root: then it runs as the postgres user.
  as=""; [ "$(id -u)" = 0 ] && as="runuser -u postgres --"
  if [ ! -d "$dir/pg" ]; then
    mkdir -p "$dir/pg"
    # The postgres user must reach DIR/pg: DIR gets traverse (not read) permission for others.
    [ -n "$as" ] && chown postgres "$dir/pg" && chmod o+x "$dir"
    $as "$bin/initdb" -D "$dir/pg" -U postgres --auth=trust >"$dir/pg-init.log" 2>&1
  fi
  if ! $as "$bin/pg_ctl" -D "$dir/pg" status >/dev/null 2>&1; then
    $as "$bin/pg_ctl" -D "$dir/pg" -l "$dir/pg/server.log" -w \
      -o "-p $PG_PORT -h 127.0.0.1 -k $dir/pg" start >/dev/null
    psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'rebirth'" \
      | grep -q 1 || psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc 'CREATE DATABASE rebirth'
  fi
}

wait_http() {  # URL, what, log
  i=0
  until curl -fsS -o /dev/null --max-time 2 "$1" 2>/dev/null; do
    i=$((i + 1)); [ "$i" -gt 300 ] && { echo "$2 did not come up: $3" >&2; exit 1; }
    sleep 0.1
  done
}

start_workers() {
  n=0
  for port in $WORKER_PORTS; do
    n=$((n + 1))
    alive "worker$n" && continue
    # setsid: a worker of its own session, so a Ctrl+C in this shell does not reach it.
    setsid $REBIRTH_CMD serve --host 127.0.0.1 --port "$port" \
      --forwarded-allow-ips "$REBIRTH_FORWARDED_ALLOW_IPS" >>"$dir/worker$n.log" 2>&1 </dev/null &
    echo $! > "$dir/worker$n.pid"
  done
  n=0
  for port in $WORKER_PORTS; do
    n=$((n + 1))
    wait_http "http://127.0.0.1:$port/readyz" "worker $n" "$dir/worker$n.log"
  done
}

start_proxy() {
  alive caddy && return 0
  ups=""
  for port in $WORKER_PORTS; do ups="$ups 127.0.0.1:$port"; done
  mkdir -p "$dir/caddy"
  # Caddy's own files (certificates it never needs here, autosave) stay in DIR as well.
  REBIRTH_SITE="http://127.0.0.1:$PROXY_PORT" REBIRTH_UPSTREAMS="${ups# }" REBIRTH_BIND=127.0.0.1 \
    REBIRTH_LB_POLICY="$LB_POLICY" \
    HOME="$dir/caddy" XDG_DATA_HOME="$dir/caddy" XDG_CONFIG_HOME="$dir/caddy" \
    setsid caddy run --config "$root/deploy/Caddyfile" --adapter caddyfile \
    >>"$dir/caddy.log" 2>&1 </dev/null &
  echo $! > "$dir/caddy.pid"
  wait_http "http://127.0.0.1:$PROXY_PORT/healthz" "caddy" "$dir/caddy.log"
}

stop_pid() {  # name: SIGTERM (a worker finishes its step in flight), SIGKILL after 15 s
  alive "$1" || { rm -f "$dir/$1.pid"; return 0; }
  pid=$(cat "$dir/$1.pid")
  kill "$pid" 2>/dev/null || true
  i=0
  while kill -0 "$pid" 2>/dev/null; do
    i=$((i + 1)); [ "$i" -gt 150 ] && { kill -9 "$pid" 2>/dev/null || true; break; }
    sleep 0.1
  done
  rm -f "$dir/$1.pid"
}

case "$cmd" in
  start)
    command -v caddy >/dev/null 2>&1 || { echo "caddy is missing: run scripts/services.sh (Debian's caddy)" >&2; exit 1; }
    start_pg
    start_redis
    start_workers
    start_proxy
    echo "Rebirth is running at $REBIRTH_PUBLIC_URL/  (workers on ports $WORKER_PORTS; stop: sh $0 stop $dir)"
    ;;
  stop)
    stop_pid caddy
    n=0
    for port in $WORKER_PORTS; do n=$((n + 1)); stop_pid "worker$n"; done
    stop_pid redis
    if [ "$own_pg" = yes ] && [ -d "$dir/pg" ]; then
      bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
      as=""; [ "$(id -u)" = 0 ] && as="runuser -u postgres --"
      $as "$bin/pg_ctl" -D "$dir/pg" -m fast stop >/dev/null 2>&1 || true
    fi
    echo "stopped (the data stays in $dir)"
    ;;
  status)
    n=0
    [ "$own_redis" = yes ] || echo "redis: not started here (${REBIRTH_REDIS_URL:-none: single-process mode})"
    ours=caddy; [ "$own_redis" = yes ] && ours="caddy redis"
    for p in $ours $(for port in $WORKER_PORTS; do n=$((n + 1)); echo "worker$n"; done); do
      if alive "$p"; then echo "$p: running (pid $(cat "$dir/$p.pid"))"; else echo "$p: stopped"; fi
    done
    ;;
  *) echo "usage: $0 start|stop|status DIR" >&2; exit 2 ;;
esac
