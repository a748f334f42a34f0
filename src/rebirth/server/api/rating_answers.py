"""The answers of the ratings and profile routes (server/api/ratings.py; docs/protocol.md),
declared as :mod:`.answers` declares the others."""

from __future__ import annotations

from rebirth.server.api.answers import Answer


class LeaderboardEntry(Answer):
    """One account on a leaderboard: its display name, displayed rating, rated games there."""

    name: str
    rating: int
    games: int


class Leaderboard(Answer):
    """``GET /api/ratings``: best first."""

    board: str
    players: int
    min_games: int
    ratings: list[LeaderboardEntry]


class RatingPoint(Answer):
    """The displayed rating after one rated game (``before``: just before it)."""

    game: str
    rating: int
    before: int
    place: int
    score: int
    at: float


class ProfileStats(Answer):
    """One board × player count of a profile. ``games``, ``win_share`` and ``average_score``
    count every finished game (rated or not); ``rating`` is null before the first rated game."""

    board: str
    players: int
    games: int
    win_share: float
    average_score: float
    rating: int | None
    rated_games: int
    history: list[RatingPoint]


class ProfileGame(Answer):
    """A finished game of the profile's account (``page``: the game's page, where its replay
    and analysis open for a holder of one of its links)."""

    game: str
    board: str
    players: int
    seat: int
    score: int
    place: int
    scores: list[int]
    rated: bool
    at: float
    page: str


class Profile(Answer):
    """``GET /api/players/{name}``: a public profile."""

    name: str
    bot: bool
    """A bot account (the "BOT" badge)."""
    stats: list[ProfileStats]
    recent: list[ProfileGame]


class AccountRating(Answer):
    """One entry of ``GET /api/account``'s ``ratings`` (:func:`~rebirth.server.api.ratings.ratings_of`)."""

    board: str
    players: int
    rating: int
    mu: float
    sigma: float
    games: int
    wins: float
    score_sum: int
