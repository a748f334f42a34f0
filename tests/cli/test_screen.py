"""Readable at a terminal: one screen per turn that fits 80x24 and 160x50, owners shown
without colour, unique castle abbreviations, and the texts fixed in issue 7."""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

import pytest
from rich.console import Console

from rebirth.app.match import Match
from rebirth.cli import render
from rebirth.cli.main import main
from rebirth.cli.play import Session, _layout, _submit, turn_screen
from rebirth.cli.texts import COMMANDS, Texts
from rebirth.engine.game import Game
from rebirth.engine.records import make_record

PROMPT = "Ann, place E (hex, or 'help'): "


def _screen(board: str, width: int, height: int, players: int = 3,
            colour: bool = True) -> tuple[str, Session, str]:
    """The turn screen a human sees after the bots' moves, as text."""
    game = Game.create(board, players)
    kinds = ["human"] + ["greedy"] * (players - 1)
    m = Match.start(game, kinds, 5, ["Ann", "Bob", "Cy", "Di"][:players], 0)
    con = Console(record=True, width=width, height=height, force_terminal=True,
                  color_system="truecolor" if colour else None, file=io.StringIO(),
                  highlight=False, emoji=False)
    s = Session(m, Texts("en"), con, None, 0.0, [0], random.Random(1))
    for _ in range(5):
        _submit(s, 0, sorted(m.view(0).legal_actions)[3])
        m.run_bots()
    layout = _layout(s)
    for part in turn_screen(s, 0, m.view(0), layout):
        con.print(part, no_wrap=True, overflow="ellipsis")
    con.print(PROMPT, end="")
    return con.export_text(clear=False), s, layout


@pytest.mark.parametrize("board", ["scotland", "ireland"])
@pytest.mark.parametrize(("width", "height"), [(80, 24), (160, 50), (120, 40), (140, 35), (90, 45)])
def test_turn_fits_one_screen(board: str, width: int, height: int) -> None:
    text, s, layout = _screen(board, width, height)
    lines = text.splitlines()
    assert len(lines) <= height, (layout, len(lines))
    assert max(len(x) for x in lines) <= width
    assert "Since your last turn" in text and lines[-1].startswith("Ann, place")
    # The bots' last moves are all on the screen, with their hexes.
    view = s.match.view(0)
    for q in (1, 2):
        last = [h["action"] for h in view.history if h.get("seat") == q][-1]
        assert f"{s.names[q]} places" in text and f"on {last}" in text
    # Every player's last tile is highlighted on the map (underlined).
    board_obj = s.game.board
    m = render.render_map(board_obj, view, last=set(render.last_tiles(board_obj, view)),
                          dense=layout.endswith("dense"), wide=layout.endswith("wide"))
    underlined = [sp for sp in m.spans if "underline" in str(sp.style)]
    assert len(underlined) == 3


def test_small_terminal_uses_the_dense_map() -> None:
    _, _, layout = _screen("scotland", 80, 24)
    assert layout == "stack-dense"
    _, _, layout = _screen("scotland", 160, 50)
    assert layout == "side-wide"


def test_owner_shown_in_colour_and_plain() -> None:
    for colour in (True, False):
        text, s, _ = _screen("scotland", 160, 50, colour=colour)
        view = s.match.view(0)
        for q in range(3):
            # Each placed tile names its owner's digit, as "E:2" or "S3:2".
            assert re.search(rf"\b[EFS][1-4]?:{q + 1}\b", text), (colour, q)
        held = [q for q in view.castle_holders if q >= 0]
        assert all(f"#{q + 1}" in text for q in held)


def test_castle_abbreviations_unique() -> None:
    for board in ("scotland", "ireland"):
        b = Game.create(board, 2).board
        for n in (1, 2, 3, 4):
            ab = render.abbreviations(b, n)
            if n >= 2:
                assert len({a.lower() for a in ab.values()}) == len(ab), (board, n)
    b = Game.create("scotland", 2).board
    ab2 = render.abbreviations(b, 2)
    names = [c.name["en"] for c in b.castles]
    du = {ab2[i] for i, nm in enumerate(names) if nm.split()[0] in ("Dunrobin", "Dunvegan", "Duart")}
    assert len(du) == 3
    # The dense map (80 columns) shows those unique letters for free castles.
    view = Game.create("scotland", 2).new_state(1).view(0)
    dense = render.render_map(b, view, dense=True).plain
    assert all(ab2[i] in dense for i in range(len(b.castles)))
    assert "#D" not in dense


def test_ireland_legend_lists_only_its_features() -> None:
    g = Game.create("ireland", 2)
    de = render.legend(Texts("de"), ["A", "B"], 2, g.board).plain
    assert "Hafen" not in de and "Kathedrale" not in de and "Rundturm" in de
    sc = render.legend(Texts("de"), ["A", "B"], 2, Game.create("scotland", 2).board).plain
    assert "Hafen" in sc and "Kathedrale" in sc and "Rundturm" not in sc


def test_regions_list_their_districts() -> None:
    b = Game.create("scotland", 2).board
    t = render.regions_text(b, Texts("en")).plain
    for reg in b.regions:
        assert reg.name["en"] in t
    for d in b.districts:
        labels = " ".join(b.spaces[i].label for i in d.spaces)
        assert labels in t
    assert not re.search(r"\b1 spaces", t)


def test_singular_texts() -> None:
    tx = Texts("en")
    assert tx("deck_line", n=1) == "Mission deck: 1 card"
    assert tx("game_over_partial", n=1).endswith("(1 action).")
    assert tx("deck_line", n=2) == "Mission deck: 2 cards"
    assert Texts("de")("set_aside_hidden", n=1).startswith("Beiseite: 1 verdecktes")


def test_german_command_names() -> None:
    for word, cmd in (("felder", "legal"), ("protokoll", "log"), ("gebiete", "regions"),
                      ("legende", "legend")):
        assert COMMANDS[word] == cmd
    assert "Offsh." not in Texts("de")("cat_offshore")


def _human_game(board: str, feed: str, monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO(feed))
    assert main(["play", "--board", board, "--players", "2", "--seats", "human,greedy",
                 "--names", "Ann,Bob", "--seed", "5", "--start", "1", *args]) == 0
    return ""


def test_scotland_garbage_does_not_suggest_mark(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    _human_game("scotland", "foo\nhelp\nquit\n", monkeypatch)
    out = capsys.readouterr().out
    assert "'foo' is not an action" in out
    assert "mark" not in out.lower().split("'foo'")[1].split("\n")[0]
    assert "mark I" not in out


def test_preview_sentences_not_glued(monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    game = Game.create("scotland", 2)
    m = Match.start(game, ["human", "greedy"], 5, ["Ann", "Bob"], 0)
    legal = sorted(m.view(0).legal_actions)
    _human_game("scotland", "".join(f"{a}\nn\n" for a in legal[:6]) + "quit\n", monkeypatch)
    assert ".;" not in capsys.readouterr().out


def test_maybe_asks_again(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    game = Game.create("scotland", 2)
    m = Match.start(game, ["human", "greedy"], 5, ["Ann", "Bob"], 0)
    legal = sorted(m.view(0).legal_actions)[0]
    rec = tmp_path / "r.json"
    _human_game("scotland", f"{legal}\nmaybe\ny\nquit\n", monkeypatch, "--record", str(rec))
    out = capsys.readouterr().out
    assert "Please answer y (yes) or n (no)." in out and "Not placed" not in out
    assert json.loads(rec.read_text())["actions"][0]["action"] == legal


def test_seed_not_on_the_start_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--board", "scotland", "--players", "2", "--seats", "random,random",
                 "--seed", "424242"]) == 0
    out = capsys.readouterr().out
    assert "424242" not in out and "seed" not in out.splitlines()[0].lower()


def test_ireland_secret_mission_shows_one_value() -> None:
    """I-9: a secret Ireland card scores only its first value."""
    g = Game.create("ireland", 2)
    st = g.new_state(1)
    view = st.view(0)
    card = g.cards[0]
    fake = view.__class__(**{**view.__dict__, "missions": (card.id,)})
    out = Console(record=True, width=200, file=io.StringIO())
    out.print(render.missions_panel(g, fake, ["A", "B"], Texts("en")))
    text = out.export_text()
    assert f"{card.id} ({card.values[0]} points)" in text
    assert f"{card.values[0]}/{card.values[1]} points" not in text


def test_hint_json_seat_is_one_based(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = Game.create("scotland", 3)
    state = game.new_state(2)
    for _ in range(4):
        state.apply(next(iter(state.legal_actions)))
    path = tmp_path / "part.json"
    path.write_text(json.dumps(make_record(state)))
    seat = state.current_player + 1
    assert main(["hint", str(path), "--seat", str(seat), "--iterations", "30", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["seat"] == seat and out["criterion"] == "most_visits"
    # The advice is the most visited candidate, listed first.
    assert out["candidates"][0]["action"] == out["action"]
    assert out["candidates"][0]["visits"] == max(c["visits"] for c in out["candidates"])
    assert main(["hint", str(path), "--seat", str(seat), "--iterations", "30"]) == 0
    text = capsys.readouterr().out
    assert "visited most" in text and "ranked by visits" in text
