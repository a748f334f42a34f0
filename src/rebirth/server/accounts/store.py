"""Account storage: accounts, sessions, the seats an account holds and per-game account facts.
Synchronous (SQLAlchemy Core): call it off the event loop (``asyncio.to_thread``).

Secrets are stored as SHA-256 digests only (:func:`hash_token`): a session id lives in the
browser's cookie, its digest here; whoever reads the database cannot sign in with it.
"""

from __future__ import annotations

import re
import secrets
import time
import unicodedata
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from rebirth.server.persistence.accounts import (
    account_seats,
    account_sessions,
    accounts,
    game_meta,
    passkeys,
)
from rebirth.server.persistence.store import Store, games, hash_token, seats, tokens

SESSION_COOKIE = "rebirth_session"
"""The cookie that carries an opaque session id (``HttpOnly``, ``SameSite=Lax``)."""

SESSION_SECONDS = 180 * 24 * 3600
"""How long a session lasts without use (its cookie's ``Max-Age`` too)."""

SEEN_EVERY = 300.0
"""A session's ``seen`` is written at most this often (not on every request)."""

NAME_MIN, NAME_MAX = 3, 24
"""The length of a display name, in characters."""

_NAME = re.compile(r"[^\W_](?:[\w .\-]*[^\W_])?")
"""Letters and digits of any script, inner spaces, dots, dashes and underscores."""

RESERVED = re.compile(r"(?:easy|normal|hard|expert|bot|bots|admin|rebirth|player|deleted|anonymous)"
                      r"(?:$|[\s._\-]|\d)")
"""Names that could pass for a bot seat (``Normal 2``), the server or a guest's default name."""


@dataclass(frozen=True)
class Account:
    """A signed-in account."""

    id: str
    name: str
    email: str | None
    lang: str
    notify: str
    bot: bool
    session: str
    """The digest of the session it signed in with (``""``: none, e.g. a sign-in in progress)."""

    def public(self) -> dict[str, Any]:
        """The ``account`` object of the API (``{"id", "name", "email"}``)."""
        return {"id": self.id, "name": self.name, "email": self.email}


def name_key(name: str) -> str:
    """The form two names are compared in: NFKC, case-folded."""
    return unicodedata.normalize("NFKC", name).casefold()


def name_fault(name: str) -> str | None:
    """Why ``name`` cannot be a display name (a catalog key's last part), None if it can."""
    name = unicodedata.normalize("NFKC", name)
    if not NAME_MIN <= len(name) <= NAME_MAX:
        return "length"
    if not _NAME.fullmatch(name) or "  " in name:
        return "characters"
    if RESERVED.match(name_key(name)):
        return "reserved"
    return None


def normal_email(email: str) -> str:
    """The stored form of an address: trimmed, lower-case."""
    return email.strip().lower()


def _row(r: Any, session: str = "") -> Account:
    return Account(r.id, r.name, r.email, r.lang, r.notify, bool(r.bot), session)


def account_by_email(store: Store, email: str) -> Account | None:
    """The live account of ``email`` (None: none)."""
    with store.engine.connect() as c:
        r = c.execute(select(accounts).where(accounts.c.email == normal_email(email),
                                             accounts.c.deleted.is_(False))).first()
    return None if r is None else _row(r)


def account_by_id(store: Store, account_id: str) -> Account | None:
    """The live account ``account_id`` (None: unknown or deleted)."""
    with store.engine.connect() as c:
        r = c.execute(select(accounts).where(accounts.c.id == account_id,
                                             accounts.c.deleted.is_(False))).first()
    return None if r is None else _row(r)


def _free_name(c: Connection) -> str:
    """A generated display name nobody has (``Traveller-4821``); the account may change it."""
    for _ in range(20):
        name = f"Traveller-{secrets.randbelow(10**6):06d}"
        if c.execute(select(accounts.c.id).where(accounts.c.name_key == name_key(name))).first() is None:
            return name
    return f"Traveller-{secrets.token_hex(6)}"


def account_for_email(store: Store, email: str, lang: str) -> Account:
    """The account of ``email``, made on its first sign-in (a generated unique name)."""
    email = normal_email(email)
    for _ in range(5):
        found = account_by_email(store, email)
        if found is not None:
            return found
        try:
            with store.tx() as c:
                aid = secrets.token_urlsafe(16)
                name = _free_name(c)
                c.execute(insert(accounts).values(id=aid, name=name, name_key=name_key(name), email=email,
                                                  lang=lang[:8], created=time.time(), deleted=False,
                                                  bot=False, notify="away"))
            return Account(aid, name, email, lang[:8], "away", False, "")
        except IntegrityError:
            continue  # another request made it (or took the name) first: read it again
    raise RuntimeError("could not make an account")


def rename(store: Store, account: str, name: str) -> bool:
    """Change the display name (validated by the caller); False: somebody has it."""
    name = unicodedata.normalize("NFKC", name)
    try:
        with store.tx() as c:
            c.execute(update(accounts).where(accounts.c.id == account)
                      .values(name=name, name_key=name_key(name)))
    except IntegrityError:
        return False
    return True


def delete_account(store: Store, account: str) -> None:
    """Delete an account: its e-mail address, passkeys and sessions go; its games keep the
    seats under an anonymous guest name (``Player n``) and no longer belong to anybody."""
    gone = f"deleted-{secrets.token_hex(8)}"
    with store.tx() as c:
        held = c.execute(select(account_seats.c.game, account_seats.c.seat)
                         .where(account_seats.c.account == account)).all()
        for g, s in held:
            c.execute(update(seats).where(seats.c.game == g, seats.c.seat == s)
                      .values(name=f"Player {s + 1}"))
        c.execute(delete(account_seats).where(account_seats.c.account == account))
        c.execute(delete(passkeys).where(passkeys.c.account == account))
        c.execute(update(account_sessions).where(account_sessions.c.account == account)
                  .values(revoked=True))
        c.execute(update(game_meta).where(game_meta.c.creator_account == account)
                  .values(creator_account=None))
        c.execute(update(accounts).where(accounts.c.id == account).values(
            name=gone, name_key=gone, email=None, deleted=True))


# ---------------------------------------------------------------------------- sessions


def new_session(store: Store, account: str, agent: str) -> str:
    """Start a session of ``account``; returns its id (the cookie's value, shown once)."""
    sid = secrets.token_urlsafe(32)
    now = time.time()
    with store.tx() as c:
        c.execute(insert(account_sessions).values(hash=hash_token(sid), account=account, created=now,
                                                  seen=now, agent=agent[:200], revoked=False))
    return sid


def session_account(store: Store, sid: str) -> Account | None:
    """The account of a live session id (None: unknown, revoked, expired or deleted)."""
    if not sid or len(sid) > 100:
        return None
    h = hash_token(sid)
    now = time.time()
    with store.engine.connect() as c:
        r = c.execute(select(accounts, account_sessions.c.seen).join(
            account_sessions, account_sessions.c.account == accounts.c.id).where(
            account_sessions.c.hash == h, account_sessions.c.revoked.is_(False),
            accounts.c.deleted.is_(False))).first()
    if r is None or r.seen < now - SESSION_SECONDS:
        return None
    if r.seen < now - SEEN_EVERY:
        with store.tx() as c:
            c.execute(update(account_sessions).where(account_sessions.c.hash == h).values(seen=now))
    return _row(r, h)


def sessions_of(store: Store, account: str) -> list[dict[str, Any]]:
    """The account's live sessions, newest first: ``{"id", "created", "seen", "agent"}`` —
    ``id`` is the digest's first 16 characters (it names the session; it opens nothing)."""
    with store.engine.connect() as c:
        rows = c.execute(select(account_sessions).where(
            account_sessions.c.account == account, account_sessions.c.revoked.is_(False),
            account_sessions.c.seen >= time.time() - SESSION_SECONDS)
            .order_by(account_sessions.c.created.desc())).all()
    return [{"id": r.hash[:16], "created": round(r.created, 3), "seen": round(r.seen, 3), "agent": r.agent}
            for r in rows]


def revoke_sessions(store: Store, account: str, ids: list[str] | None = None) -> int:
    """End sessions of ``account``: those named by ``ids`` (:func:`sessions_of`'s), or all."""
    with store.tx() as c:
        q = update(account_sessions).where(account_sessions.c.account == account,
                                           account_sessions.c.revoked.is_(False))
        if ids is not None:
            if not ids:
                return 0
            hashes = [r.hash for r in c.execute(select(account_sessions.c.hash).where(
                account_sessions.c.account == account)) if r.hash[:16] in ids]
            q = q.where(account_sessions.c.hash.in_(hashes))
        return int(c.execute(q.values(revoked=True)).rowcount)


# ---------------------------------------------------------------------------- seats


def own_seat(c: Connection, game: str, seat: int, account: str) -> None:
    """``seat`` of ``game`` belongs to ``account`` (in the caller's transaction; kept if set)."""
    if c.execute(select(account_seats.c.account).where(account_seats.c.game == game,
                                                       account_seats.c.seat == seat)).first() is None:
        c.execute(insert(account_seats).values(game=game, seat=seat, account=account))


def seat_in(store: Store, account: str, game: str) -> int | None:
    """The account's seat in ``game`` (None: it has none)."""
    with store.engine.connect() as c:
        r = c.execute(select(account_seats.c.seat).where(account_seats.c.game == game,
                                                         account_seats.c.account == account)
                      .order_by(account_seats.c.seat)).first()
    return None if r is None else int(r.seat)


def holds(store: Store, account: str, game: str, seat: int) -> bool:
    """Does ``seat`` of ``game`` belong to ``account``."""
    with store.engine.connect() as c:
        return c.execute(select(account_seats.c.seat).where(
            account_seats.c.game == game, account_seats.c.seat == seat,
            account_seats.c.account == account)).first() is not None


def device_token(store: Store, account: str, game: str, seat: int) -> str | None:
    """A new seat token for the account's seat on another device: a second ``tokens`` row of
    the same seat (both devices then hold it). None: the seat is not the account's, or the
    seat was re-opened by the game's admin (no live token of it is left)."""
    token = secrets.token_urlsafe(24)
    with store.tx() as c:
        mine = c.execute(select(account_seats.c.seat).where(
            account_seats.c.game == game, account_seats.c.seat == seat,
            account_seats.c.account == account)).first()
        if mine is None:
            return None
        c.execute(insert(tokens).values(hash=hash_token(token), game=game, role="seat", seat=seat,
                                        revoked=False))
    return token


def link_seats(store: Store, account: str, held: list[str]) -> list[tuple[str, int]]:
    """Attach to ``account`` every seat whose (live) seat token is in ``held`` and that belongs
    to nobody yet; returns the seats it holds now of those (ongoing and finished games)."""
    hashes = list({hash_token(t) for t in held if isinstance(t, str) and 0 < len(t) <= 64})
    if not hashes:
        return []
    out: list[tuple[str, int]] = []
    with store.tx() as c:
        rows = c.execute(select(tokens.c.game, tokens.c.seat).where(
            tokens.c.hash.in_(hashes), tokens.c.role == "seat", tokens.c.revoked.is_(False),
            tokens.c.seat.is_not(None))).all()
        for g, s in sorted({(r.game, int(r.seat)) for r in rows}):
            owner = c.execute(select(account_seats.c.account).where(
                account_seats.c.game == g, account_seats.c.seat == s)).scalar()
            if owner is None:
                c.execute(insert(account_seats).values(game=g, seat=s, account=account))
                owner = account
            if owner == account:
                out.append((g, s))
    return out


def seats_of(store: Store, account: str) -> list[tuple[str, int, str, float]]:
    """The account's seats, newest game first: ``(game, seat, status, created)``."""
    with store.engine.connect() as c:
        rows = c.execute(select(account_seats.c.game, account_seats.c.seat, games.c.status, games.c.created)
                         .join(games, games.c.id == account_seats.c.game)
                         .where(account_seats.c.account == account)
                         .order_by(games.c.created.desc(), account_seats.c.seat)).all()
    return [(r.game, int(r.seat), str(r.status), float(r.created)) for r in rows]


def set_game_meta(c: Connection, game: str, creator: str | None, rated: bool) -> None:
    """Who created ``game`` (an account or None) and whether it is rated (caller's transaction)."""
    c.execute(insert(game_meta).values(game=game, creator_account=creator, rated=rated))


def game_meta_of(store: Store, game: str) -> tuple[str | None, bool]:
    """``(creator_account, rated)`` of ``game`` (``(None, False)`` for a guest's game)."""
    with store.engine.connect() as c:
        r = c.execute(select(game_meta).where(game_meta.c.game == game)).first()
    return (None, False) if r is None else (r.creator_account, bool(r.rated))
