"""Seats belong to whoever takes them (issue 15 item 7; docs/protocol.md, "Invitations").

A seat link is an invitation: its own random code, stored only as a SHA-256 digest. The first
browser that opens it claims the seat: one conditional ``UPDATE … WHERE claimed = false``
(so two browsers racing on two workers: exactly one wins) and, in the same transaction, the
seat's token is made — shown only to that browser, which keeps it in local storage. The
creator of a game therefore holds invitations, never another seat's token; the admin's revoke
issues a new invitation and revokes the old token, never handing a token to the admin. A
hot-seat game has one invitation for its device (``role`` ``table``), claimed by the lobby of
the creating device; bots have none.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Connection, insert, select, update

from rebirth.app.match import OUTSIDE, REMOTE
from rebirth.server.persistence.store import Store, hash_token, invites, tokens


def new_code() -> str:
    """A fresh secret (an invitation code or a token): 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def invite_link(base: str, game: str, code: str) -> str:
    """The invitation link. The code is in the fragment: browsers never send it to a server
    or in a Referer; the page posts it once to claim the seat."""
    return f"{base}/game/{game}#i={code}"


def invitations(kinds: list[str], hotseat: bool, uninvited: frozenset[int] = frozenset()) -> tuple[
        dict[str, Any], list[tuple[str, str, int | None]], list[tuple[str, str, int | None]]]:
    """The secrets of a new game: ``(shown, token_rows, invite_rows)``. ``shown`` (the create
    answer's, once) holds each human or remote seat's invitation code (``seats``; a hot-seat
    game: one device invitation, ``table``, and only the remote seats') and the spectator and
    admin tokens; the rows are their hashes ``(hash, role, seat)``. No seat token exists before
    a claim. The ``uninvited`` seats get none: an open seat (taken by a signed-in player, not by a link)."""
    shown: dict[str, Any] = {"seats": {}, "table": None}
    token_rows: list[tuple[str, str, int | None]] = []
    invite_rows: list[tuple[str, str, int | None]] = []
    if hotseat:
        shown["table"] = new_code()
        invite_rows.append((hash_token(shown["table"]), "table", None))
    for i, kind in enumerate(kinds):
        # A remote seat's program has its own invitation, in a hot-seat game too.
        if i not in uninvited and (kind == REMOTE or (kind in OUTSIDE and not hotseat)):
            shown["seats"][i] = code = new_code()
            invite_rows.append((hash_token(code), "seat", i))
    for role in ("spectator", "admin"):
        shown[role] = new_code()
        token_rows.append((hash_token(shown[role]), role, None))
    return shown, token_rows, invite_rows


def insert_invites(c: Connection, game: str, rows: list[tuple[str, str, int | None]]) -> None:
    """Store new invitations ``(hash, role, seat)`` of ``game`` (inside the caller's transaction)."""
    if rows:
        now = time.time()
        c.execute(insert(invites), [{"hash": h, "game": game, "role": r, "seat": s, "claimed": False,
                                     "revoked": False, "created": now} for h, r, s in rows])


@dataclass(frozen=True)
class Claimed:
    """A won claim: what the new token grants, and the token itself (shown once)."""

    game: str
    role: str
    seat: int | None
    token: str


class ClaimRefused(Exception):
    """A claim that gets no token: ``code`` is ``bad_token`` (unknown or another game's),
    ``revoked`` (the admin re-opened the seat) or ``claimed`` (another browser took it)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def claim(store: Store, game: str, code: str) -> Claimed:
    """Claim the invitation ``code`` of ``game``: exactly one claimer ever gets its token.

    The claim is a conditional update of the invitation row; on SQLite the transaction holds
    the write lock (``BEGIN IMMEDIATE``), on PostgreSQL a concurrent claimer blocks on the
    row and then finds ``claimed`` set, so it updates nothing and is refused."""
    h = hash_token(code)
    with store.tx() as c:
        row = c.execute(select(invites).where(invites.c.hash == h)).first()
        if row is None or row.game != game:
            raise ClaimRefused("bad_token")
        if row.revoked:
            raise ClaimRefused("revoked")
        won = c.execute(update(invites).where(
            invites.c.hash == h, invites.c.claimed.is_(False), invites.c.revoked.is_(False))
            .values(claimed=True)).rowcount
        if won != 1:
            raise ClaimRefused("claimed")
        token = new_code()
        c.execute(insert(tokens).values(hash=hash_token(token), game=game, role=row.role, seat=row.seat,
                                        revoked=False))
    return Claimed(game, str(row.role), row.seat, token)


def reopen(store: Store, game: str, seat: int, hotseat: bool) -> tuple[str, str]:
    """The admin re-opens a seat: every token and invitation of it is revoked and a new
    invitation is stored; returns ``(role, code)``. In a hot-seat game the device holds the
    seats, so its token and invitation are the ones replaced."""
    role = "table" if hotseat else "seat"
    code = new_code()
    with store.tx() as c:
        inv: list[ColumnElement[bool]] = [invites.c.game == game, invites.c.role == role]
        tok: list[ColumnElement[bool]] = [tokens.c.game == game, tokens.c.role == role]
        if role == "seat":
            inv.append(invites.c.seat == seat)
            tok.append(tokens.c.seat == seat)
        c.execute(update(invites).where(*inv).values(revoked=True))
        c.execute(update(tokens).where(*tok).values(revoked=True))
        insert_invites(c, game, [(hash_token(code), role, seat if role == "seat" else None)])
    return role, code
