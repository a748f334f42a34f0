"""The table companion page (docs/table.md): a complete recorded bot game of each board is
re-entered by tapping hexes and picking tiles, tower tokens and extra tiles as entered outcomes,
mission cards at the end; after every placement the page's scores equal the engine's at that
point of the original record (F-, T-, C-, K-, I- scoring), and the final breakdown equals
``rebirth replay`` (E-2…E-4). Undo, bad input, screenshots."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page

from browser.kit import LiveServer, open_page, save_png
from rebirth.app.match import Match
from rebirth.engine import records
from rebirth.engine.events import Event
from rebirth.engine.game import Game
from rebirth.engine.records import table_entries


def replay_json(record: dict[str, Any], tmp: Path, name: str) -> dict[str, Any]:
    path = tmp / name
    path.write_text(json.dumps(record), "utf-8")
    out = subprocess.run([sys.executable, "-c", "from rebirth.cli.main import entry; entry()",
                          "replay", "--json", str(path)], capture_output=True, text=True, check=True)
    data: dict[str, Any] = json.loads(out.stdout)
    return data


def bot_game(board: str, seed: int) -> tuple[dict[str, Any], list[list[int]]]:
    """A finished 2-player greedy game and the scores after each of its actions."""
    m = Match.start(Game.create(board, 2), ["greedy"] * 2, seed)
    m.run_bots()
    rec = m.record()
    cur = [0, 0]
    per_step: list[list[int]] = []

    def on_events(_i: int, events: list[Event]) -> None:
        for e in events:
            if is_end_scoring(e):
                break  # the table game scores the end once the cards are entered
            if e.points and e.seat is not None and 0 <= e.seat < 2:
                cur[e.seat] += e.points
        per_step.append(cur[:])

    final = records.replay(rec, on_events=on_events)
    assert final.is_terminal()
    return rec, per_step


def is_end_scoring(e: Event) -> bool:
    """The end scoring (E-2): incomplete districts, castles, missions revealed, the result."""
    return (e.kind in ("final_district", "game_end") or e.kind.endswith("_final")
            or e.key.startswith("mission.reveal"))


def version(page: Page) -> int:
    return int(page.evaluate("window.tableState.data.version"))


def enter(page: Page, entry: dict[str, Any]) -> None:
    """One table entry by tapping: a placement is a hex tap + a tile pick, anything else a button."""
    before = version(page)
    text = entry.get("action") or entry["chance"]
    if "action" in entry and "@" in text:
        label = text.split("@")[1]
        page.locator(f"#board g.space[data-label='{label}'] polygon.hex").click()
        page.locator(f"#picker button[data-entry='{text}']").click()
    else:
        page.locator(f"#prompt button[data-entry='{text}']").click()
    page.wait_for_function("(v) => window.tableState.data.version > v && document.body.dataset.busy === '0'",
                           arg=before)
    err = page.inner_text("#error")
    assert not err, f"{text}: {err}"


def shown_scores(page: Page) -> list[int]:
    return [int(x) for x in page.locator(".t-score .score").all_inner_texts()]


def set_up(page: Page, rec: dict[str, Any]) -> None:
    """The set-up form as at the table: board, 2 players, names, start player, display."""
    page.select_option("#s-board", rec["board"])
    page.select_option("#s-players", "2")
    page.fill("#s-name-0", "Ailsa")
    page.fill("#s-name-1", "Brodie")
    page.select_option("#s-colour-1", "#D55E00")
    page.select_option("#s-start", str(rec["setup"]["start_player"]))
    for cid in rec["setup"].get("display", []):
        page.locator(f"#s-card-{cid}").check()
    page.locator("#s-create").click()
    page.wait_for_url("**/table/*")
    page.wait_for_selector("body[data-ready='1']")


def play_through(page: Page, rec: dict[str, Any], per_step: list[list[int]], *,
                 at_undo: int | None = None, shots: bool = False) -> int:
    """Re-enter every action of ``rec``; after each, the page's scores are the engine's.
    Returns the number of entries made."""
    groups = table_entries(rec)
    assert len(groups) == len(rec["actions"]) + 1
    made = 0
    flat: list[dict[str, Any]] = []
    for i, group in enumerate(groups[:-1]):
        for entry in group:
            enter(page, entry)
            flat.append(entry)
            made += 1
        assert shown_scores(page) == per_step[i], f"after action #{i + 1} {group}"
        if at_undo is not None and i == at_undo:
            check_undo(page, flat[-3:])
        if shots and i == 24:
            screenshots(page, rec)
    # The end: each player's mission cards, then the final scoring (E-2…E-4).
    assert page.evaluate("document.body.dataset.phase") == "cards"
    assert "card drawn by seat" in page.inner_text("#prompt")
    for entry in groups[-1]:
        enter(page, entry)
        made += 1
    page.wait_for_selector("#end:not([hidden])")
    return made


def check_undo(page: Page, last3: list[dict[str, Any]]) -> None:
    """Undo of three entries, then re-entering them, gives the same state."""
    before = page.evaluate("JSON.stringify(window.tableState.data.view)")
    v = version(page)
    page.fill("#undo-n", "3")
    page.locator("#undo").click()
    page.wait_for_function("(v) => window.tableState.data.version === v - 3", arg=v)
    assert page.evaluate("JSON.stringify(window.tableState.data.view)") != before
    for entry in last3:
        enter(page, entry)
    assert version(page) == v
    assert page.evaluate("JSON.stringify(window.tableState.data.view)") == before


def screenshots(page: Page, rec: dict[str, Any]) -> None:
    """Desktop and phone, with the tile picker open on a legal hex."""
    label = page.evaluate("Object.keys(window.tableState.data.legal.hexes)[0]")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.locator(f"#board g.space[data-label='{label}'] polygon.hex").click()
    page.wait_for_selector("#picker:not([hidden])")
    save_png(page, "table-desktop.png")
    page.set_viewport_size({"width": 390, "height": 844})
    page.evaluate("window.scrollTo(0, 0)")
    save_png(page, "table-phone.png")
    page.locator("#picker-cancel").click()
    page.set_viewport_size({"width": 1280, "height": 900})


def check_end(page: Page, live: LiveServer, rec: dict[str, Any], tmp: Path) -> None:
    """The end screen equals `rebirth replay` of the original; the export replays the same."""
    want = replay_json(rec, tmp, "original.json")
    cats = list(want["breakdown"][0])
    for c in cats:
        row = page.locator(f"#end tr[data-cat='{c}'] td").all_inner_texts()
        assert [int(x) for x in row] == [want["breakdown"][q][c] for q in range(2)], c
    assert [int(x) for x in page.locator(".final-score").all_inner_texts()] == want["scores"]
    lead = "Winner:" if len(want["winners"]) == 1 else "Shared"
    assert page.locator(".winner").inner_text().startswith(lead)
    # The chart of the scores over the game: one line per player.
    assert page.locator("#end .chart polyline").count() == 2
    gid = page.evaluate("window.tableState.id")
    tok = page.evaluate("window.tableState.token")
    exported = httpx.get(f"{live.url}/api/tables/{gid}/record", headers={"Authorization": f"Bearer {tok}"},
                         timeout=10).json()
    assert exported["table"] is True
    got = replay_json(exported, tmp, "table.json")
    assert (got["scores"], got["breakdown"], got["winners"]) == (want["scores"], want["breakdown"],
                                                                  want["winners"])


def test_scotland_bot_game_reentered(live_server: LiveServer, new_context: Any, tmp_path: Path) -> None:
    rec, per_step = bot_game("scotland", 5)
    page = open_page(new_context(viewport={"width": 1280, "height": 900}), live_server.url + "/table?lang=en")
    set_up(page, rec)
    # Bad input first: a tap on a hex no tile may take, an illegal typed entry; nothing changes.
    assert "Ailsa" in page.inner_text("#prompt") or "Brodie" in page.inner_text("#prompt")
    legal = set(page.evaluate("Object.keys(window.tableState.data.legal.hexes)"))
    blocked = next(x for x in page.locator("#board g.space").evaluate_all(
        "els => els.map(e => e.dataset.label)") if x not in legal)
    page.locator(f"#board g.space[data-label='{blocked}'] polygon.hex").click()
    assert blocked in page.inner_text("#error")
    assert page.locator("#picker").is_hidden()
    page.fill("#typed-entry", f"S1@{blocked}")
    page.locator("#typed button").click()
    page.wait_for_function("document.getElementById('error').textContent.includes('Refused')")
    assert blocked in page.inner_text("#error")
    page.fill("#typed-entry", "hello")
    page.locator("#typed button").click()
    page.wait_for_function("document.getElementById('error').textContent.includes('hello')")
    assert version(page) == 0
    # Keyboard: arrow to an open hex, Enter opens the picker, Enter takes its first tile; undo it.
    page.locator("#board").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    page.wait_for_selector("#picker:not([hidden])")
    page.keyboard.press("Enter")
    page.wait_for_function("window.tableState.data.version === 1")
    assert page.evaluate("document.activeElement.id") == "board"
    page.locator("#undo1").click()
    page.wait_for_function("window.tableState.data.version === 0")
    # A missed tap: the picker offers the open neighbours; one tap moves the pick there.
    first = page.evaluate("Object.keys(window.tableState.data.legal.hexes)[0]")
    page.locator(f"#board g.space[data-label='{first}'] polygon.hex").click()
    near = page.locator("#picker button.near")
    assert near.count() >= 1
    other = near.first.get_attribute("data-hex")
    near.first.click()
    assert f"{other}:" in page.inner_text("#picker")
    page.locator("#picker-cancel").click()
    assert page.locator("#picker").is_hidden() and version(page) == 0
    made = play_through(page, rec, per_step, at_undo=12)
    assert version(page) == made
    check_end(page, live_server, rec, tmp_path)
    # A reload shows the same finished game (kept on the server).
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#end").is_visible()
    assert not page.errors  # type: ignore[attr-defined]


def test_ireland_bot_game_reentered(live_server: LiveServer, new_context: Any, tmp_path: Path) -> None:
    rec, per_step = bot_game("ireland", 3)
    groups = table_entries(rec)
    flat = [e for g in groups for e in g]
    # The game exercises the entered outcomes: tower tokens, an extra tile, a ×2 marker.
    assert any(e.get("chance", "").startswith("token ") for e in flat)
    assert any(e.get("chance", "").startswith("reveal ") for e in flat)
    assert any(e.get("action", "").startswith("mark ") for e in flat)
    page = open_page(new_context(viewport={"width": 1280, "height": 900}), live_server.url + "/table?lang=en")
    set_up(page, rec)
    play_through(page, rec, per_step, shots=True)
    check_end(page, live_server, rec, tmp_path)
    page.set_viewport_size({"width": 390, "height": 844})
    page.evaluate("window.scrollTo(0, 0)")
    save_png(page, "table-end.png")
    page.set_viewport_size({"width": 1280, "height": 900})
    # German: the same end screen in the other language.
    page.select_option("#lang", "de")
    page.wait_for_function("document.getElementById('status').textContent === 'Spielende'")
    assert "Endstand" in page.inner_text("#end")
    assert not page.errors  # type: ignore[attr-defined]
