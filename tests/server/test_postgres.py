"""PostgreSQL as a real option and Alembic migrations (issue 15 item 2): the same schema from
the migrations on SQLite and PostgreSQL, one migrator however many workers start together,
pre-migration databases stamped, and a whole game with a restart on PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, func, select, text

from rebirth.engine.records import replay
from rebirth.server.persistence import migrate
from rebirth.server.persistence.store import Store, metadata
from rebirth.server.settings import sqlite_url
from server import kit, pgkit

BASE_TABLES = ("games", "seats", "tokens", "actions", "table_games", "table_entries")
"""The tables of revision 0001 (the schema of a database made before migrations)."""


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database of each kind."""
    if request.param == "sqlite":
        yield sqlite_url(tmp_path / "fresh.db")
        return
    with pgkit.database() as u:
        yield u


def test_the_migrations_build_exactly_the_stores_schema(url: str) -> None:
    store = Store(url)
    try:
        assert store.revision == migrate.head()
        with store.engine.connect() as c:
            diff = compare_metadata(MigrationContext.configure(c), metadata)
        # A table or column added to store.py without a migration shows up here.
        assert diff == []
        assert migrate.pending(store.engine) is None
    finally:
        store.close()


def test_workers_starting_together_migrate_once(url: str) -> None:
    stores: list[Store] = []
    errors: list[BaseException] = []

    def start() -> None:
        try:
            stores.append(Store(url))
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    try:
        assert errors == []
        assert [s.revision for s in stores] == [migrate.head()] * 4
        with stores[0].engine.connect() as c:
            assert c.execute(text("SELECT count(*) FROM alembic_version")).scalar_one() == 1
    finally:
        for s in stores:
            s.close()


def test_a_database_from_before_migrations_is_stamped_and_kept(url: str) -> None:
    engine = create_engine(url)
    # What the server did before it had migrations: revision 0001's tables (later revisions'
    # tables, such as 0002_invite's invitations, did not exist then).
    metadata.create_all(engine, tables=[metadata.tables[n] for n in BASE_TABLES])
    from rebirth.server.persistence.store import games
    with engine.begin() as c:
        c.execute(games.insert().values(
            id="old", board="scotland", players=2, variants="[]", lang="en", hotseat=False,
            seed="1", setup="{}", engine_version="0.1.0", created=0.0, status="over", version=0))
    engine.dispose()
    store = Store(url)
    try:
        assert store.revision == migrate.head()
        with store.engine.connect() as c:
            assert c.execute(select(func.count()).select_from(games)).scalar_one() == 1
    finally:
        store.close()


def test_readyz_reports_a_schema_that_is_not_migrated(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        assert c.get("/readyz").status_code == 200
        store = c.app.state.registry.store  # type: ignore[attr-defined]
        with store.tx() as conn:
            conn.execute(text("DROP TABLE alembic_version"))
        r = c.get("/readyz")
        assert r.status_code == 503
        assert "revision none" in r.json()["checks"]["database"]


def test_whole_game_with_a_restart_on_postgresql(tmp_path: Path) -> None:
    with pgkit.database() as u:
        seats = [{"kind": "human"}, {"kind": "easy"}]
        with kit.client(tmp_path, database_url=u) as c:
            g = kit.new_game(c, board="ireland", players=2, seats=seats)
            tok = kit.claim(c, g["links"]["seats"][0]["url"])
            with c.websocket_connect(f"/ws/games/{g['game']}") as ws:
                view = kit.hello(ws, tok)["view"]
                for _ in range(5):
                    view = kit.until_turn(ws, 0, view)
                    ws.send_json({"type": "act", "action": view["legal_actions"][0],
                                  "version": len(view["history"])})
                    msg = ws.receive_json()
                    while msg["type"] != "update":
                        msg = ws.receive_json()
                    view = msg["view"]
            before = len(view["history"])
        # A new server process on the same database carries the game on.
        with kit.client(tmp_path, database_url=u) as c:
            with c.websocket_connect(f"/ws/games/{g['game']}") as ws:
                view = kit.hello(ws, tok)["view"]
                assert len(view["history"]) >= before
                while True:
                    view = kit.until_turn(ws, 0, view)
                    if view["phase"] == "end":
                        break
                    ws.send_json({"type": "act", "action": view["legal_actions"][0],
                                  "version": len(view["history"])})
                    msg = ws.receive_json()
                    while msg["type"] != "update":
                        msg = ws.receive_json()
                    view = msg["view"]
            rec = c.get(f"/api/games/{g['game']}/record",
                        headers={"Authorization": f"Bearer {tok}"}).json()
        assert replay(rec).score == view["scores"]
