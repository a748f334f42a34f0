"""Response models of the bot API (server/api/bot.py; docs/protocol.md, "Bot API")."""

from __future__ import annotations

from pydantic import BaseModel


class Moved(BaseModel):
    """``POST /api/bot/games/{id}/move``: the move is committed; the game's version after it."""

    version: int
