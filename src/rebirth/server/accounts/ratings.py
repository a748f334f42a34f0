"""The account's ratings as ``GET /api/account`` shows them: the ratings' own answer
(server/persistence/ratings.py), one place for what a rating is."""

from __future__ import annotations

from rebirth.server.persistence.ratings import ratings_of

__all__ = ["ratings_of"]
