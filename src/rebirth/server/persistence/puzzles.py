"""Puzzle ratings of accounts (issue 27 item 4; migration ``0017_puzzles``; docs/puzzles.md).
Synchronous: call off the event loop.

- ``puzzle_attempts``: an account's first answer to a puzzle (its primary key makes "first"
  hold across workers: a second answer is judged and explained but moves nothing).
- ``puzzle_ratings``: per account, the puzzle rating and the number of rated attempts.

The rating is Elo against the puzzle's own rating (:data:`K`): a right answer to a puzzle rated
above the solver gains more than one rated below.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Boolean, Column, Float, Integer, String, Table, insert, select, update
from sqlalchemy.exc import IntegrityError

from rebirth.server.persistence.store import Store, metadata

START = 1200.0
"""A new solver's puzzle rating."""
K = 32.0
"""Elo's step: the most one answer can move a rating."""

puzzle_attempts = Table(
    "puzzle_attempts", metadata,
    Column("account", String(32), primary_key=True),
    Column("puzzle", String(64), primary_key=True),
    Column("correct", Boolean, nullable=False),
    Column("before", Float, nullable=False),
    Column("after", Float, nullable=False),
    Column("at", Float, nullable=False),
)

puzzle_ratings = Table(
    "puzzle_ratings", metadata,
    Column("account", String(32), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("attempts", Integer, nullable=False),
)


def expected(rating: float, puzzle: float) -> float:
    """The chance Elo gives a solver of ``rating`` to solve a puzzle of ``puzzle``."""
    return 1.0 / (1.0 + 10 ** ((puzzle - rating) / 400.0))


def record_attempt(store: Store, account: str, puzzle: str, puzzle_rating: int,
                   correct: bool) -> dict[str, Any]:
    """Count the account's first answer to ``puzzle``; later ones change nothing. Returns
    ``{"rating", "before", "attempts", "counted"}``."""
    try:
        with store.tx() as c:
            row = c.execute(select(puzzle_ratings.c.rating, puzzle_ratings.c.attempts)
                            .where(puzzle_ratings.c.account == account)).first()
            before = float(row[0]) if row else START
            attempts = int(row[1]) if row else 0
            after = before + K * ((1.0 if correct else 0.0) - expected(before, puzzle_rating))
            c.execute(insert(puzzle_attempts).values(account=account, puzzle=puzzle,
                                                     correct=correct, before=before,
                                                     after=after, at=time.time()))
            if row is None:
                c.execute(insert(puzzle_ratings).values(account=account, rating=after, attempts=1))
            else:
                c.execute(update(puzzle_ratings).where(puzzle_ratings.c.account == account)
                          .values(rating=after, attempts=attempts + 1))
            return {"rating": round(after), "before": round(before), "attempts": attempts + 1,
                    "counted": True}
    except IntegrityError:
        pass  # answered before (on this or another worker): nothing moves
    return {**rating_of(store, account), "counted": False}


def rating_of(store: Store, account: str) -> dict[str, Any]:
    """The account's puzzle rating now (``before`` equal to it) and its rated attempts."""
    with store.engine.connect() as c:
        row = c.execute(select(puzzle_ratings.c.rating, puzzle_ratings.c.attempts)
                        .where(puzzle_ratings.c.account == account)).first()
    rating = round(float(row[0])) if row else round(START)
    return {"rating": rating, "before": rating, "attempts": int(row[1]) if row else 0}
