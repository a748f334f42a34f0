#!/bin/sh
# Rebirth behind a real reverse proxy on this machine: PostgreSQL, Redis, two `rebirth serve`
# workers on two ports sharing one database URL and one Redis URL, and Caddy load-balancing
# HTTP and WebSockets across them (deploy/Caddyfile, the file compose.yaml uses too).
#
#   sh scripts/proxy-stack.sh start DIR   start what is not running yet; prints the public URL
#   sh scripts/proxy-stack.sh stop DIR    stop what `start` started (the data stays in DIR)
#   sh scripts/proxy-stack.sh status DIR  what runs
#
# Everything this writes (settings, logs, pid files, its Redis and its PostgreSQL cluster) is in
# DIR. `start` first checks everything it needs (Python with rebirth and psycopg, caddy,
# redis-server, PostgreSQL's initdb/pg_ctl, free ports) and, if anything is missing or a port is
# taken, says so in one line each and starts nothing. It is idempotent: run again, it reuses
# DIR's settings and starts only what is down (a killed worker, a restarted Redis).
# Settings, read on the first `start` (then kept in DIR/stack.env) and printed by every `start`:
#   PROXY_PORT (8080), WORKER_PORTS ("8001 8002"), REDIS_PORT (6390), PG_PORT (5433)
#   PG_BIN                PostgreSQL's programs (default: the newest /usr/lib/postgresql/*/bin)
#   LB_POLICY             Caddy's lb_policy (uri_hash: a game's sockets on one worker;
#                         round_robin: each new connection on the next worker)
#   REBIRTH_DATABASE_URL  a database to use (created by you; this script creates none there);
#                         else its own PostgreSQL cluster in DIR/pg on PG_PORT, database
#                         "rebirth_stack": it never touches a database it did not create
#   REBIRTH_REDIS_URL     a Redis to use; else its own redis-server in DIR on REDIS_PORT
#                         ("none", with one worker port: no Redis, the single-process mode)
#   REBIRTH_CMD           how to run rebirth (default: the checkout's .venv/bin/rebirth, else
#                         `rebirth` on PATH)
#   any other REBIRTH_* server setting (docs/server.md) is handed to both workers.
set -eu

usage() { echo "usage: $0 start|stop|status DIR" >&2; exit 2; }
cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || usage
case "$cmd" in start|stop|status) ;; *) usage ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "$cmd" = start ]; then mkdir -p "$dir"; fi
[ -d "$dir" ] || { echo "nothing was started in $dir" >&2; exit 1; }
dir=$(cd "$dir" && pwd)
conf="$dir/stack.env"
PG_DB=rebirth_stack

alive() { [ -f "$dir/$1.pid" ] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

# The settings, decided once (first start) and kept in DIR/stack.env so that a second
# `start` (or `stop`) acts on the same ports, database and Redis. Written only once every
# check below has passed: a refused start leaves nothing behind to contradict a corrected one.
fresh=no
if [ -f "$conf" ]; then
  . "$conf"
  # A DIR started by an earlier version of this script named Redis' port in its URL only.
  if [ -z "${REDIS_PORT:-}" ]; then REDIS_PORT=${REBIRTH_REDIS_URL##*:}; REDIS_PORT=${REDIS_PORT%%/*}; fi
else
  [ "$cmd" = start ] || { echo "nothing was started in $dir" >&2; exit 1; }
  fresh=yes
  PROXY_PORT=${PROXY_PORT:-8080}
  WORKER_PORTS=${WORKER_PORTS:-"8001 8002"}
  REDIS_PORT=${REDIS_PORT:-6390}
  PG_PORT=${PG_PORT:-5433}
  LB_POLICY=${LB_POLICY:-uri_hash}
  own_redis=no own_pg=no
  if [ "${REBIRTH_REDIS_URL:-}" = none ]; then
    # One worker without Redis: the single-process mode (the load benchmark compares it).
    [ "$(echo $WORKER_PORTS | wc -w)" = 1 ] || { echo "REBIRTH_REDIS_URL=none needs one worker port" >&2; exit 2; }
    REBIRTH_REDIS_URL=""
  elif [ -z "${REBIRTH_REDIS_URL:-}" ]; then
    own_redis=yes
    REBIRTH_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
  fi
  if [ -z "${REBIRTH_DATABASE_URL:-}" ]; then
    own_pg=yes
    REBIRTH_DATABASE_URL="postgresql+psycopg://postgres@127.0.0.1:$PG_PORT/$PG_DB"
  fi
  if [ -z "${REBIRTH_CMD:-}" ]; then
    if [ -x "$root/.venv/bin/rebirth" ]; then REBIRTH_CMD="$root/.venv/bin/rebirth"
    elif command -v rebirth >/dev/null 2>&1; then REBIRTH_CMD=rebirth
    else REBIRTH_CMD=""
    fi
  fi
  # The proxy is the only client whose X-Forwarded-* the workers believe; links are built
  # for the proxy's address.
  REBIRTH_PUBLIC_URL=${REBIRTH_PUBLIC_URL:-"http://127.0.0.1:$PROXY_PORT"}
  REBIRTH_FORWARDED_ALLOW_IPS=127.0.0.1
  REBIRTH_REDIS_PREFIX=${REBIRTH_REDIS_PREFIX:-"rebirth:"}
  export REBIRTH_DATABASE_URL REBIRTH_REDIS_URL REBIRTH_PUBLIC_URL REBIRTH_FORWARDED_ALLOW_IPS \
    REBIRTH_REDIS_PREFIX
fi
# Where a setting lives: the environment on a first start, DIR/stack.env after it.
where() { if [ "$fresh" = yes ]; then echo "$1"; else echo "$1 in $conf"; fi; }

# PostgreSQL's programs: PG_BIN, else the newest of Debian's /usr/lib/postgresql/*/bin.
pg_bin() { if [ -n "${PG_BIN:-}" ]; then echo "$PG_BIN"; else ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; fi; }
# PostgreSQL refuses to run as root: then it runs as the postgres user.
pg_as() { if [ "$(id -u)" = 0 ]; then echo "runuser -u postgres --"; fi; }
pg_up() { [ "$own_pg" = yes ] && [ -d "$dir/pg" ] && bin=$(pg_bin) && [ -n "$bin" ] \
  && $(pg_as) "$bin/pg_ctl" -D "$dir/pg" status >/dev/null 2>&1; }

# The Python that runs rebirth: REBIRTH_CMD's first word if it is a Python, else the
# interpreter its launcher script names (pip's shebang, or its /bin/sh form for long paths).
python_of() {
  first=${1%% *}
  exe=$(command -v "$first" 2>/dev/null) || return 1
  case "${exe##*/}" in python*) echo "$exe"; return 0 ;; esac
  line=$(head -n 1 "$exe" 2>/dev/null) || return 1
  case "$line" in
    "#!/bin/sh"*) sed -n '2s/^[^"]*"\([^"]*\)".*/\1/p' "$exe" ;;
    "#!"*) echo "${line#\#!}" ;;
    *) return 1 ;;
  esac
}

# Every prerequisite of `start`, checked before anything starts: one line each for what is
# missing, and how to get it.
check() {
  missing=""
  say() { missing="$missing$1
"; }
  py=""
  if [ -z "$REBIRTH_CMD" ]; then
    say "rebirth is not installed: python3 -m venv .venv && .venv/bin/pip install -e '.[postgres]' (the README's hosting command), or set REBIRTH_CMD"
  elif ! py=$(python_of "$REBIRTH_CMD") || [ -z "$py" ]; then
    say "cannot find the Python of REBIRTH_CMD ($REBIRTH_CMD): set REBIRTH_CMD to an installed rebirth or to 'PYTHON -m rebirth.cli.main'"
    py=""
  elif ! $py -c 'import rebirth' 2>/dev/null; then
    say "rebirth is not importable by $py: .venv/bin/pip install -e '.[postgres]' in the checkout"
  fi
  case "$REBIRTH_DATABASE_URL" in
    postgresql*)
      if [ -n "$py" ] && ! $py -c 'import psycopg' 2>/dev/null; then
        say "psycopg (PostgreSQL's driver) is missing in $py: install the postgres extra: pip install -e '.[postgres]'"
      fi ;;
  esac
  command -v caddy >/dev/null 2>&1 || say "caddy is missing: apt-get install caddy (or sh scripts/services.sh)"
  if [ "$own_redis" = yes ] && ! command -v redis-server >/dev/null 2>&1; then
    say "redis-server is missing: apt-get install redis-server (or sh scripts/services.sh), or set REBIRTH_REDIS_URL"
  fi
  if [ "$own_pg" = yes ]; then
    bin=$(pg_bin)
    lacking=""
    for b in initdb pg_ctl psql; do
      [ -n "$bin" ] && [ -x "$bin/$b" ] || lacking="$lacking $b"
    done
    [ -z "$lacking" ] || say "PostgreSQL is missing (no${lacking} in ${PG_BIN:-/usr/lib/postgresql/*/bin}): apt-get install postgresql (or sh scripts/services.sh), or set PG_BIN or REBIRTH_DATABASE_URL"
    if [ -n "$(pg_as)" ]; then
      if ! id postgres >/dev/null 2>&1; then
        say "PostgreSQL does not run as root and there is no postgres user: apt-get install postgresql"
      elif ! runuser -u postgres -- test -x "$dir"; then
        say "the postgres user cannot reach $dir (a parent folder is closed to others): choose a DIR it can traverse, or chmod o+x its parents"
      fi
    fi
  fi
  # The ports: numbers, all different, and free unless this stack's own process holds them.
  ports="" names=""
  add() { ports="$ports $1"; names="$names $2"; }
  alive caddy || add "$PROXY_PORT" PROXY_PORT
  n=0
  for port in $WORKER_PORTS; do n=$((n + 1)); alive "worker$n" || add "$port" WORKER_PORTS; done
  [ "$own_redis" = yes ] && ! alive redis && add "$REDIS_PORT" REDIS_PORT
  [ "$own_pg" = yes ] && ! pg_up && add "$PG_PORT" PG_PORT
  all="$PROXY_PORT $WORKER_PORTS"
  [ "$own_redis" = yes ] && all="$all $REDIS_PORT"
  [ "$own_pg" = yes ] && all="$all $PG_PORT"
  for p in $all; do
    case "$p" in ''|*[!0-9]*) say "port '$p' is not a number: see PROXY_PORT, WORKER_PORTS, REDIS_PORT and PG_PORT"; continue ;; esac
    [ "$p" -ge 1 ] && [ "$p" -le 65535 ] || say "port $p is out of range (1-65535): see PROXY_PORT, WORKER_PORTS, REDIS_PORT and PG_PORT"
  done
  dup=$(echo $all | tr ' ' '\n' | sort | uniq -d | tr '\n' ' ')
  [ -z "$dup" ] || say "port ${dup% } is given twice: PROXY_PORT, WORKER_PORTS, REDIS_PORT and PG_PORT must all differ"
  if [ -n "$py" ] && [ -n "$ports" ]; then
    # A bind says it best (a listener on 0.0.0.0 or on 127.0.0.1 both make it fail).
    busy=$($py -c '
import socket, sys
for p in sys.argv[1:]:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", int(p)))
    except (OSError, ValueError, OverflowError):
        print(p)
    finally:
        s.close()
' $ports)
    set -- $names
    for p in $ports; do
      name=$1; shift
      if echo "$busy" | grep -qx "$p"; then
        say "port $p is already in use (for $(where "$name")): stop what listens there, or choose a free port with $name=..."
      fi
    done
  fi
  if [ -n "$missing" ]; then
    printf '%s' "$missing" >&2
    echo "nothing was started" >&2
    exit 1
  fi
}

wait_up() {  # http URL | redis PORT, what, log: up to 60 s
  $py -c '
import socket, sys, time, urllib.request
kind, target = sys.argv[1], sys.argv[2]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy
end = time.monotonic() + 60
while time.monotonic() < end:
    try:
        if kind == "http":
            with opener.open(target, timeout=2) as r:
                if r.status == 200:
                    sys.exit(0)
        else:
            with socket.create_connection(("127.0.0.1", int(target)), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    sys.exit(0)
    except OSError:
        pass
    time.sleep(0.1)
sys.exit(1)
' "$1" "$2" || { echo "$3 did not come up: $4" >&2; exit 1; }
}

start_redis() {
  [ "$own_redis" = yes ] || return 0
  alive redis && return 0
  # A notification path only, never the source of truth (the database is): no persistence.
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
    --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
  wait_up redis "$REDIS_PORT" "redis-server" "$dir/redis.log"
}

start_pg() {
  [ "$own_pg" = yes ] || return 0
  bin=$(pg_bin)
  as=$(pg_as)
  if [ ! -d "$dir/pg" ]; then
    mkdir -p "$dir/pg"
    # The postgres user must reach DIR/pg: DIR gets traverse (not read) permission for others.
    [ -n "$as" ] && chown postgres "$dir/pg" && chmod o+x "$dir"
    $as "$bin/initdb" -D "$dir/pg" -U postgres --auth=trust >"$dir/pg-init.log" 2>&1
  fi
  if ! $as "$bin/pg_ctl" -D "$dir/pg" status >/dev/null 2>&1; then
    $as "$bin/pg_ctl" -D "$dir/pg" -l "$dir/pg/server.log" -w \
      -o "-p $PG_PORT -h 127.0.0.1 -k $dir/pg" start >/dev/null
  fi
  # Its own database, in its own cluster: nothing it did not create is touched.
  $as "$bin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = '$PG_DB'" | grep -q 1 \
    || $as "$bin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -qc "CREATE DATABASE $PG_DB"
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
    wait_up http "http://127.0.0.1:$port/readyz" "worker $n" "$dir/worker$n.log"
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
  wait_up http "http://127.0.0.1:$PROXY_PORT/healthz" "caddy" "$dir/caddy.log"
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
    check
    if [ "$fresh" = yes ]; then
      {
        printf 'PROXY_PORT=%s\nWORKER_PORTS=%s\nREDIS_PORT=%s\nPG_PORT=%s\nLB_POLICY=%s\n' \
          "$(quote "$PROXY_PORT")" "$(quote "$WORKER_PORTS")" "$(quote "$REDIS_PORT")" \
          "$(quote "$PG_PORT")" "$(quote "$LB_POLICY")"
        printf 'own_redis=%s\nown_pg=%s\nPG_BIN=%s\nREBIRTH_CMD=%s\n' "$own_redis" "$own_pg" \
          "$(quote "${PG_BIN:-}")" "$(quote "$REBIRTH_CMD")"
        # Every REBIRTH_* setting of the environment, for the workers of any later `start`.
        env | grep '^REBIRTH_[A-Z_]*=' | grep -v '^REBIRTH_CMD=' | while IFS= read -r line; do
          printf 'export %s=%s\n' "${line%%=*}" "$(quote "${line#*=}")"
        done
      } > "$conf.new"
      mv "$conf.new" "$conf"
    fi
    redis_says="redis $REDIS_PORT (REDIS_PORT)"
    [ "$own_redis" = yes ] || redis_says="redis: ${REBIRTH_REDIS_URL:-none (single-process mode)}"
    pg_says="postgres $PG_PORT (PG_PORT, database $PG_DB in $dir/pg)"
    [ "$own_pg" = yes ] || pg_says="database: REBIRTH_DATABASE_URL as given"
    echo "ports: proxy $PROXY_PORT (PROXY_PORT), workers $WORKER_PORTS (WORKER_PORTS), $redis_says, $pg_says"
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
    if pg_up; then
      $(pg_as) "$(pg_bin)/pg_ctl" -D "$dir/pg" -m fast -w stop >/dev/null 2>&1 || true
    fi
    echo "stopped (the data stays in $dir)"
    ;;
  status)
    n=0
    [ "$own_redis" = yes ] || echo "redis: not started here (${REBIRTH_REDIS_URL:-none: single-process mode})"
    if [ "$own_pg" = yes ]; then
      if pg_up; then echo "postgres: running (port $PG_PORT, database $PG_DB)"; else echo "postgres: stopped"; fi
    else
      echo "postgres: not started here (REBIRTH_DATABASE_URL)"
    fi
    ours=caddy; [ "$own_redis" = yes ] && ours="caddy redis"
    for p in $ours $(for port in $WORKER_PORTS; do n=$((n + 1)); echo "worker$n"; done); do
      if alive "$p"; then echo "$p: running (pid $(cat "$dir/$p.pid"))"; else echo "$p: stopped"; fi
    done
    ;;
esac
