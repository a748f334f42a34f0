"""Server settings: one object, read from ``REBIRTH_*`` environment variables (docs/server.md)."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

from limits import parse_many
from pydantic import Field, ValidationError, field_validator
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from rebirth.engine.messages import text


class SettingError(ValueError):
    """A setting's value is refused: ``key`` is the catalog's plain words for what is wrong
    (``cli.setting.*``), so the start-up error says it without pydantic's jargon."""

    def __init__(self, key: str) -> None:
        super().__init__(text(key, "en"))
        self.key = key


SECRET = frozenset({"database_url", "redis_url", "smtp_user", "smtp_password"})
"""Settings whose value an error never repeats (a URL may carry a password)."""


def default_database_path() -> Path:
    """``$XDG_DATA_HOME/rebirth/rebirth.db`` (``~/.local/share/...``); ``./rebirth.db`` when
    there is no home directory to write to."""
    base = os.environ.get("XDG_DATA_HOME") or (
        str(Path.home() / ".local" / "share") if Path.home().is_dir() else "")
    if not base:
        return Path("rebirth.db").resolve()
    return Path(base) / "rebirth" / "rebirth.db"


def sqlite_url(path: str | Path) -> str:
    """The SQLAlchemy URL of a SQLite file."""
    return f"sqlite:///{Path(path).expanduser().resolve()}"


class Settings(BaseSettings):
    """Everything the server can be told; each field is also ``REBIRTH_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix="REBIRTH_", extra="ignore")

    database_url: str = ""
    """Any SQLAlchemy URL; empty: the SQLite file of :func:`default_database_path`."""
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    bot_delay: float = 0.6
    """Seconds a bot waits before it moves, so people can follow its moves."""
    max_message_bytes: int = 8192
    """The largest WebSocket message or request body accepted; larger ones get ``too_large``."""
    ws_compression: bool = False
    """Compress WebSocket frames (permessage-deflate). Off by default: an update frame is about
    4.5 KB of JSON, and deflating it cost about 60 us of the server's CPU per frame (two frames
    per move in a two-player game) for about 1 KB on the wire (measured, docs/hosting.md); on
    for players behind slow links."""
    web_dir: str = ""
    """The page's folder; empty: the ``rebirth/web`` folder shipped in the package."""
    offline_grace: float = 30.0
    """Seconds a seat must have been offline before the others may hand it to a bot."""
    min_clock_s: float = Field(default=30.0, gt=0)
    """The shortest bank (real-time) or turn (turn-based) a new game's clock may have, in seconds
    (tests lower it to 1)."""
    redis_url: str = ""
    """``redis://host:port/db`` makes this process one worker of several on the same database
    (docs/server.md, "Several workers"); empty: single-process mode, games only in memory here."""
    redis_prefix: str = "rebirth:"
    """The prefix of every Redis key and channel (several servers, or tests, on one Redis)."""
    heal_interval: float = 2.0
    """Seconds between two version checks of the games in memory (multi-worker mode): heals
    lost notifications and takes over the bot games of a worker that died."""
    analysis_worlds: int = Field(default=48, ge=2, le=48)
    """Sampled deals per decision of a post-game analysis (docs/analysis.md; tests: fewer)."""
    public_url: str = ""
    """The address players reach the server at (``https://rebirth.example.org``); links,
    redirects and notifications are built from it. Empty: from each request's own address."""
    forwarded_allow_ips: str = "127.0.0.1"
    """The proxies whose ``X-Forwarded-For``/``-Proto`` headers are believed (comma-separated
    addresses, ``*`` for any): uvicorn's ``--forwarded-allow-ips``."""
    smtp_host: str = ""
    """The SMTP server turn notifications are sent through; empty: no e-mail
    (server/notifications/notifier.py)."""
    smtp_port: int = Field(default=25, ge=1, le=65535)
    smtp_user: str = ""
    smtp_password: str = ""
    smtp_from: str = "rebirth@localhost"
    """The sender address of notification e-mails."""
    smtp_starttls: bool = False
    """Upgrade the SMTP connection with STARTTLS before logging in."""
    webhook_allow_private: bool = False
    """Let webhooks reach loopback, private, link-local and other internal addresses (a
    self-hosted network, the tests). Off: they are refused after name resolution (SSRF)."""
    webhook_timeout: float = 5.0
    """Seconds a webhook or SMTP delivery may take before it counts as failed (and is retried)."""
    notify_interval: float = 2.0
    """Seconds between two looks at the notification outbox (a new turn also wakes it at once)."""
    notify_retry_s: float = 5.0
    """The first retry's delay; each further retry waits twice as long."""
    notify_attempts: int = 6
    """Deliveries tried per notification before it is given up (logged)."""
    notify_grace: float = Field(default=5.0, ge=0, le=3600)
    """Seconds a turn notice of a seat with policy ``away`` waits before it is judged: a page
    that is opening (the creator's, a reload) says it is visible first (issue 25 item 6)."""
    # Web push and reminders (issue 26; server/notifications/push.py, reminders.py).
    push_contact: str = "mailto:rebirth@localhost"
    """The VAPID ``sub`` claim: how a push service reaches the server's operator (``mailto:`` or
    ``https:``)."""
    push_ttl: int = Field(default=43200, ge=0, le=2419200)
    """Seconds a push service keeps an undelivered notification (lichess: 12 h)."""
    reminders: str = "86400,14400,3600"
    """Turn clocks: seconds before a seat's deadline it is reminded, comma-separated (each once
    per turn; only those shorter than the turn; empty: no reminders)."""
    vacation_days: float = Field(default=14.0, ge=0, le=60)
    """Vacation per seat: days its turn clock may stand still while its player is away."""

    # Limits under load (server/operations/throttle.py, server/operations/caps.py,
    # server/play/lifecycle.py). Rates are moving windows in the ``limits`` notation
    # ("20/second;600/minute"); empty: no limit.
    rate_socket: str = "20/second;600/minute"
    """WebSocket messages per connection."""
    rate_socket_client: str = "60/second;3000/minute"
    """WebSocket messages per client address (all its connections)."""
    rate_create: str = "20/minute;200/hour"
    """New games (``POST /api/games``) per client address."""
    rate_score: str = "10/second;300/minute"
    """Score requests (``POST /api/score``) per client address."""
    rate_table: str = "10/second;600/minute"
    """Table-companion requests (``/api/tables...``) per client address."""
    rate_signin: str = "10/hour;30/day"
    """Sign-in links asked for (``POST /api/account/email``) per client address."""
    rate_signin_email: str = "3/hour"
    """Sign-in links sent to one e-mail address (whoever asks for them)."""
    max_games_per_client: int = Field(default=20, ge=0)
    """Unfinished games one client address may have created (0: no cap)."""
    max_bot_games: int = Field(default=10, ge=0)
    """Unfinished games without a human seat, on the whole server (0: no cap)."""
    max_sockets_per_game: int = Field(default=50, ge=0)
    """Open WebSockets on one game in this process, spectators included (0: no cap); two per
    seat are kept for the seats' own devices (spectators cannot take them)."""
    heartbeat_s: float = Field(default=1.0, gt=0)
    """Seconds between a worker's heartbeats: a game whose holder missed three is credited its
    downtime by the worker that loads it (its clock paused for exactly that)."""
    hello_timeout: float = Field(default=10.0, gt=0)
    """Seconds a socket may stay open without a ``hello`` (it holds a place while it waits)."""
    hub_idle: float = 120.0
    """Seconds a game without connections and running bots stays in memory (then it is
    dropped, and loaded again from the store on demand)."""
    bot_retry_max: float = 30.0
    """The longest pause between two tries of a bot game whose step could not be stored."""
    bot_keepalive_s: float = Field(default=5.0, gt=0)
    """Seconds between two keep-alive lines (an empty line) of a quiet bot-API stream
    (docs/bot-api.md: at least one every 10 s; tests lower it)."""
    bot_max_games: int = Field(default=8, ge=0)
    """Games a bot account may play at once (challenges beyond it: ``429``; 0: no cap)."""
    bot_games_per_day: int = Field(default=100, ge=0)
    """Challenges a bot account may accept in 24 hours (a moving window; 0: no cap)."""
    bot_events_poll_s: float = Field(default=2.0, gt=0)
    """Seconds between two looks of a bot's events stream at the database: it heals a lost Redis
    notice of an event written on another worker (this worker's own wake it at once)."""
    shutdown_grace: float = 5.0
    """Seconds ``SIGTERM`` waits for the steps in flight before the server exits."""

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, v: str) -> str:
        v = v.strip().rstrip("/")
        if not v:
            return ""
        u = urlsplit(v)
        if u.scheme not in ("http", "https") or not u.hostname or u.query or u.fragment:
            raise SettingError("cli.setting.public_url")
        return v

    @field_validator("reminders")
    @classmethod
    def _reminders(cls, v: str) -> str:
        parts = [p.strip() for p in v.split(",")] if v.strip() else []
        if not all(p.isascii() and p.isdigit() and int(p) > 0 for p in parts):
            raise SettingError("cli.setting.reminders")
        return v

    @field_validator("rate_socket", "rate_socket_client", "rate_create", "rate_score", "rate_table",
                     "rate_signin", "rate_signin_email")
    @classmethod
    def _rate(cls, v: str) -> str:
        if v.strip():
            try:
                parse_many(v)
            except ValueError:
                raise SettingError("cli.setting.rate") from None
        return v

    @field_validator("push_contact")
    @classmethod
    def _push_contact(cls, v: str) -> str:
        if not v.startswith(("mailto:", "https://")) or len(v) < 9 or not v.isprintable():
            raise SettingError("cli.setting.push_contact")
        return v

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, v: str) -> str:
        if v and (urlsplit(v).scheme not in ("redis", "rediss", "unix") or not v.isprintable()):
            raise SettingError("cli.setting.redis_url")
        return v

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, v: str) -> str:
        if v:
            try:
                make_url(v)
            except (ArgumentError, ValueError):
                raise SettingError("cli.setting.database_url") from None
        return v

    def resolved_database_url(self) -> str:
        """The database URL to use (creating the default file's folder when needed)."""
        if self.database_url:
            return self.database_url
        path = default_database_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        return sqlite_url(path)


_WORDS = {"int_parsing": "cli.setting.int", "int_from_float": "cli.setting.int",
          "float_parsing": "cli.setting.float", "bool_parsing": "cli.setting.bool",
          "finite_number": "cli.setting.float", "string_unicode": "cli.setting.text"}
_BOUNDS = {"greater_than_equal": ("cli.setting.min", "ge"), "greater_than": ("cli.setting.more", "gt"),
           "less_than_equal": ("cli.setting.max", "le"), "less_than": ("cli.setting.less", "lt")}


def problem(err: ErrorDetails, names: dict[str, str]) -> str:
    """One refused setting in plain words, named as the user gave it: ``names`` maps a field to
    its command-line flag when the flag set it; otherwise its ``REBIRTH_*`` variable."""
    field = str(err["loc"][0]) if err["loc"] else ""
    name = names.get(field) or f"REBIRTH_{field.upper()}"
    ctx = err.get("ctx") or {}
    cause = ctx.get("error")
    if isinstance(cause, SettingError):
        why = text(cause.key, "en")
    elif err["type"] in _WORDS:
        why = text(_WORDS[err["type"]], "en")
    elif err["type"] in _BOUNDS:
        key, bound = _BOUNDS[err["type"]]
        n = ctx.get(bound)
        why = text(key, "en", n=int(n) if isinstance(n, float) and n.is_integer() else n)
    else:
        why = text("cli.setting.other", "en", msg=err["msg"])
    value = "" if field in SECRET else " " + _shown(err.get("input"))
    return text("cli.setting.bad", "en", name=name, value=value, why=why)


def _shown(value: object) -> str:
    """A value as the error repeats it: quoted, on one line, not too long."""
    shown = repr(value if isinstance(value, str) else str(value))
    return shown if len(shown) <= 60 else shown[:57] + "..."


def explain(exc: ValidationError, names: dict[str, str]) -> str:
    """Every refused setting of ``exc`` on one line (see :func:`problem`)."""
    return text("cli.setting.error", "en", problems="; ".join(problem(e, names) for e in exc.errors()))
