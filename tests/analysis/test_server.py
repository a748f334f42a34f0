"""``POST /api/games/{id}/analysis``: refused while the game runs (hidden information), then
the analysis of the finished game, cached; links of other games and bad budgets refused."""

from __future__ import annotations

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
        tok = kit.token(g["links"]["seats"][0]["url"])
        auth = {"Authorization": f"Bearer {tok}"}
        url = f"/api/games/{gid}/analysis?budget=2"
        r = c.post(url, headers=auth)
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_over"
        assert c.post(url).status_code == 401
        other = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "easy"}])
        wrong = {"Authorization": f"Bearer {kit.token(other['links']['seats'][0]['url'])}"}
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
        r = c.post(url + "&lang=de", headers=auth)
        assert r.status_code == 200, r.text
        out = r.json()
        assert out["format"] == "rebirth-analysis" and out["seats"] == [1, 2]
        assert out["worlds"] == 2 and out["lang"] == "de"
        assert {s["name"] for s in out["summaries"]} == {"Ailsa", "Easy 2"}
        assert r.headers["cache-control"] == "no-store"
        spec = {"Authorization": f"Bearer {kit.token(g['links']['spectator'])}"}
        again = c.post(url + "&lang=de", headers=spec)
        assert again.json() == out
        assert c.app.state.analyses.cache.keys() == {(gid, "de", 2)}  # type: ignore[attr-defined]
