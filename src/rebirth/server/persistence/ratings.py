"""Storage of finished games' results, ratings and their history (issue 25 items 3 and 4;
migration ``0010_ratings``; the math in :mod:`rebirth.app.ratings`, docs/ratings.md).
Synchronous: call off the event loop.

- ``game_results``: every finished game's final result (scores, winners, places), written once
  by the worker that sees the end; the per-account statistics of *all* finished games (rated
  or not) are read from it joined with the accounts' seats.
- ``rated_games``: the game is rated exactly once across workers — the insert of its row is in
  the same transaction as the rating updates, so of two workers rating the same game one
  inserts and commits, the other's insert fails (primary key) and it changes nothing.
- ``ratings``: per account × board × player count, the current (μ, σ) and the rated games'
  count, wins (a shared win counts 1/k) and score sum.
- ``rating_history``: one row per account and rated game (before and after).

The accounts' tables (``accounts``, ``account_seats``, ``game_meta``: the accounts branch) and
``forfeits`` (the seat notification branch) are read through light references by name
(:data:`ACCOUNT_TABLES`), not declared here.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Float,
    Integer,
    String,
    Table,
    Text,
    and_,
    column,
    desc,
    func,
    insert,
    inspect,
    select,
    table,
    update,
)
from sqlalchemy.exc import IntegrityError

from rebirth.app.ratings import LEVELS, MU, SIGMA, Entrant, Rating, Z, bot_rating, display, places, rate
from rebirth.server.persistence.store import Store, metadata, seats

game_results = Table(
    "game_results", metadata,
    Column("game", String(32), primary_key=True),
    Column("board", String(64), nullable=False),
    Column("players", Integer, nullable=False),
    Column("scores", Text, nullable=False),  # JSON list per seat
    Column("winners", Text, nullable=False),  # JSON list of seats
    Column("places", Text, nullable=False),  # JSON list per seat (1 = first; forfeits last)
    Column("at", Float, nullable=False, index=True),
)

rated_games = Table(
    "rated_games", metadata,
    # The primary key is the "exactly once": a second rating of the game fails to insert.
    Column("game", String(32), primary_key=True),
    Column("at", Float, nullable=False),
)

ratings = Table(
    "ratings", metadata,
    Column("account", String(32), primary_key=True),
    Column("board", String(64), primary_key=True),
    Column("players", Integer, primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Float, nullable=False),
    Column("score_sum", Integer, nullable=False),
)

rating_history = Table(
    "rating_history", metadata,
    Column("game", String(32), primary_key=True),
    Column("account", String(32), primary_key=True, index=True),
    Column("board", String(64), nullable=False),
    Column("players", Integer, nullable=False),
    Column("place", Integer, nullable=False),
    Column("score", Integer, nullable=False),
    Column("mu_before", Float, nullable=False),
    Column("sigma_before", Float, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("at", Float, nullable=False),
)

# The other branches' tables, by name (light references: nothing is declared or created).
accounts_t = table("accounts", column("id", String), column("name", String),
                   column("deleted", Boolean), column("bot", Boolean))
account_seats_t = table("account_seats", column("game", String), column("seat", Integer),
                        column("account", String))
game_meta_t = table("game_meta", column("game", String), column("creator_account", String),
                    column("rated", Boolean))
forfeits_t = table("forfeits", column("game", String), column("seat", Integer),
                   column("reason", String), column("at", Float))
ACCOUNT_TABLES = ("accounts", "account_seats", "game_meta")

RETRIES = 6
"""Tries of a rating when another game of the same account is rated at the same moment (its
first rating row inserted by the other writer)."""

MIN_GAMES = 3
"""Rated games an account needs in a board × player count to appear on its leaderboard."""


@dataclass(frozen=True)
class FinalResult:
    """What the end of a game leaves: per seat its score, the winners after the tiebreak."""

    game: str
    board: str
    players: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True)
class RatedSeat:
    """One account's rating change in a rated game."""

    account: str
    seat: int
    place: int
    before: Rating
    after: Rating


def _present(c: Connection, names: Sequence[str]) -> bool:
    # Until the accounts branch is merged these tables may be absent (its migration makes them).
    insp = inspect(c)
    return all(insp.has_table(n) for n in names)


def _forfeited(c: Connection, game: str) -> set[int]:
    if not _present(c, ("forfeits",)):
        return set()
    rows = c.execute(select(forfeits_t.c.seat).where(forfeits_t.c.game == game)).all()
    return {int(r[0]) for r in rows}


def record_result(store: Store, res: FinalResult) -> list[int] | None:
    """Store the game's final result once (a second call, on any worker, changes nothing);
    returns the places, or None if the result was stored already."""
    with store.engine.connect() as c:
        out = _forfeited(c, res.game)
    ranks = places(res.scores, res.winners, out)
    try:
        with store.tx() as c:
            c.execute(insert(game_results).values(
                game=res.game, board=res.board, players=res.players, scores=json.dumps(list(res.scores)),
                winners=json.dumps(list(res.winners)), places=json.dumps(ranks), at=time.time()))
    except IntegrityError:
        return None
    return ranks


def rate_game(store: Store, game: str) -> list[RatedSeat] | None:
    """Rate a finished game whose result is stored, exactly once across workers: None when
    it is not rated (not asked for, a human seat without an account, one account in several
    seats, a bot without a published rating) or was rated already.

    Bots keep their fixed ratings (:func:`rebirth.app.ratings.bot_rating`); every account's
    rating in the game's board × player count moves."""
    for attempt in range(RETRIES):
        try:
            with store.tx() as c:
                return _rate(c, game)
        except IntegrityError:
            with store.engine.connect() as c:
                if c.execute(select(rated_games.c.game).where(rated_games.c.game == game)).first():
                    return None  # another worker rated it
            if attempt == RETRIES - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _rate(c: Connection, game: str) -> list[RatedSeat] | None:
    if not _present(c, ACCOUNT_TABLES):
        return None
    meta = c.execute(select(game_meta_t.c.rated).where(game_meta_t.c.game == game)).first()
    res = c.execute(select(game_results).where(game_results.c.game == game)).mappings().first()
    if meta is None or not meta[0] or res is None:
        return None
    if c.execute(select(rated_games.c.game).where(rated_games.c.game == game)).first():
        return None
    board, n = str(res["board"]), int(res["players"])
    ranks = [int(x) for x in json.loads(res["places"])]
    scores = [int(x) for x in json.loads(res["scores"])]
    winners = {int(x) for x in json.loads(res["winners"])}
    kinds = {int(s): str(k) for s, k in c.execute(select(seats.c.seat, seats.c.kind)
                                                  .where(seats.c.game == game)).all()}
    owner = {int(s): str(a) for s, a in c.execute(
        select(account_seats_t.c.seat, account_seats_t.c.account)
        .where(account_seats_t.c.game == game)).all()}
    if len(set(owner.values())) != len(owner) or not owner:
        return None  # one account in two seats (hot seat) cannot be placed against itself
    entrants: list[Entrant] = []
    current = _current(c, sorted(owner.values()), board, n)
    for s in range(n):
        if s in owner:
            entrants.append(Entrant(current[owner[s]]))
        elif kinds.get(s) in LEVELS:
            try:
                entrants.append(Entrant(bot_rating(kinds[s], board, n), fixed=True))
            except KeyError:
                return None
        else:
            return None  # a human seat without an account
    # The insert decides: of two workers rating this game, only one gets past it.
    now = time.time()
    c.execute(insert(rated_games).values(game=game, at=now))
    after = rate(entrants, ranks)
    k = max(1, sum(1 for s in range(n) if s in winners and ranks[s] == 1))
    out: list[RatedSeat] = []
    for s, acc in sorted(owner.items()):
        before, new = entrants[s].rating, after[s]
        win = 1.0 / k if s in winners and ranks[s] == 1 else 0.0
        row = dict(mu=new.mu, sigma=new.sigma)
        exists = c.execute(select(ratings.c.games).where(_key(acc, board, n))).first()
        if exists is None:
            c.execute(insert(ratings).values(account=acc, board=board, players=n, games=1, wins=win,
                                             score_sum=scores[s], **row))
        else:
            c.execute(update(ratings).where(_key(acc, board, n)).values(
                games=ratings.c.games + 1, wins=ratings.c.wins + win,
                score_sum=ratings.c.score_sum + scores[s], **row))
        c.execute(insert(rating_history).values(
            game=game, account=acc, board=board, players=n, place=ranks[s], score=scores[s],
            mu_before=before.mu, sigma_before=before.sigma, mu=new.mu, sigma=new.sigma, at=now))
        out.append(RatedSeat(acc, s, ranks[s], before, new))
    return out


def _key(account: str, board: str, players: int) -> Any:
    return and_(ratings.c.account == account, ratings.c.board == board, ratings.c.players == players)


def _current(c: Connection, accounts: list[str], board: str, players: int) -> dict[str, Rating]:
    # FOR UPDATE (PostgreSQL; SQLite's BEGIN IMMEDIATE already serialises writers): another
    # game of the same account rated at the same moment waits for this one, in account order.
    q = (select(ratings.c.account, ratings.c.mu, ratings.c.sigma)
         .where(ratings.c.account.in_(accounts), ratings.c.board == board, ratings.c.players == players)
         .order_by(ratings.c.account))
    if c.dialect.name == "postgresql":
        q = q.with_for_update()
    have = {str(a): Rating(float(m), float(s)) for a, m, s in c.execute(q).all()}
    return {a: have.get(a, Rating()) for a in accounts}


# ------------------------------------------------------------------ reading


def ratings_of(store: Store, account: str) -> list[dict[str, Any]]:
    """An account's ratings, one per board × player count it has a rated game in."""
    with store.engine.connect() as c:
        rows = c.execute(select(ratings).where(ratings.c.account == account)
                         .order_by(ratings.c.board, ratings.c.players)).mappings().all()
    return [{"board": r["board"], "players": r["players"], "rating": display(r["mu"], r["sigma"]),
             "mu": round(r["mu"], 3), "sigma": round(r["sigma"], 3), "games": r["games"],
             "wins": round(r["wins"], 3), "score_sum": r["score_sum"]} for r in rows]


def leaderboard(store: Store, board: str, players: int, limit: int = 100,
                min_games: int = MIN_GAMES) -> list[dict[str, Any]]:
    """The best displayed ratings of a board × player count, best first (accounts with at least
    ``min_games`` rated games there; deleted accounts left out)."""
    with store.engine.connect() as c:
        if not _present(c, ("accounts",)):
            return []
        ordinal = ratings.c.mu - Z * ratings.c.sigma
        q = (select(accounts_t.c.name, ratings.c.mu, ratings.c.sigma, ratings.c.games)
             .join(accounts_t, accounts_t.c.id == ratings.c.account)
             .where(ratings.c.board == board, ratings.c.players == players,
                    ratings.c.games >= min_games, accounts_t.c.deleted.is_not(True))
             .order_by(desc(ordinal), accounts_t.c.name).limit(limit))
        rows = c.execute(q).all()
    return [{"name": str(n), "rating": display(m, s), "games": int(g)} for n, m, s, g in rows]


def account_by_name(store: Store, name: str) -> tuple[str, str] | None:
    """(id, display name) of the account with this display name, case-insensitively; deleted
    accounts have no profile."""
    with store.engine.connect() as c:
        if not _present(c, ("accounts",)):
            return None
        row = c.execute(select(accounts_t.c.id, accounts_t.c.name)
                        .where(func.lower(accounts_t.c.name) == name.lower(),
                               accounts_t.c.deleted.is_not(True))).first()
    return None if row is None else (str(row[0]), str(row[1]))


def statistics(store: Store, account: str) -> list[dict[str, Any]]:
    """Per board × player count, over ALL finished games of the account (rated or not): games,
    win share (a shared first place counts 1/k) and average score, from its seats and the
    stored results."""
    acc: dict[tuple[str, int], list[float]] = {}
    for r in _finished(store, account, None):
        key = (r["board"], r["players"])
        a = acc.setdefault(key, [0, 0.0, 0])
        a[0] += 1
        a[1] += r["win"]
        a[2] += r["score"]
    return [{"board": b, "players": n, "games": int(g), "win_share": round(w / g, 4),
             "average_score": round(s / g, 2)} for (b, n), (g, w, s) in sorted(acc.items())]


def recent_games(store: Store, account: str, limit: int = 20) -> list[dict[str, Any]]:
    """The account's latest finished games, newest first."""
    return _finished(store, account, limit)


def _finished(store: Store, account: str, limit: int | None) -> list[dict[str, Any]]:
    with store.engine.connect() as c:
        if not _present(c, ("account_seats",)):
            return []
        q = (select(game_results, account_seats_t.c.seat)
             .join(account_seats_t, account_seats_t.c.game == game_results.c.game)
             .where(account_seats_t.c.account == account)
             .order_by(desc(game_results.c.at), game_results.c.game))
        if limit is not None:
            q = q.limit(limit)
        rows = c.execute(q).mappings().all()
        # Which were rated: asked only for a page of recent games (the statistics do not need it).
        rated = {str(g) for (g,) in c.execute(select(rated_games.c.game).where(
            rated_games.c.game.in_([r["game"] for r in rows])))} if rows and limit is not None else set()
    out: list[dict[str, Any]] = []
    for r in rows:
        scores = json.loads(r["scores"])
        ranks = json.loads(r["places"])
        winners = json.loads(r["winners"])
        seat = int(r["seat"])
        first = [s for s in winners if ranks[s] == 1]
        out.append({"game": r["game"], "board": r["board"], "players": r["players"], "seat": seat,
                    "score": int(scores[seat]), "place": int(ranks[seat]), "scores": scores,
                    "win": 1.0 / len(first) if seat in first else 0.0,
                    "rated": r["game"] in rated, "at": round(float(r["at"]), 3)})
    return out


def history(store: Store, account: str, board: str | None = None,
            players: int | None = None, limit: int = 500) -> list[dict[str, Any]]:
    """The account's rating after each rated game, oldest first (for the chart)."""
    with store.engine.connect() as c:
        q = select(rating_history).where(rating_history.c.account == account)
        if board is not None:
            q = q.where(rating_history.c.board == board)
        if players is not None:
            q = q.where(rating_history.c.players == players)
        rows = c.execute(q.order_by(desc(rating_history.c.at)).limit(limit)).mappings().all()
    return [{"game": r["game"], "board": r["board"], "players": r["players"], "place": r["place"],
             "score": r["score"], "rating": display(r["mu"], r["sigma"]),
             "before": display(r["mu_before"], r["sigma_before"]), "at": round(float(r["at"]), 3)}
            for r in reversed(rows)]



def displayed_rating(store: Store, account: str, board: str, players: int) -> int:
    """The account's displayed rating for ``board`` × ``players`` (a newcomer's: the start
    rating's), what "Play now" pairs by (server/api/open_games.py)."""
    with store.engine.connect() as c:
        r = c.execute(select(ratings.c.mu, ratings.c.sigma).where(
            ratings.c.account == account, ratings.c.board == board, ratings.c.players == players)).first()
    return display(MU, SIGMA) if r is None else display(float(r.mu), float(r.sigma))
