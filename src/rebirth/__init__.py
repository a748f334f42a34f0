"""Rebirth: an exact rules engine, bots and tools for Reiner Knizia's tile-laying game."""

__version__ = "0.1.0"
