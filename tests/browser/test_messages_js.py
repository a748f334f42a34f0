"""The page renders every event exactly as the engine's Python renderer does, in English and
German (docs/messages.md): one finished bot game per board, every public and private event."""

from __future__ import annotations

from typing import Any

import pytest

from browser.kit import LiveServer, open_page
from rebirth.app.match import Match
from rebirth.engine.game import Game
from rebirth.engine.messages import languages, render_message


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
    for lang in languages():
        got = page.evaluate("""async ([msgs, lang]) => {
            const m = await import('/static/common.js');
            await m.loadCatalogs(lang);
            return msgs.map(([k, a]) => m.render(k, a, lang, ['Ann', 'Ben', 'Cy']));
        }""", [msgs, lang])
        want = [render_message(k, a, lang, ["Ann", "Ben", "Cy"]) for k, a in msgs]
        assert got == want


def _refusals() -> list[tuple[str, dict[str, Any]]]:
    """Refusals of every kind as key + args: actions, positions, set-ups, table entries, the tiebreak."""
    from rebirth.engine import explain
    from rebirth.engine.actions import ActionError
    from rebirth.engine.game import SetupError
    from rebirth.engine.messages import UserError
    from rebirth.engine.position import Position
    from rebirth.engine.table import new_table_game

    out: list[UserError] = []
    st = Game.create("scotland", 2).new_state(3)
    occupied = next(iter(st.legal_actions))
    st.apply(occupied)
    for bad in (occupied, "mark S01", "Z99"):
        try:
            st.apply(bad)
        except ActionError as exc:
            out.append(exc)
    five = {"format": "rebirth-position", "version": 1, "board": "scotland", "players": 5, "tiles": []}
    for data in ({"format": "rebirth-position"}, five):
        try:
            Position.from_json(data)
        except UserError as exc:
            out.append(exc)
    try:
        Game.create("scotland", 3, ("no_such_variant",))
    except SetupError as exc:
        out.append(exc)
    tg = new_table_game("scotland", 3)
    try:
        tg.apply("S9@A1")
    except ActionError as exc:
        out.append(exc)
    msgs = [(e.key, e.params) for e in out]
    sco = Game.create("scotland", 3).board
    how = {"rule": "E-3", "points": 9, "tied": [0, 2], "by": "castle", "id": sco.castles[0].id,
           "literal": False}
    tb = explain.tiebreak_message(sco, how, 9, [2])
    msgs.append((tb["msg"], tb["args"]))
    return msgs


def test_js_renders_refusals_and_the_tiebreak_as_python(live_server: LiveServer, new_context: Any) -> None:
    msgs = _refusals()
    assert len({k.split(".")[0] for k, _ in msgs}) >= 3  # error., setup., tiebreak.
    page = open_page(new_context(), live_server.url + "/")
    for lang in languages():
        got = page.evaluate("""async ([msgs, lang]) => {
            const m = await import('/static/common.js');
            await m.loadCatalogs(lang);
            return msgs.map(([k, a]) => m.render(k, a, lang, ['Ann', 'Ben', 'Cy']));
        }""", [msgs, lang])
        assert got == [render_message(k, a, lang, ["Ann", "Ben", "Cy"]) for k, a in msgs]
        # A server error body with key + args is rendered the same way (UserError.to_json()).
        body = {"code": "illegal", "key": msgs[0][0], "args": msgs[0][1], "message": {"en": "x", "de": "x"}}
        said = page.evaluate(
            """async ([body, lang]) => (await import('/static/common.js')).errorText(body, lang)""",
            [body, lang])
        assert said == render_message(msgs[0][0], msgs[0][1], lang, [])
