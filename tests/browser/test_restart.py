"""A server restart in the browser (issue 15 item 6): shutting down closes the page's socket with
1012 (service restart); the page reconnects by itself to the server that comes back on the same
address and database, resyncs and plays on."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from browser.kit import LiveServer, new_game, open_page, place_by_click, state
from browser.test_play import whose_turn


def test_a_restarted_server_closes_with_1012_and_the_page_reconnects(tmp_path: Path,
                                                                     new_context: Any) -> None:
    db = tmp_path / "rebirth.db"
    srv = LiveServer(db)
    srv.start()
    try:
        res = new_game(srv, {"board": "scotland", "players": 2, "lang": "en", "seats": [
            {"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"}]})
        pages = [open_page(new_context(), s["url"]) for s in res["links"]["seats"]]
        rng = random.Random(5)
        place_by_click(whose_turn(pages), rng, until_mine=False)
        before = state(pages[0], "S.version")
        for p in pages:
            p.wait_for_function("(v) => window.rebirthState.version === v", arg=before)
            p.evaluate("window.rebirthSocket.ws.addEventListener('close', "
                       "(e) => { window.closeCode = e.code; })")
        srv.stop()
        for p in pages:
            p.wait_for_function("window.closeCode !== undefined")
            assert p.evaluate("window.closeCode") == 1012
        srv = LiveServer(db, port=srv.port)
        srv.start()
        for p in pages:
            p.wait_for_function("window.rebirthSocket.reconnects >= 1 && "
                                "document.querySelector('#conn').innerText === 'Online'", timeout=30000)
        mover = whose_turn(pages)
        place_by_click(mover, rng, until_mine=False)
        after = state(mover, "S.version")
        assert after > before
        other = pages[1 - pages.index(mover)]
        other.wait_for_function("(v) => window.rebirthState.version === v", arg=after)
        versions = state(other, "S.log.map((s) => s.version)")
        assert versions == sorted(set(versions)), "a step arrived twice"
        assert not any(p.errors for p in pages)  # type: ignore[attr-defined]
    finally:
        srv.stop()
