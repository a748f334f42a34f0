"""The answers of the puzzle routes (``/api/puzzles``, docs/puzzles.md), declared."""

from __future__ import annotations

from pydantic import Field

from rebirth.server.api.answers import Answer, Doc


class BoardFacts(Answer):
    """The public facts the board drawing paints (the game page's names)."""

    spaces: list[list[int | str | None]]
    castle_holders: list[int]
    cathedral_pieces: list[list[int]]
    tower_visits: list[list[int]]
    scores: list[int]


class PuzzleShown(Answer):
    """A puzzle as a solver sees it: never its answer. ``position`` is a Position JSON
    (docs/positions.md, what ``rebirth score`` reads); ``tile`` the seat's hand tile,
    ``missions`` its own secret cards, ``legal`` the spaces the tile may go on."""

    id: str
    position: Doc
    seat: int
    themes: list[str]
    board: str
    players: int
    tile: str | None
    missions: list[str]
    legal: list[str]
    difficulty: int
    rating: int
    board_view: BoardFacts
    date: str | None = None


class PuzzleStream(Answer):
    """``GET /api/puzzles``: puzzles of a theme (or all), easiest first, one page."""

    theme: str | None
    themes: dict[str, list[str]] = Field(description="theme id -> its rule ids")
    total: int
    offset: int
    puzzles: list[PuzzleShown]


class PuzzleRating(Answer):
    """A signed-in solver's puzzle rating after an answer (None: not signed in)."""

    rating: int
    before: int
    attempts: int
    counted: bool


class PuzzleVerdict(Answer):
    """``POST /api/puzzles/{id}/answer``: right or wrong, the best move and why."""

    correct: bool
    best: str
    explanation: str
    rating: PuzzleRating | None = None
