"""The answers of the account routes (``/api/account...``, server/api/account.py), declared as
:mod:`.answers` declares the others."""

from __future__ import annotations

from typing import Literal

from rebirth.server.api.answers import Answer


class AccountPublic(Answer):
    """An account as its owner sees it."""

    id: str
    name: str
    email: str | None


class SeatRef(Answer):
    """One seat of an account."""

    game: str
    seat: int


class MailSent(Answer):
    """``POST /api/account/email`` (202): a link is on its way if the address can get one."""

    status: Literal["sent"]


class SignedIn(Answer):
    """``POST /api/account/signin`` and the passkey sign-in: the account and the seats this
    browser's tokens attached to it."""

    account: AccountPublic
    seats: list[SeatRef]


class AccountGame(Answer):
    """One seat of the account in ``GET /api/account``."""

    game: str
    seat: int
    status: str
    """``playing`` or ``over``."""
    your_turn: bool
    board: str
    players: int
    created: float


class Rating(Answer):
    """One rating of the account per board and player count (the ratings' own answer,
    server/persistence/ratings.py ``ratings_of``): the displayed rating, openskill's mu and sigma,
    rated games, wins (ties shared) and the sum of the scores."""

    board: str
    players: int
    rating: int
    mu: float
    sigma: float
    games: int
    wins: float
    score_sum: int


class VacationLeft(Answer):
    """Vacation per account per year (issue 26 item 3)."""

    year: int
    left_s: float
    away: bool = False
    """A vacation period is under way (``POST /api/account/vacation``, or any game's)."""


class AccountPage(Answer):
    """``GET /api/account``."""

    id: str
    name: str
    email: str | None
    notify: str
    games: list[AccountGame]
    ratings: list[Rating]
    vacation: VacationLeft
    """The account's vacation left this calendar year, shared by all its games."""
    bot: bool
    """A bot account (``POST /api/account/bot``: for good)."""
    bot_token: bool
    """The bot account has a live API token (the token itself is shown once, when made)."""


class SessionInfo(Answer):
    """One live session (its ``id`` names it; it opens nothing)."""

    id: str
    created: float
    seen: float
    agent: str
    current: bool


class Sessions(Answer):
    """``GET /api/account/sessions``."""

    sessions: list[SessionInfo]


class Revoked(Answer):
    """``POST /api/account/sessions/revoke``: how many sessions ended."""

    revoked: int


class Attached(Answer):
    """``POST /api/account/seats``: the account's seats among the tokens sent."""

    seats: list[SeatRef]


class DeviceToken(Answer):
    """``POST /api/account/games/{game}/seats/{seat}/token``: a seat token for this device."""

    game: str
    seat: int
    token: str


class Deleted(Answer):
    """``DELETE /api/account``."""

    deleted: Literal[True]


class PasskeyInfo(Answer):
    """One passkey of the account."""

    id: str
    label: str
    created: float


class Passkeys(Answer):
    """``GET /api/account/passkeys``."""

    passkeys: list[PasskeyInfo]


class PasskeyOptions(Answer):
    """The WebAuthn options of a registration or sign-in ceremony (``options``: the
    ``PublicKeyCredential*Options`` JSON of the WebAuthn spec, base64url fields) and the handle
    of its server-side challenge."""

    handle: str
    options: dict[str, object]
