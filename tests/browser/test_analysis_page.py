"""Analysis in the browser (issue 17 item 2): a finished game is analysed from its end screen
(progress, then the win-chance chart and each seat's accuracy); the planted blunder is labelled
in the replay viewer with the better move drawn as a ghost tile; an unfinished game is refused."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import httpx

from analysis.kit import planted_blunder
from browser.kit import LiveServer, open_page, save_png
from rebirth import __version__
from rebirth.server.persistence.store import GameRow, Step, Store, hash_token


def _store_finished_game(db: Path, record: dict[str, Any]) -> str:
    """Put a finished game into the server's database as if it had been played there; returns
    its spectator token."""
    store = Store(f"sqlite:///{db}")
    try:
        gid = secrets.token_urlsafe(9)
        players = record["players"]
        row = GameRow(gid, record["board"], len(players), list(record.get("variants", [])), "en", False,
                      int(record["seed"]), record["setup"], __version__, "playing", 0,
                      [p["name"] for p in players], [p["kind"] for p in players])
        spectator = secrets.token_urlsafe(24)
        store.create_game(row, [(hash_token(spectator), "spectator", None)])
        steps = [Step(i + 1, None, e["chance"]) if "chance" in e else Step(i + 1, e["seat"], e["action"])
                 for i, e in enumerate(record["actions"])]
        store.append(gid, steps, len(steps), True)
        return f"{gid}#t={spectator}"
    finally:
        store.close()


def test_finished_game_analysed_from_its_end_screen(tmp_path: Path, new_context: Any) -> None:
    pl = planted_blunder()
    db = tmp_path / "g.db"
    where = _store_finished_game(db, pl.record)
    srv = LiveServer(db, analysis_worlds=12)
    srv.start()
    try:
        page = open_page(new_context(), f"{srv.url}/game/{where}")
        page.wait_for_selector("#end:not([hidden])")
        page.click("#analyse")
        page.wait_for_selector("#analysis progress, #analysis table", timeout=30000)
        page.wait_for_selector("#analysis table.analysis-table", timeout=240000)
        assert page.locator("#analysis tbody tr").count() == 3
        assert page.locator("#win-chart svg").count() == 1
        accuracy = [float(x) for x in page.locator("#analysis td.accuracy").all_inner_texts()]
        assert all(0 <= a <= 100 for a in accuracy)
        assert page.locator("#analysis .costliest li[data-label='blunder']").count() >= 1
        save_png(page, "analysis-end.png")
        # The replay viewer: step to the planted move; it is labelled, the better move a ghost.
        page.click("#replay-open")
        page.wait_for_selector("#replay:not([hidden])")
        found = False
        for _ in range(len(pl.record["actions"]) + 2):
            action = page.locator("#replay .replay-action")
            labelled = page.locator("#replay .replay-label[data-label='blunder']").count()
            if action.count() and action.inner_text().endswith(f": {pl.bad}") and labelled:
                found = True
                break
            page.keyboard.press("ArrowRight")
        assert found, "the planted blunder is not labelled in the replay"
        label = page.locator("#replay .replay-label").inner_text()
        assert pl.good in label and pl.bad in label
        assert page.locator("#replay-board .ghost").count() == 1
        save_png(page, "analysis-replay.png")
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        srv.stop()


def test_an_unfinished_game_is_not_analysed(live_server: LiveServer) -> None:
    r = httpx.post(live_server.url + "/api/games", json={
        "board": "scotland", "players": 2, "seats": [{"kind": "human"}, {"kind": "easy"}]})
    g = r.json()
    tok = g["links"]["spectator"].split("#t=")[1]
    a = httpx.post(f"{live_server.url}/api/games/{g['game']}/analysis",
                   headers={"Authorization": f"Bearer {tok}"})
    assert a.status_code == 409 and a.json()["error"]["code"] == "not_over"
