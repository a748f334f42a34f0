"""The account's ratings as ``GET /api/account`` shows them: read from the ratings' own table
(``ratings(account, board, players, mu, sigma, games, ...)``, made by the ratings module) when
that table is part of the schema; an empty list while it is not."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from rebirth.server.persistence.store import Store, metadata


def ratings_of(store: Store, account: str) -> list[dict[str, Any]]:
    """The account's ratings per board and player count (most games first)."""
    table = metadata.tables.get("ratings")
    if table is None:
        return []
    c_ = table.c
    with store.engine.connect() as c:
        rows = c.execute(select(c_.board, c_.players, c_.mu, c_.sigma, c_.games)
                         .where(c_.account == account).order_by(c_.games.desc())).all()
    return [{"board": str(r.board), "players": int(r.players), "mu": float(r.mu), "sigma": float(r.sigma),
             "games": int(r.games)} for r in rows]
