"""Bots: they see only their seat's view (never the state) and return a legal action."""

from rebirth.bots.base import Bot, BotError
from rebirth.bots.registry import BOT_KINDS, make_bot

__all__ = ["BOT_KINDS", "Bot", "BotError", "make_bot"]
