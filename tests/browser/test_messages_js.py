"""The page renders every event exactly as the engine's Python renderer does, in English and
German (docs/messages.md): one finished bot game per board, every public and private event."""

from __future__ import annotations

from typing import Any

import pytest

from browser.kit import LiveServer, open_page
from rebirth.engine.game import Game
from rebirth.engine.messages import render_message
from rebirth.match import Match


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_js_renderer_matches_python(board: str, live_server: LiveServer, new_context: Any) -> None:
    m = Match.start(Game.create(board, 3), ["greedy", "random", "greedy"], 11, names=["Ann", "Ben", "Cy"])
    m.run_bots()
    msgs: list[tuple[str, dict[str, Any]]] = []
    for seat in (0, 1, 2):
        for st in m.events_for(seat):
            for e in st["events"]:
                msgs.append((e["key"], e["args"]))
                if "private_key" in e:
                    msgs.append((e["private_key"], e["private_args"]))
    assert len({k for k, _ in msgs}) > 15
    page = open_page(new_context(), live_server.url + "/")
    for lang in ("en", "de"):
        got = page.evaluate("""async ([msgs, lang]) => {
            const m = await import('/static/common.js');
            await m.loadCatalogs(lang);
            return msgs.map(([k, a]) => m.render(k, a, lang, ['Ann', 'Ben', 'Cy']));
        }""", [msgs, lang])
        want = [render_message(k, a, lang, ["Ann", "Ben", "Cy"]) for k, a in msgs]
        assert got == want
