"""Ratings across two workers (issue 25 item 4, must show): a rated game played across both
workers on PostgreSQL updates both accounts' ratings exactly once; and of two workers rating
the same finished game at the same moment exactly one does, game after game (the insert into
``rated_games`` decides). Rules: the game is played to its end (E-1)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from sqlalchemy import func, select

from rebirth.app.ratings import MU
from rebirth.server.persistence import ratings as rs
from rebirth.server.persistence.store import Store
from server import kit, ratingskit
from server.test_ratings import TWO, count
from server.test_workers import check_log, play_two, registry
from server.workerkit import Sock, database, prefix, redis_server, worker


def test_a_rated_game_across_two_workers_updates_both_ratings_once(tmp_path: Path) -> None:
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, heal_interval=600) as a, \
                worker(tmp_path, db, r, pfx, heal_interval=600) as b:
            store = registry(a).store
            ada, bo = ratingskit.account(store, "Ada"), ratingskit.account(store, "Bo")
            g = kit.new_game(a, board="scotland", players=2, seats=TWO)
            gid = g["game"]
            ratingskit.seat(store, gid, 0, ada)
            ratingskit.seat(store, gid, 1, bo)
            ratingskit.rated(store, gid, ada)
            toks = [kit.claim(a, s["url"]) for s in g["links"]["seats"]]
            with a.websocket_connect(f"/ws/games/{gid}") as w0, b.websocket_connect(f"/ws/games/{gid}") as w1:
                socks = [Sock(w0, "a"), Sock(w1, "b")]
                socks[0].hello(toks[0])
                socks[1].hello(toks[1])
                play_two(socks)
                scores = socks[0].view["scores"]
                # Each worker committed its own player's moves, the last one included.
                assert registry(a).hubs[gid].committed == registry(b).hubs[gid].committed
            deadline = time.monotonic() + 30
            while count(store, rs.rated_games) == 0:
                assert time.monotonic() < deadline, "the game was not rated"
                time.sleep(0.05)
            # Both workers see the game over; whichever did not rate it now tries: no change.
            for w in (a, b):
                assert rs.rate_game(registry(w).store, gid) is None
            time.sleep(0.3)
            ra = a.app.state.results.rated  # type: ignore[attr-defined]
            rb = b.app.state.results.rated  # type: ignore[attr-defined]
            assert sorted(ra + rb) == [gid]
            with store.engine.connect() as c:
                rows = {row.account: row for row in c.execute(select(rs.ratings))}
                hist = c.execute(select(func.count()).select_from(rs.rating_history)).scalar_one()
            assert set(rows) == {ada, bo} and hist == 2
            assert rows[ada].games == rows[bo].games == 1
            assert rows[ada].score_sum == scores[0] and rows[bo].score_sum == scores[1]
            if scores[0] != scores[1]:
                winner, loser = (ada, bo) if scores[0] > scores[1] else (bo, ada)
                assert rows[winner].mu > MU > rows[loser].mu
        assert len(check_log(db, gid)) > 20


def test_two_workers_rating_the_same_game_at_once_rate_it_exactly_once(tmp_path: Path) -> None:
    """20 finished games; for each, both workers' stores record and rate it at the same moment
    (two threads released together): one rating per game, every account's count right."""
    with database() as db:
        stores = [Store(db), Store(db)]
        try:
            with kit.client(tmp_path, database_url=db) as c:
                store = stores[0]
                ada, bo = ratingskit.account(store, "Ada"), ratingskit.account(store, "Bo")
                won: list[str] = []
                for k in range(20):
                    gid = kit.new_game(c, board="ireland", players=2, seats=TWO)["game"]
                    ratingskit.seat(store, gid, 0, ada)
                    ratingskit.seat(store, gid, 1, bo)
                    ratingskit.rated(store, gid)
                    res = rs.FinalResult(gid, "ireland", 2, (100 + k % 3, 101), (1,) if k % 3 < 1 else (0,))
                    go = threading.Barrier(2)
                    answers: list[object] = []

                    def rate(s: Store, res: rs.FinalResult = res, go: threading.Barrier = go,
                             answers: list[object] = answers) -> None:
                        go.wait()
                        rs.record_result(s, res)
                        answers.append(rs.rate_game(s, res.game))

                    ts = [threading.Thread(target=rate, args=(s,)) for s in stores]
                    for t in ts:
                        t.start()
                    for t in ts:
                        t.join(30)
                    # Exactly one of the two rated it (the other: None, already rated or raced).
                    assert sum(1 for x in answers if x) == 1, answers
                    won.append(gid)
                with store.engine.connect() as conn:
                    games = dict(conn.execute(select(rs.ratings.c.account, rs.ratings.c.games)).all())
                assert games == {ada: 20, bo: 20}
                assert count(store, rs.rated_games) == 20 and count(store, rs.rating_history) == 40
        finally:
            for s in stores:
                s.close()
