"""``POST /api/games/{id}/analysis``: refused while the game runs (hidden information), then
the analysis of the finished game, cached; links of other games and bad budgets refused."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from starlette.testclient import WebSocketTestSession

from server import kit


def _next(ws: WebSocketTestSession, *types: str) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = ws.receive_json()
        if msg["type"] in types:
            return msg


def test_only_a_finished_game_is_analysed_and_the_result_is_cached(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, board="scotland", players=2,
                         seats=[{"kind": "human", "name": "Ailsa"}, {"kind": "easy"}])
        gid = g["game"]
        tok = kit.claim(c, g["links"]["seats"][0]["url"])
        auth = {"Authorization": f"Bearer {tok}"}
        url = f"/api/games/{gid}/analysis?budget=2"
        r = c.post(url, headers=auth)
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_over"
        assert c.post(url).status_code == 401
        other = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "easy"}])
        wrong = {"Authorization": f"Bearer {kit.claim(c, other['links']['seats'][0]['url'])}"}
        assert c.post(url, headers=wrong).status_code == 403
        assert c.post(f"/api/games/{'x' * 20}/analysis", headers=auth).status_code == 404
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            view = kit.hello(ws, tok)["view"]
            while True:
                view = kit.until_turn(ws, 0, view)
                if view["phase"] == "end":
                    break
                ws.send_json({"type": "act", "action": view["legal_actions"][0],
                              "version": len(view["history"])})
                view = _next(ws, "update")["view"]
        assert c.post(f"/api/games/{gid}/analysis?budget=1000", headers=auth).status_code == 400
        none = c.get(url + "&lang=de", headers=auth)
        assert none.status_code == 404 and none.json()["error"]["code"] == "no_analysis"
        r = c.post(url + "&lang=de", headers=auth)
        assert r.status_code in (200, 202), r.text
        # The job runs in the background; its progress is told until it is done.
        seen: list[dict[str, Any]] = []
        for _ in range(600):
            r = c.get(url + "&lang=de", headers=auth)
            body = r.json()
            if body["status"] == "done":
                break
            assert r.status_code == 202 and body["status"] == "running"
            seen.append(body)
            time.sleep(0.05)
        assert body["status"] == "done" and r.status_code == 200
        assert all(0 <= b["done"] <= b["total"] for b in seen)
        out = body["analysis"]
        assert out["format"] == "rebirth-analysis" and out["seats"] == [1, 2]
        assert out["worlds"] == 2 and out["lang"] == "de"
        assert {s["name"] for s in out["summaries"]} == {"Ailsa", "Easy 2"}
        assert r.headers["cache-control"] == "no-store"
        spec = {"Authorization": f"Bearer {kit.token(g['links']['spectator'])}"}
        again = c.post(url + "&lang=de", headers=spec)
        assert again.status_code == 200 and again.json() == {"status": "done", "analysis": out}
        assert c.app.state.analyses.cache.keys() == {(gid, "de", 2)}  # type: ignore[attr-defined]
