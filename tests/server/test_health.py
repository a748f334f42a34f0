"""Observability (issue 15 item 5): /healthz, /readyz, Prometheus metrics, one structured log
line per request that never carries a token."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest
from sqlalchemy import text

from server import kit


def _metric(body: str, name: str, **labels: str) -> float:
    """The value of one sample of the exposition (0 when absent)."""
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    pat = re.compile(rf"^{re.escape(name)}(?:\{{(?P<labels>[^}}]*)\}})? (?P<value>\S+)$", re.M)
    for m in pat.finditer(body):
        got = ",".join(sorted((m.group("labels") or "").split(","))) if m.group("labels") else ""
        if got == want:
            return float(m.group("value"))
    return 0.0


def test_healthz_and_readyz(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        assert c.get("/healthz").json() == {"status": "ok"}
        r = c.get("/readyz")
        assert r.status_code == 200
        assert r.json() == {"status": "ready", "checks": {"database": "ok"}}
        # A database that lost a table is not ready, and says why.
        with c.app.state.registry.store.tx() as conn:  # type: ignore[attr-defined]
            conn.execute(text("DROP TABLE actions"))
        r = c.get("/readyz")
        assert r.status_code == 503
        assert r.json()["status"] == "unavailable"
        assert "actions" in r.json()["checks"]["database"]
        assert c.get("/healthz").status_code == 200  # alive all the same


def test_metrics_count_actions_connections_and_games(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, board="ireland", players=2, seats=[{"kind": "human"}, {"kind": "easy"}])
        tok = kit.claim(c, g["links"]["seats"][0]["url"])
        acts = 0
        with c.websocket_connect(f"/ws/games/{g['game']}") as ws:
            view = kit.hello(ws, tok)["view"]
            during = c.get("/metrics").text
            assert _metric(during, "rebirth_connections") == 1
            view = kit.until_turn(ws, 0, view)
            ws.send_json({"type": "act", "action": "Z99", "version": len(view["history"])})
            msg = ws.receive_json()
            while msg["type"] == "presence":
                msg = ws.receive_json()
            assert msg["type"] == "error"
            for _ in range(3):
                view = kit.until_turn(ws, 0, view)
                ws.send_json({"type": "act", "action": view["legal_actions"][0],
                              "version": len(view["history"])})
                acts += 1
                msg = ws.receive_json()
                while msg["type"] != "update":
                    msg = ws.receive_json()
                view = msg["view"]
        r = c.get("/metrics")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
        body = r.text
        assert _metric(body, "rebirth_actions_total", outcome="accepted", source="human") == acts
        assert _metric(body, "rebirth_actions_total", outcome="refused", source="human") == 1
        assert _metric(body, "rebirth_actions_total", outcome="accepted", source="bot") >= acts - 1
        assert _metric(body, "rebirth_action_seconds_count", source="human") == acts
        assert _metric(body, "rebirth_bot_think_seconds_count") >= acts - 1
        assert _metric(body, "rebirth_store_commit_seconds_count") >= 2 * acts - 1
        assert _metric(body, "rebirth_connections") == 0
        assert _metric(body, "rebirth_games_in_memory") == 1
        assert _metric(body, "rebirth_http_requests_total", method="POST", route="/api/games",
                       status="201") == 1
        # Labels are fixed words: no game id and no token in any series.
        assert g["game"] not in body and tok not in body


def test_one_json_line_per_request_and_no_token_in_logs(tmp_path: Path,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, board="scotland", players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        secret = kit.claim(c, g["links"]["seats"][0]["url"])
        c.get(f"/api/games/{g['game']}/record", headers={"Authorization": f"Bearer {secret}"})
        c.get(f"/api/games/{g['game']}?token={secret}")
        c.get("/no/such/page")
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "rebirth.access"]
    assert [ln["route"] for ln in lines] == ["/api/games", "/api/games/{game_id}/claim",
                                             "/api/games/{game_id}/record",
                                             "/api/games/{game_id}", "unmatched"]
    assert {ln["status"] for ln in lines} >= {201, 200, 404}
    keys = {"ts", "event", "method", "path", "route", "status", "ms", "client"}
    assert all(set(ln) == keys for ln in lines)
    # Everything the server logged (httpx is the test's own client, logging its requests).
    everything = "\n".join(r.getMessage() for r in caplog.records if not r.name.startswith("httpx"))
    assert secret not in everything
    # Nor an invitation code (the claim's body), nor the spectator's or admin's token.
    for tok in [s["url"].split("#i=")[1] for s in g["links"]["seats"]] + [
            kit.token(g["links"][k]) for k in ("spectator", "admin")]:
        assert tok not in everything
