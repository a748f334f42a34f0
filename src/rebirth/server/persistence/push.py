"""Web push storage (migration ``0013_push``): the server's VAPID key pair, made at first start
and kept in the database so every worker signs with the same key, and each seat's push
subscription (a browser's ``PushSubscription``: its endpoint and its two public keys).

A subscription is no secret of the game, but it is the seat's own: it is never sent to anybody
else (the page only learns whether its seat has one). A player-level subscription comes with
accounts; a seat's is keyed by (game, seat).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import Column, Float, ForeignKey, Integer, String, Table, Text, delete, insert, select
from sqlalchemy.exc import IntegrityError

from rebirth.server.persistence.store import Store, metadata

push_keys = Table(
    "push_keys", metadata,
    Column("id", Integer, primary_key=True),  # always 1: the server's one key pair
    Column("private_key", Text, nullable=False),  # PEM (PKCS#8) of the P-256 key
    Column("public_key", String(128), nullable=False),  # base64url of the uncompressed point
    Column("created", Float, nullable=False),
)

push_subs = Table(
    "push_subs", metadata,
    Column("game", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("endpoint", Text, nullable=False),
    Column("p256dh", String(256), nullable=False),
    Column("auth", String(64), nullable=False),
    Column("updated", Float, nullable=False),
)


_KEY = select(push_keys.c.private_key, push_keys.c.public_key).where(push_keys.c.id == 1)


@dataclass(frozen=True)
class PushSub:
    """One seat's push subscription."""

    game: str
    seat: int
    endpoint: str
    p256dh: str
    auth: str


def key_pair(store: Store, make: object) -> tuple[str, str]:
    """The server's ``(private PEM, public base64url)``: read, or made by ``make()`` (a callable
    returning such a pair) and stored — of two workers starting at once exactly one insert wins
    and both use the winner's pair."""
    with store.engine.connect() as c:
        r = c.execute(_KEY).first()
    if r is not None:
        return str(r.private_key), str(r.public_key)
    assert callable(make)
    private, public = make()
    try:
        with store.tx() as c:
            c.execute(insert(push_keys).values(id=1, private_key=private, public_key=public,
                                              created=time.time()))
    except IntegrityError:  # another worker made it first: use theirs
        pass
    with store.engine.connect() as c:
        r = c.execute(_KEY).one()
    return str(r.private_key), str(r.public_key)


def save(store: Store, sub: PushSub) -> None:
    """Set (replace) a seat's subscription."""
    t = push_subs
    with store.tx() as c:
        c.execute(delete(t).where(t.c.game == sub.game, t.c.seat == sub.seat))
        c.execute(insert(t).values(game=sub.game, seat=sub.seat, endpoint=sub.endpoint, p256dh=sub.p256dh,
                                   auth=sub.auth, updated=time.time()))


def drop(store: Store, game: str, seat: int, endpoint: str | None = None) -> int:
    """Forget a seat's subscription (``endpoint``: only if it is still that one — an expired
    endpoint must not take a newer subscription with it). Returns the rows removed."""
    t = push_subs
    q = delete(t).where(t.c.game == game, t.c.seat == seat)
    if endpoint is not None:
        q = q.where(t.c.endpoint == endpoint)
    with store.tx() as c:
        return int(c.execute(q).rowcount)


def get(store: Store, game: str, seat: int) -> PushSub | None:
    """A seat's subscription (None: none)."""
    t = push_subs
    with store.engine.connect() as c:
        r = c.execute(select(t).where(t.c.game == game, t.c.seat == seat)).first()
    return None if r is None else PushSub(r.game, r.seat, r.endpoint, r.p256dh, r.auth)
