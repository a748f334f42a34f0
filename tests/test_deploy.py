"""Issue 15, item 4: the Dockerfile and compose.yaml for self-hosters run the same commands and
settings as scripts/proxy-stack.sh, the set-up tests/browser/test_proxy_stack.py runs behind a
real Caddy. Docker cannot run here, so this reads both (YAML) and compares them with the
script; the one Caddyfile both use is checked by Caddy itself (``caddy adapt``)."""

from __future__ import annotations

import ipaddress
import json
import os
import re
import shlex
import subprocess
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = (ROOT / "scripts" / "proxy-stack.sh").read_text("utf-8")
# What a self-hoster sets (compose.yaml's header): compose fills ${NAME...} from it.
HOST_ENV = {"REBIRTH_DOMAIN": "rebirth.example.org", "POSTGRES_PASSWORD": "s3cret"}


def interpolate(text: str) -> str:
    """compose's ``${NAME}``, ``${NAME:?message}`` and ``${NAME:-default}`` with HOST_ENV."""
    def one(m: re.Match[str]) -> str:
        assert m.group(1) in HOST_ENV, f"compose.yaml needs {m.group(1)}, which its header omits"
        return HOST_ENV[m.group(1)]
    return re.sub(r"\$\{([A-Z_]+)(?::?[?-][^}]*)?\}", one, text)


COMPOSE: dict[str, Any] = yaml.safe_load(interpolate((ROOT / "compose.yaml").read_text("utf-8")))
SERVICES: dict[str, Any] = COMPOSE["services"]
CADDYFILE = ROOT / "deploy" / "Caddyfile"


def script_lines() -> list[str]:
    """The script's lines with backslash continuations joined."""
    return SCRIPT.replace("\\\n", " ").splitlines()


def script_line(needle: str) -> list[str]:
    """The words of the script's one command line containing ``needle``."""
    found = [ln for ln in script_lines() if needle in ln and not ln.lstrip().startswith("#")]
    assert len(found) == 1, (needle, found)
    return shlex.split(found[0])


def options(words: list[str]) -> dict[str, str]:
    """``--name value`` pairs of a command (a flag without a value maps to "")."""
    out = {}
    for i, w in enumerate(words):
        if w.startswith("--"):
            nxt = words[i + 1] if i + 1 < len(words) else ""
            out[w] = "" if nxt.startswith("--") else nxt
    return out


def apps() -> list[dict[str, Any]]:
    return [SERVICES[n] for n in ("app1", "app2")]


def caddy_ip() -> str:
    return str(SERVICES["caddy"]["networks"]["rebirth"]["ipv4_address"])


def test_the_workers_run_the_scripts_serve_command() -> None:
    serve = script_line(" serve --host")
    mine = options(serve[serve.index("serve"):])
    a, b = apps()
    assert a == b, "both workers run exactly the same"
    cmd = a["command"]
    assert cmd[:2] == ["rebirth", "serve"]
    theirs = options(cmd)
    assert set(theirs) == set(mine) == {"--host", "--port", "--forwarded-allow-ips"}
    # Reachable from the proxy's container, as the script's workers are from its Caddy.
    assert theirs["--host"] == "0.0.0.0" and mine["--host"] == "127.0.0.1"
    # The image's default command is the same serve command on the same port.
    docker = (ROOT / "Dockerfile").read_text("utf-8")
    default = json.loads(re.findall(r"^CMD (\[.*\])$", docker, re.M)[-1])
    assert default[:2] == cmd[:2] and options(default)["--port"] == theirs["--port"]
    assert re.search(rf"^EXPOSE {theirs['--port']}$", docker, re.M)


def test_the_workers_get_the_scripts_settings() -> None:
    exported = re.search(r"^\s*export (REBIRTH_[A-Z_ ]+)$", "\n".join(script_lines()), re.M)
    assert exported is not None
    names = set(exported.group(1).split())
    assert names == {"REBIRTH_DATABASE_URL", "REBIRTH_REDIS_URL", "REBIRTH_REDIS_PREFIX",
                     "REBIRTH_PUBLIC_URL", "REBIRTH_FORWARDED_ALLOW_IPS"}
    for app in apps():
        env = app["environment"]
        assert set(env) == names
        db = urlsplit(env["REBIRTH_DATABASE_URL"])
        assert db.scheme == "postgresql+psycopg" and db.hostname == "postgres" and "postgres" in SERVICES
        assert urlsplit(env["REBIRTH_REDIS_URL"]).hostname == "redis" and "redis" in SERVICES
        assert env["REBIRTH_PUBLIC_URL"] == "https://rebirth.example.org"
        # Only the proxy's X-Forwarded-* headers are believed: in the script Caddy on loopback,
        # here Caddy's fixed address in the compose network.
        assert env["REBIRTH_FORWARDED_ALLOW_IPS"] == options(app["command"])["--forwarded-allow-ips"] \
            == caddy_ip()
        assert app["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert "REBIRTH_FORWARDED_ALLOW_IPS=127.0.0.1" in SCRIPT
    subnet = COMPOSE["networks"]["rebirth"]["ipam"]["config"][0]["subnet"]
    assert ipaddress.ip_address(caddy_ip()) in ipaddress.ip_network(subnet)
    # psycopg, which the URL's driver needs, is what the image installs (the postgres extra).
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]
    assert any(d.startswith("psycopg") for d in extras["postgres"])
    assert '".[postgres]"' in (ROOT / "Dockerfile").read_text("utf-8")


def test_redis_runs_as_in_the_script() -> None:
    mine = options(script_line("redis-server --port"))
    theirs = options(SERVICES["redis"]["command"])
    # A notification path only: no persistence in either.
    for opt in ("--save", "--appendonly"):
        assert theirs[opt] == mine[opt]
    assert theirs["--save"] == "" and theirs["--appendonly"] == "no"


def test_caddy_runs_the_scripts_caddyfile_on_the_workers() -> None:
    mine = script_line("caddy run --config")
    caddy = SERVICES["caddy"]
    cmd = caddy["command"]
    assert cmd[:2] == mine[mine.index("caddy"):][:2] == ["caddy", "run"]
    assert options(cmd)["--adapter"] == options(mine)["--adapter"] == "caddyfile"
    assert options(mine)["--config"] == "$root/deploy/Caddyfile"
    mounted = {v.split(":")[1]: v.split(":")[0] for v in caddy["volumes"] if v.startswith("./")}
    assert mounted[options(cmd)["--config"]] == "./deploy/Caddyfile"
    # Every {$NAME} of the Caddyfile without a default is given, here and in the script.
    conf = "\n".join(ln for ln in CADDYFILE.read_text("utf-8").splitlines()
                     if not ln.lstrip().startswith("#"))
    needed = set(re.findall(r"\{\$([A-Z_]+)\}", conf))
    assert needed == {"REBIRTH_SITE", "REBIRTH_UPSTREAMS"}
    assert needed <= set(caddy["environment"])
    assert all(f"{n}=" in " ".join(mine) for n in needed)
    # The upstreams are the two workers on the port they listen on.
    port = options(apps()[0]["command"])["--port"]
    assert caddy["environment"]["REBIRTH_UPSTREAMS"].split() == [f"app1:{port}", f"app2:{port}"]
    assert {"80:80", "443:443"} <= set(caddy["ports"])


def adapt(env: dict[str, str]) -> dict[str, Any]:
    out = subprocess.run(["caddy", "adapt", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
                         capture_output=True, text=True, timeout=60,
                         env={**os.environ, **env, "HOME": "/nonexistent"})
    assert out.returncode == 0, out.stderr
    cfg: dict[str, Any] = json.loads(out.stdout)
    return cfg


def proxy_of(cfg: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """The listen addresses and the reverse_proxy handler of the one site (its route for
    everything but the bot API's streams; those must be flushed line by line)."""
    (server,) = cfg["apps"]["http"]["servers"].values()
    routes = server["routes"][0]["handle"][0]["routes"]
    streams, rest = routes
    handler = rest["handle"][0]
    assert handler["handler"] == "reverse_proxy" and "match" not in rest
    flushed = streams["handle"][0]
    assert flushed["flush_interval"] == -1 and "flush_interval" not in handler
    pattern = re.compile(streams["match"][0]["path_regexp"]["pattern"])
    assert pattern.match("/api/bot/games/AbC-12_x/stream") and pattern.match("/api/bot/stream/events")
    assert not pattern.match("/api/bot/games/x/move") and not pattern.match("/api/games/x")
    # The same workers and policy as every other request.
    assert {k: v for k, v in flushed.items() if k != "flush_interval"} == handler
    return server["listen"], handler


def test_the_caddyfile_is_valid_for_both_set_ups() -> None:
    """Caddy itself reads the one Caddyfile with compose's settings (a domain: HTTPS on 443,
    per-game routing over app1/app2) and with the script's (plain HTTP on loopback; the policy
    it is given)."""
    caddy = SERVICES["caddy"]["environment"]
    assert caddy["REBIRTH_SITE"] == "rebirth.example.org"
    listen, rp = proxy_of(adapt(caddy))
    assert listen == ["0.0.0.0:443"]
    assert [u["dial"] for u in rp["upstreams"]] == ["app1:8000", "app2:8000"]
    assert rp["load_balancing"]["selection_policy"]["policy"] == "uri_hash"
    listen, rp = proxy_of(adapt({"REBIRTH_SITE": "http://127.0.0.1:8080", "REBIRTH_BIND": "127.0.0.1",
                                 "REBIRTH_UPSTREAMS": "127.0.0.1:8001 127.0.0.1:8002",
                                 "REBIRTH_LB_POLICY": "round_robin"}))
    assert listen == ["127.0.0.1:8080"]
    assert [u["dial"] for u in rp["upstreams"]] == ["127.0.0.1:8001", "127.0.0.1:8002"]
    assert rp["load_balancing"]["selection_policy"]["policy"] == "round_robin"
