"""A game's chat and rematch."""
