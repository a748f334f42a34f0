"""The puzzle routes (issue 27 item 4, docs/puzzles.md): the daily puzzle is the same for every
caller on a date and carries no answer; the stream by theme; an answer is judged and explained
(a wrong one, an illegal one with the rule it breaks); any body gives 200 ``correct: false`` or
a 4xx in the one error shape, never a 500 (hypothesis); a signed-in account's first answer per
puzzle moves its puzzle rating, later ones do not."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from rebirth.app import puzzles as pz
from server.accountkit import mail_client, signin
from server.kit import client

SHIPPED = pz.shipped()


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("puzzles")
    web = Path(__file__).resolve().parents[2] / "src" / "rebirth" / "web"
    with client(tmp, web_dir=str(web)) as c:
        yield c


def _error_shape(body: Any) -> None:
    assert set(body) == {"error"}
    assert isinstance(body["error"]["code"], str)
    assert {"en", "de"} <= set(body["error"]["message"])


def test_the_daily_puzzle_is_the_days_and_holds_no_answer(api: TestClient) -> None:
    r = api.get("/api/puzzles/daily", params={"date": "2026-12-03"})
    assert r.status_code == 200
    d = r.json()
    p = SHIPPED.get(d["id"])
    assert p is not None and p.id == SHIPPED.daily(__import__("datetime").date(2026, 12, 3)).id
    assert {"id", "position", "seat", "themes"} <= set(d)
    assert d["position"]["format"] == "rebirth-position" and d["position"]["secrets"] is None
    text = json.dumps(d)
    for secret in ("best", "candidates", "found_by", "source", "share", "lead"):
        assert f'"{secret}"' not in text
    # Same for a second caller; today's is one of the shipped ones.
    assert api.get("/api/puzzles/daily", params={"date": "2026-12-03"}).json() == d
    today = api.get("/api/puzzles/daily").json()
    assert SHIPPED.get(today["id"]) is not None


def test_the_position_is_one_rebirth_score_reads(api: TestClient, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from rebirth.cli.main import main

    d = api.get("/api/puzzles/daily").json()
    f = tmp_path / "pos.json"
    f.write_text(json.dumps(d["position"]), encoding="utf-8")
    assert main(["score", str(f), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["board"] == d["board"]


def test_one_puzzle_and_the_stream_by_theme(api: TestClient) -> None:
    p = SHIPPED.puzzles[3]
    got = api.get(f"/api/puzzles/{p.id}").json()
    assert got["id"] == p.id and got["legal"] == list(p.view.legal_actions)
    for theme in SHIPPED.themes:
        r = api.get("/api/puzzles", params={"theme": theme, "limit": 5, "offset": 1})
        assert r.status_code == 200
        body = r.json()
        assert body["total"] == len(SHIPPED.by_theme(theme)) and body["offset"] == 1
        assert all(theme in x["themes"] for x in body["puzzles"])
        assert "best" not in json.dumps(body["puzzles"])
    assert api.get("/api/puzzles").json()["total"] == len(SHIPPED.puzzles)
    r = api.get("/api/puzzles", params={"theme": "nonsense"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "unknown_theme"
    r = api.get("/api/puzzles/no-such-one")
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_puzzle"


def test_answers_right_wrong_and_illegal(api: TestClient) -> None:
    p = SHIPPED.puzzles[5]
    url = f"/api/puzzles/{p.id}/answer"
    right = api.post(url, json={"action": p.best}).json()
    assert right["correct"] is True and right["best"] == p.best
    wrong_move = next(a for a in p.view.legal_actions if a != p.best)
    wrong = api.post(url, json={"action": wrong_move}).json()
    assert wrong["correct"] is False and wrong["best"] == p.best
    assert wrong_move in wrong["explanation"] and p.best in wrong["explanation"]
    de = api.post(url, params={"lang": "de"}, json={"action": wrong_move}).json()
    assert de["explanation"].startswith("Nicht der beste Zug")
    illegal = api.post(url, json={"action": "Z99"}).json()
    assert illegal["correct"] is False and "Z99 cannot be played here" in illegal["explanation"]
    assert "rating" not in right  # not signed in
    r = api.post(url, params={"lang": "xx"}, json={"action": p.best})
    assert r.status_code == 400 and r.json()["error"]["code"] == "unknown_lang"


JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                       | st.text(max_size=30), lambda kids: st.lists(kids, max_size=3)
                       | st.dictionaries(st.text(max_size=8), kids, max_size=3), max_leaves=6)


@settings(max_examples=60)
@given(body=st.one_of(st.dictionaries(st.sampled_from(["action", "lang", "x"]), JSONISH, max_size=3),
                      JSONISH, st.binary(max_size=40)),
       pid=st.sampled_from([SHIPPED.puzzles[0].id, SHIPPED.puzzles[-1].id, "nope", "ä", "-"]))
def test_any_answer_body_gives_a_verdict_or_a_4xx_never_a_500(api: TestClient, body: Any,
                                                              pid: str) -> None:
    if isinstance(body, bytes):
        r = api.post(f"/api/puzzles/{pid}/answer", content=body,
                     headers={"Content-Type": "application/json"})
    else:
        r = api.post(f"/api/puzzles/{pid}/answer", json=body)
    assert r.status_code < 500, r.text
    if r.status_code == 200:
        p = SHIPPED.get(pid)
        assert p is not None
        got = r.json()
        assert got["correct"] is (isinstance(body, dict) and isinstance(body.get("action"), str)
                                  and body["action"].strip().upper() == p.best)
        assert got["explanation"]
    else:
        assert 400 <= r.status_code < 500
        _error_shape(r.json())


def test_the_page_and_the_lobby_link(api: TestClient) -> None:
    r = api.get("/puzzles")
    assert r.status_code == 200 and "puzzles.js" in r.text
    assert 'href="/puzzles"' in api.get("/").text


def test_a_signed_in_first_answer_moves_the_puzzle_rating_once(tmp_path: Path) -> None:
    p = max(SHIPPED.puzzles, key=lambda x: x.rating)
    q = min(SHIPPED.puzzles, key=lambda x: x.rating)
    with mail_client(tmp_path) as (c, smtp):
        signin(c, smtp, "solver@example.org")
        first = c.post(f"/api/puzzles/{p.id}/answer", json={"action": p.best}).json()
        assert first["rating"]["counted"] is True and first["rating"]["before"] == 1200
        assert first["rating"]["rating"] > 1200  # a right answer to a puzzle rated above: up
        again = c.post(f"/api/puzzles/{p.id}/answer", json={"action": "Z99"}).json()
        assert again["correct"] is False and again["rating"]["counted"] is False
        assert again["rating"]["rating"] == first["rating"]["rating"]
        wrong = next(a for a in q.view.legal_actions if a != q.best)
        down = c.post(f"/api/puzzles/{q.id}/answer", json={"action": wrong}).json()
        assert down["rating"]["counted"] is True
        assert down["rating"]["rating"] < first["rating"]["rating"]
        assert down["rating"]["attempts"] == 2
