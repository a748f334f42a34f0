"""Lobby REST: new games and their links, summaries, records, maps, catalogs, variants,
refusals with clear errors, headers, the page's files, the store's schema and settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from rebirth.server.persistence.store import SQLITE_SYNCHRONOUS, Store, hash_token
from rebirth.server.settings import Settings, default_database_path
from server import kit


def test_new_game_links_summary_and_tokens_are_stored_hashed(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        r = c.post("/api/games", json={"board": "scotland", "players": 4, "lang": "de",
                                       "seats": [{"kind": "human", "name": "Ailsa"}, {"kind": "easy"},
                                                 {"kind": "human"}, {"kind": "hard"}]})
        assert r.status_code == 201
        assert r.headers["referrer-policy"] == "no-referrer" and r.headers["cache-control"] == "no-store"
        g = r.json()
        links = g["links"]
        assert [s["kind"] for s in links["seats"]] == ["human", "easy", "human", "hard"]
        assert links["seats"][1]["url"] is None and links["table"] is None
        # Seats get invitations (issue 15 item 7), spectator and admin their token links.
        assert all(u.startswith(f"http://testserver/game/{g['game']}#i=") for u in
                   [links["seats"][0]["url"], links["seats"][2]["url"]])
        assert all(u.startswith(f"http://testserver/game/{g['game']}#t=") for u in
                   [links["spectator"], links["admin"]])
        seat_tok = kit.claim(c, links["seats"][0]["url"])
        s = c.get(f"/api/games/{g['game']}").json()
        assert s["names"] == ["Ailsa", "Easy 2", "Player 3", "Hard 4"] and s["lang"] == "de"
        assert s["status"] == "playing" and s["online"] == [False] * 4
    # Only digests are stored: no token text in the database file.
    raw = (tmp_path / "test.db").read_bytes() + (tmp_path / "test.db-wal").read_bytes() \
        if (tmp_path / "test.db-wal").exists() else (tmp_path / "test.db").read_bytes()
    invite = links["seats"][0]["url"].split("#i=")[1]
    for tok in (invite, seat_tok, kit.token(links["spectator"]), kit.token(links["admin"])):
        assert tok.encode() not in raw
        assert hash_token(tok).encode() in raw


def test_defaults_one_human_and_normal_bots(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, board="ireland", players=2)
        assert [s["kind"] for s in g["links"]["seats"]] == ["human", "normal"]


@pytest.mark.parametrize(("body", "code"), [
    ({"board": "atlantis"}, "bad_board"),
    ({"board": "../../etc/passwd"}, "bad_board"),
    ({"players": 5}, "bad_message"),
    ({"players": "three"}, "bad_message"),
    ({"players": 3, "seats": [{"kind": "human"}]}, "bad_seats"),
    ({"players": 2, "seats": [{"kind": "wizard"}, {"kind": "human"}]}, "bad_message"),
    ({"variants": ["no_such_rule"]}, "bad_game"),
    ({"board": "ireland", "variants": ["set_aside_public"]}, "bad_game"),
    ({"lang": "xx"}, "unknown_lang"),
    ({"surprise": 1}, "bad_message"),
])
def test_bad_new_game_is_refused_clearly(tmp_path: Path, body: dict[str, object], code: str) -> None:
    with kit.client(tmp_path) as c:
        r = c.post("/api/games", json=body)
        assert r.status_code == 400, r.text
        err = r.json()["error"]
        assert err["code"] == code and err["message"]["en"] and err["message"]["de"]
        assert Store(kit.settings(tmp_path).resolved_database_url()).game_ids() == []


def test_unknown_things_and_bad_tokens(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        gid = g["game"]
        for url, status, code in [
            ("/api/games/nope", 404, "unknown_game"),
            (f"/api/games/{'x' * 100}", 404, "unknown_game"),
            ("/api/boards/atlantis", 404, "unknown_board"),
            ("/api/i18n/xx", 404, "unknown_lang"),
            ("/api/nothing", 404, "not_found"),
            (f"/api/games/{gid}/record", 401, "bad_token"),
        ]:
            r = c.get(url)
            assert r.status_code == status and r.json()["error"]["code"] == code, (url, r.text)
        r = c.get(f"/api/games/{gid}/record", headers={"Authorization": "Bearer wrong"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "bad_token"
        admin = {"Authorization": f"Bearer {kit.token(g['links']['admin'])}"}
        r = c.post(f"/api/games/{gid}/seats/9/bot", headers=admin)
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_seat"
        r = c.post("/api/games", content=b"x" * 100_000, headers={"content-type": "application/json"})
        assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
        r = c.post("/api/games", content=b"{not json", headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_message"


def test_mid_game_record_is_redacted_and_complete_after_the_end(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "easy"}])
        tok = kit.claim(c, g["links"]["seats"][0]["url"])
        rec = c.get(f"/api/games/{g['game']}/record", headers={"Authorization": f"Bearer {tok}"}).json()
        assert rec["redacted_for"] == 0 and "seed" not in rec and "supplies" not in rec["setup"]
        spec = kit.token(g["links"]["spectator"])
        rec = c.get(f"/api/games/{g['game']}/record", headers={"Authorization": f"Bearer {spec}"}).json()
        assert rec["redacted_for"] is None


def test_boards_catalogs_variants(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        b = c.get("/api/boards/ireland").json()
        assert b["map"] and b["missions"] and b["tokens"]
        assert c.get("/api/boards/scotland").json()["tokens"] is None
        de = c.get("/api/i18n/de").json()
        assert de["lang"] == "de" and de["events"] and de["page"]["lobby.new"]
        v = c.get("/api/variants").json()
        names = {x["name"]: x for x in v["variants"]}
        assert names["set_aside_public"]["boards"] == ["scotland"]
        assert names["set_aside_public"]["text"]["de"]
        assert v["kinds"] == ["human", "open", "easy", "normal", "hard", "expert", "remote"]


def test_page_files_are_served_from_the_web_folder(tmp_path: Path) -> None:
    web = tmp_path / "web"
    web.mkdir(parents=True)
    (web / "index.html").write_text("<!doctype html><title>lobby</title>")
    (web / "game.html").write_text("<!doctype html><title>game</title>")
    (web / "app.js").write_text("export const x = 1;")
    with kit.client(tmp_path) as c:
        r = c.get("/")
        assert r.status_code == 200 and "lobby" in r.text and r.headers["referrer-policy"] == "no-referrer"
        assert "game" in c.get("/game/abc").text
        r = c.get("/static/app.js")
        assert r.status_code == 200 and "javascript" in r.headers["content-type"]
        assert c.get("/static/../settings.py").status_code == 404
        # The page's strings are catalogs in the one catalog folder, not page files.
        assert c.get("/api/i18n/en").json()["page"]["lobby.new"] == "New game"
    (web / "index.html").unlink()
    with kit.client(tmp_path) as c:
        r = c.get("/")
        assert r.status_code == 404 and r.json()["error"]["code"] == "no_page"


def test_store_schema_and_sqlite_settings(tmp_path: Path) -> None:
    url = kit.settings(tmp_path).resolved_database_url()
    store = Store(url)
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        level = conn.exec_driver_sql("PRAGMA synchronous").scalar()
        assert level == {"FULL": 2, "NORMAL": 1}[SQLITE_SYNCHRONOUS]
    store.close()
    insp = inspect(create_engine(url))
    uniques = insp.get_unique_constraints("actions")
    assert any(u["column_names"] == ["game", "seq"] for u in uniques)
    assert {"games", "seats", "tokens", "actions"} <= set(insp.get_table_names())
    with create_engine(url).connect() as conn:
        assert conn.execute(text("select count(*) from actions")).scalar() == 0


def test_settings_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("REBIRTH_BOT_DELAY", "0.25")
    monkeypatch.setenv("REBIRTH_PORT", "9123")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    s = Settings()
    assert s.bot_delay == 0.25 and s.port == 9123 and s.database_url == ""
    assert default_database_path() == tmp_path / "rebirth" / "rebirth.db"
    assert s.resolved_database_url().endswith("/rebirth/rebirth.db") and (tmp_path / "rebirth").is_dir()
