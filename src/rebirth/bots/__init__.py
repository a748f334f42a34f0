"""Bots: they see only their seat's view (never the state) and return a legal action."""

from rebirth.bots.base import BOT_KINDS, Bot, BotError, make_bot

__all__ = ["BOT_KINDS", "Bot", "BotError", "make_bot"]
