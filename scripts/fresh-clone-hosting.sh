#!/bin/sh
# The README's hosting command, proved from a fresh clone (issue 24 item 8):
#
#   sh scripts/fresh-clone-hosting.sh [CHECKOUT]   (default: this checkout's committed HEAD)
#
# 1. `git clone` of CHECKOUT into a temporary folder;
# 2. there, ONLY the README's hosting command line (after `<!-- hosting-command -->`), run
#    verbatim as .ci/run runs the test command: a fresh venv with the `postgres` extra, then
#    scripts/proxy-stack.sh start (its own PostgreSQL, Redis, two workers, Caddy);
# 3. a whole two-player game between two client-side players (random legal actions over the
#    game's WebSocket, at a player's pace; benchmarks/load.py's game creation and frames)
#    played through the proxy to its end;
# 4. a second stack started on the same ports while the first runs: refused, naming each
#    taken port and its variable, and nothing of it started;
# 5. stop: everything the stack started is gone, its ports are free again.
# The ports are free ones picked here and handed over as the script's settings (PROXY_PORT,
# WORKER_PORTS, REDIS_PORT, PG_PORT), so that it can run beside other stacks; the command
# line itself is the README's. The temporary folder is removed at the end.
set -eu

src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d /tmp/rebirth-fresh-XXXXXX)
# As root the stack's PostgreSQL runs as the postgres user, which must traverse this folder.
chmod 711 "$tmp"
clone="$tmp/clone"
started=no

cleanup() {
  rc=$?
  if [ "$started" = yes ]; then
    (cd "$clone" && sh scripts/proxy-stack.sh stop rebirth-stack >/dev/null 2>&1) || true
  fi
  if [ "$rc" != 0 ] && [ -d "$clone/rebirth-stack" ]; then
    for log in "$clone"/rebirth-stack/*.log; do
      [ -f "$log" ] && { echo "--- $log (last lines)"; tail -n 15 "$log"; }
    done
  fi
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT INT TERM

echo "== git clone $src"
git clone -q "$src" "$clone"
cd "$clone"
echo "   at $(git log -1 --format='%h %s' | cut -c1-100)"

cmd=$(grep -A1 '<!-- hosting-command -->' README.md | sed -n '2p' | sed -e 's/^`//' -e 's/`$//')
[ -n "$cmd" ] || { echo "README.md has no command after <!-- hosting-command -->" >&2; exit 2; }

set -- $(python3 -c '
import socket
socks = [socket.socket() for _ in range(5)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks:
    s.close()
')
PROXY_PORT=$1 WORKER_PORTS="$2 $3" REDIS_PORT=$4 PG_PORT=$5
export PROXY_PORT WORKER_PORTS REDIS_PORT PG_PORT
# Nothing of the caller's REBIRTH_* settings leaks into the stack.
for v in $(env | sed -n 's/^\(REBIRTH_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

echo "== the README's hosting command (PROXY_PORT=$PROXY_PORT WORKER_PORTS='$WORKER_PORTS' REDIS_PORT=$REDIS_PORT PG_PORT=$PG_PORT)"
echo "+ $cmd"
t0=$(date +%s)
started=yes
sh -c "$cmd"
echo "   up after $(( $(date +%s) - t0 )) s"

echo "== a whole game through the proxy (http://127.0.0.1:$PROXY_PORT)"
.venv/bin/python - "$PROXY_PORT" <<'EOF'
import asyncio
import json
import random
import sys
import time
import urllib.request

from websockets.asyncio.client import connect

sys.path.insert(0, "benchmarks")
import load  # the project's load generator: its game creation (invitations claimed) and frames

port = int(sys.argv[1])


async def seat(gid: str, token: str, me: int, rng: random.Random, out: dict[int, dict]) -> None:
    """One player: a random legal action whenever it is to move, at a player's pace (the
    stack runs with the default rate limits, 20 messages a second per socket), to the end."""
    async with connect(f"ws://127.0.0.1:{port}/ws/games/{gid}", max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token, "since": -1}))
        view = (await load._next(ws, "sync"))["view"]
        acted = 0
        while view["phase"] != "end":
            if view["current_player"] == me and view["legal_actions"]:
                await asyncio.sleep(0.1)
                await ws.send(json.dumps({"type": "act", "action": rng.choice(view["legal_actions"]),
                                          "version": len(view["history"])}))
                msg = await load._next(ws, "update", "error")
                if msg["type"] == "error":
                    raise AssertionError(f"seat {me}: {msg}")
                acted += 1
            else:
                msg = await load._next(ws, "update", "sync")
            view = msg["view"]
        out[me] = {"acted": acted, "steps": len(view["history"]), "scores": view.get("scores")}


async def main() -> None:
    gid, toks = await asyncio.to_thread(load.create_game, port, "scotland")
    out: dict[int, dict] = {}
    t0 = time.monotonic()
    await asyncio.wait_for(asyncio.gather(*(seat(gid, t, i, random.Random(i), out)
                                            for i, t in enumerate(toks))), 600)
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games/{gid}", timeout=10) as r:
        status = json.loads(r.read())["status"]
    assert status == "over", status
    assert out[0]["steps"] == out[1]["steps"] and out[0]["scores"] == out[1]["scores"], out
    print(f"   game {gid}: {out[0]['acted']} + {out[1]['acted']} moves by the two players, "
          f"{out[0]['steps']} steps, scores {out[0]['scores']}, {time.monotonic() - t0:.1f} s; "
          f"the server says {status!r}")


asyncio.run(main())
with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
    counted = [ln for ln in r.read().decode().splitlines()
               if ln.startswith("rebirth_http_requests_total{") and 'status="5' in ln]
assert not counted, counted
print("   no 5xx answer counted (metrics of the worker the proxy asked)")
EOF
for n in 1 2; do
  joins=$(grep -c '"event": "join"' "rebirth-stack/worker$n.log" || true)
  echo "   worker $n: $joins socket joins"
done
! grep -l Traceback rebirth-stack/worker*.log || { echo "a worker logged a traceback" >&2; exit 1; }

echo "== a second stack on the same (now taken) ports"
set +e
refusal=$(sh scripts/proxy-stack.sh start "$tmp/second" 2>&1)
rc=$?
set -e
echo "$refusal" | sed 's/^/   /'
[ "$rc" = 1 ] || { echo "the second start was not refused (exit $rc)" >&2; exit 1; }
echo "$refusal" | grep -qx "port $PROXY_PORT is already in use (for PROXY_PORT): stop what listens there, or choose a free port with PROXY_PORT=..."
for p in $WORKER_PORTS; do echo "$refusal" | grep -q "^port $p is already in use (for WORKER_PORTS)"; done
echo "$refusal" | grep -q "^port $REDIS_PORT is already in use (for REDIS_PORT)"
echo "$refusal" | grep -q "^port $PG_PORT is already in use (for PG_PORT)"
[ -z "$(ls -A "$tmp/second")" ] || { echo "the refused start wrote into its DIR" >&2; exit 1; }
echo "   refused, each taken port named with its variable; nothing of it started"

echo "== stop"
sh scripts/proxy-stack.sh stop rebirth-stack
started=no
python3 - $PROXY_PORT $WORKER_PORTS $REDIS_PORT $PG_PORT <<'EOF'
import socket
import sys
import time

deadline = time.monotonic() + 10
for p in map(int, sys.argv[1:]):
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", p)) != 0:
                break
        assert time.monotonic() < deadline, f"port {p} still answers after stop"
        time.sleep(0.1)
print("   every port of the stack is free again")
EOF
[ -z "$(git status --porcelain)" ] || { echo "the clone is not clean:"; git status --short; exit 1; }
echo "   the clone is clean (git status)"
echo "== done"
