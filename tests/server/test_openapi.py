"""The OpenAPI schema is served for integrators, and a schema-driven fuzzer (schemathesis) runs
over it (issue 15 item 7 and its must-show "schemathesis over the served schema finds no 5xx";
issue 24 item 3: every check on, response conformance included): a started server on a
temporary database, every operation of the schema, a bounded number of examples each; no
answer is a 5xx and every answer conforms to the schema (status code, content type, headers,
body), schema-valid requests are accepted and others refused (with the allowances of the
project's ``schemathesis.toml``). A second run sends the same operations with real games,
tables and links, so that the 2xx answers themselves are checked against their models."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
import uvicorn
from fastapi import FastAPI
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from pydantic import BaseModel
from schemathesis.checks import CHECKS as REGISTRY
from schemathesis.checks import CheckFunction, load_all_checks
from schemathesis.core.result import Ok
from schemathesis.generation.modes import GenerationMode

from rebirth.server.app import create_app
from server import kit
from server.test_calc import position

MAX_EXAMPLES = int(os.environ.get("REBIRTH_FUZZ_EXAMPLES", "20"))
"""Examples per operation and generation mode: the whole run stays well under a minute on a
busy machine (a deeper run: ``REBIRTH_FUZZ_EXAMPLES=150``, about three minutes)."""
load_all_checks()
CHECKS: list[CheckFunction] = [c for c in REGISTRY.get_all() if not isinstance(c, type)]
"""Every check schemathesis has (not_a_server_error, status code, content type, headers and
body conformance, negative data rejection, positive data acceptance, missing required header,
unsupported method, Allow header, use after free, resource availability, ignored auth, object
level authorization); those that need a stateful run or a security scheme pass by themselves."""
CONFIG = Path(__file__).resolve().parents[2] / "schemathesis.toml"
"""The project's allowances (400 for a schema-valid request the rules refuse, 413)."""

Prepare = Callable[[schemathesis.Case[Any]], None]


@contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    """``app`` served on a free loopback port (uvicorn in a thread); yields its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server on a fresh temporary database."""
    with serving(create_app(kit.settings(tmp_path_factory.mktemp("openapi")))) as base:
        yield base


def test_the_schema_is_served(live: str) -> None:
    r = httpx.get(f"{live}/openapi.json", timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    doc = r.json()
    assert doc["openapi"].startswith("3.")
    paths = doc["paths"]
    for path in ("/api/games", "/api/games/{game_id}/claim", "/api/games/{game_id}/seats/{seat}/revoke",
                 "/api/score", "/api/tables", "/healthz", "/readyz"):
        assert path in paths, path
    # Refusals are documented in the one error shape (server/errors.py).
    claim = paths["/api/games/{game_id}/claim"]["post"]["responses"]
    assert {"200", "400", "403", "409"} <= set(claim)


def fuzz(base: str, paths: tuple[str, ...] | None = None, prepare: Prepare | None = None,
         statuses: Counter[tuple[str, int]] | None = None) -> list[str]:
    """Run the fuzzer over the schema served at ``base`` (only ``paths``, if given); one line
    per failing operation and mode. ``prepare`` (then only valid requests are sent) puts real
    ids and links into each generated request; ``statuses`` counts the answers."""
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json",
                                           config=schemathesis.Config.from_path(CONFIG))
    operations = [result.ok() for result in schema.get_all_operations() if isinstance(result, Ok)]
    operations = [op for op in operations if paths is None or op.path in paths]
    # What takes a seat or a link away (re-opening a seat, handing it to a bot) comes last.
    operations.sort(key=lambda op: op.path.endswith(("/revoke", "/bot")))
    failures: list[str] = []
    # Valid requests to every operation; requests the schema forbids (wrong types, missing or
    # extra fields, …) to those that take a body or a number (a GET's string path parameters
    # cannot be made invalid). With real ids only valid ones: a replaced id could make an
    # invalid request valid.
    runs = [(op, GenerationMode.POSITIVE) for op in operations] + [
        (op, GenerationMode.NEGATIVE) for op in operations
        if op.method.upper() == "POST" and prepare is None]
    for op, mode in runs:
        try:
            strategy = op.as_strategy(mode)
        except Exception:  # an operation without inputs has no negative examples
            assert mode is GenerationMode.NEGATIVE
            continue

        @given(case=strategy)
        @settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck), phases=[Phase.generate])
        def run(case: schemathesis.Case[Any]) -> None:
            if prepare is not None:
                prepare(case)
            r = case.call_and_validate(checks=CHECKS, timeout=20)
            if statuses is not None:
                statuses[(f"{case.method.upper()} {case.path}", r.status_code)] += 1

        try:
            run()
        except Unsatisfiable:
            # Nothing the schema forbids can be sent to it (only string path parameters).
            assert mode is GenerationMode.NEGATIVE
        except (Exception, BaseExceptionGroup) as exc:  # every failing operation, reported together
            failures.append(f"{op.label} ({mode.value}): {type(exc).__name__}: {str(exc)[:1500]}")
    return failures


def test_fuzz_every_operation(live: str) -> None:
    """Every operation of the served schema, MAX_EXAMPLES generated requests each: no 5xx, and
    every answer as the schema says. (Run through schemathesis' Python API: its pytest plugin
    does not load under this pytest.)"""
    assert len(httpx.get(f"{live}/openapi.json", timeout=10).json()["paths"]) >= 18
    failures = fuzz(live)
    assert failures == [], "\n\n".join(failures)


def test_fuzz_the_ratings_routes_with_accounts(tmp_path: Path) -> None:
    """The leaderboard and the profile with the account tables there (the stand-ins of
    tests/server/ratingskit.py) and a rated account: every answer as the schema says."""
    from rebirth.server.persistence import ratings as rs
    from rebirth.server.persistence.store import Store
    from server import ratingskit

    settings_ = kit.settings(tmp_path)
    with serving(create_app(settings_)) as base:
        store = Store(settings_.resolved_database_url())
        try:
            ids = [ratingskit.account(store, n) for n in ("Ada", "Bo")]
            for _ in range(rs.MIN_GAMES):
                r = httpx.post(f"{base}/api/games", json={"players": 2, "seats": [{"kind": "human"}] * 2})
                gid = r.json()["game"]
                for seat, aid in enumerate(ids):
                    ratingskit.seat(store, gid, seat, aid)
                ratingskit.rated(store, gid)
                rs.record_result(store, rs.FinalResult(gid, "scotland", 2, (120, 100), (0,)))
                rs.rate_game(store, gid)
        finally:
            store.close()
        assert len(httpx.get(f"{base}/api/ratings").json()["ratings"]) == 2
        failures = fuzz(base, paths=("/api/ratings", "/api/players/{name}"))
        assert failures == [], "\n\n".join(failures)


def _bearer(url: str) -> str:
    return f"Bearer {kit.token(url)}"


class Links:
    """Real games, a table and their links on the live server, put into generated requests."""

    def __init__(self, base: str) -> None:
        with httpx.Client(base_url=base, timeout=20) as c:
            # A game under way (a human seat, a bot and a clock) with its seat claimed, and a
            # finished bot game (analysis, rematch).
            a = c.post("/api/games", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "easy"}],
                                           "clock": {"kind": "turn", "per_move_s": 86400}}).json()
            invite = a["links"]["seats"][0]["url"].split("#i=", 1)[1]
            seat = c.post(f"/api/games/{a['game']}/claim", json={"invite": invite}).json()["token"]
            b = c.post("/api/games", json={"players": 2, "seats": [{"kind": "easy"}] * 2}).json()
            deadline = time.monotonic() + 120
            while c.get(f"/api/games/{b['game']}").json()["status"] != "over":
                assert time.monotonic() < deadline, "the bot game did not finish"
                time.sleep(0.2)
            t = c.post("/api/tables", json={"players": 2}).json()
        self.playing, self.over, self.table = a["game"], b["game"], t["table"]
        self.playing_auth = [_bearer(a["links"]["admin"]), f"Bearer {seat}", _bearer(a["links"]["spectator"])]
        self.over_auth = _bearer(b["links"]["admin"])
        self.table_auth = f"Bearer {t['token']}"
        self.tokens = [kit.token(a["links"]["admin"]), seat, kit.token(b["links"]["spectator"])]
        self.position = position("ireland", 4, 6)
        self.base = base
        self.n = 0

    def _table_entry(self, undo: bool) -> dict[str, Any]:
        """A legal entry (or an undo) at the table's current version."""
        state = httpx.get(f"{self.base}/api/tables/{self.table}", timeout=20,
                          headers={"Authorization": self.table_auth}).json()
        if undo:
            return {"count": 1, "version": state["version"]}
        legal = state["legal"]
        if legal["outcomes"]:
            return {"entry": legal["outcomes"][0]["text"], "version": state["version"]}
        hx, tiles = next(iter(legal["hexes"].items()))
        return {"entry": f"{tiles[0]}@{hx}", "version": state["version"], "seat": state["seat"]}

    def __call__(self, case: schemathesis.Case[Any]) -> None:
        self.n += 1
        path, params = case.path, case.path_parameters
        headers = case.headers if case.headers is not None else {}
        case.headers = headers
        if "game_id" in params:
            finished = path.endswith(("/analysis", "/rematch", "/game.gif"))
            params["game_id"] = self.over if finished else self.playing
            headers["authorization"] = self.over_auth if finished else self.playing_auth[self.n % 3]
        if "gid" in params:
            params["gid"] = self.table
            headers["authorization"] = self.table_auth
        if "seat" in params:
            params["seat"] = abs(int(params["seat"])) % 2
        if "board" in params:
            params["board"] = ("scotland", "ireland")[self.n % 2]
        if "lang" in params:
            params["lang"] = ("en", "de")[self.n % 2]
        if path.endswith("/stream"):
            case.query = {**(case.query or {}), "limit": 1}  # the position once: the stream ends
        if path.endswith("/analysis"):
            case.query = {**(case.query or {}), "budget": 2}  # the cheapest analysis, made once
        if path == "/api/my-games":
            case.body = {"tokens": [*self.tokens, "not-a-token"]}
        if path.startswith("/api/tables/") and path.endswith(("/entries", "/undo")) and self.n % 2:
            case.body = self._table_entry(path.endswith("/undo"))
        if path == "/api/score" and self.n % 2:
            assert isinstance(case.body, dict)
            case.body = {**case.body, "position": self.position}


def test_fuzz_with_real_links(live: str) -> None:
    """The same checks with real ids and links: the 2xx answers of every operation that can
    give one to a generated request are checked against their declared models."""
    statuses: Counter[tuple[str, int]] = Counter()
    failures = fuzz(live, prepare=Links(live), statuses=statuses)
    assert failures == [], "\n\n".join(failures)
    ok = {op for (op, status), _ in statuses.items() if 200 <= status < 300}
    must = {"GET /api/games/{game_id}", "GET /api/games/{game_id}/record", "GET /api/games/{game_id}/notify",
            "PUT /api/games/{game_id}/notify", "POST /api/my-games", "GET /api/boards/{board}",
            "GET /api/i18n/{lang}", "GET /api/variants", "POST /api/score", "POST /api/tables",
            "GET /api/tables/{gid}", "GET /api/tables/{gid}/record", "POST /api/tables/{gid}/entries",
            "POST /api/tables/{gid}/undo", "POST /api/games/{game_id}/analysis",
            "GET /api/games/{game_id}/analysis", "POST /api/games/{game_id}/rematch",
            "GET /api/games/{game_id}/rematch", "POST /api/games/{game_id}/clock",
            "POST /api/games/{game_id}/seats/{seat}/revoke", "POST /api/games", "GET /healthz", "GET /readyz",
            "GET /metrics", "GET /api/push/key"}
    assert must - ok == set(), sorted(statuses.items())


class Probe(BaseModel):
    """The planted endpoint's body."""

    n: int


def test_the_fuzzer_finds_a_planted_server_error(tmp_path: Path) -> None:
    """The check can fail: an endpoint that answers 500 for some valid bodies is reported."""
    app = create_app(kit.settings(tmp_path))

    @app.post("/api/planted")
    async def planted(body: Probe) -> dict[str, int]:
        if body.n % 2:
            raise RuntimeError("planted")
        return {"n": body.n}

    with serving(app) as base:
        failures = fuzz(base, ("/api/planted",))
    assert failures and all("planted" in f for f in failures)
    assert any("Server error" in f or "500" in f for f in failures), failures
