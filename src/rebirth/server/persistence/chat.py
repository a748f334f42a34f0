"""Storage of the chat and the rematch of a game (issue 16 items 3 and 4; tables in
:mod:`rebirth.server.persistence.store`, migration ``0005_chat``). Synchronous: call off the event loop.

The chat is numbered per game (``seq`` 1, 2, ...) so that a worker that was told "the chat of
game G is at n" reads only what it has not delivered yet. The rematch is one row keyed by the
old game: the first claim inserts it, a second (another click, another worker) fails to and
reads the winner's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError

from rebirth.server.persistence.store import (
    GameRow,
    Store,
    chat_messages,
    chat_options,
    insert_game,
    rematches,
    tokens,
)

SEQ_RETRIES = 8
"""Tries to number a message when writers on other workers race for the same seq."""


@dataclass(frozen=True)
class ChatMessage:
    """One stored chat message."""

    seq: int
    seat: int | None
    role: str
    """``player`` or ``spectator`` (shown as such next to the name)."""
    name: str
    text: str
    at: float

    def to_json(self) -> dict[str, Any]:
        """The wire and record form (``ChatEntryModel`` of engine/formats.py)."""
        return {"seq": self.seq, "seat": self.seat, "role": self.role, "name": self.name,
                "text": self.text, "at": round(self.at, 3)}


def set_in_record(store: Store, game: str, in_record: bool) -> None:
    """The creator's choice: is the chat exported with the record."""
    with store.tx() as c:
        c.execute(insert(chat_options).values(game=game, in_record=in_record))


def in_record(store: Store, game: str) -> bool:
    """Does the record of ``game`` carry its chat (False when nothing was chosen)."""
    with store.engine.connect() as c:
        v = c.execute(select(chat_options.c.in_record).where(chat_options.c.game == game)).scalar()
    return bool(v)


def add_message(store: Store, game: str, seat: int | None, role: str, name: str, text: str) -> ChatMessage:
    """Store one message as the game's next; returns it with its number."""
    for attempt in range(SEQ_RETRIES):
        now = time.time()
        try:
            with store.tx() as c:
                last = c.execute(select(func.max(chat_messages.c.seq))
                                 .where(chat_messages.c.game == game)).scalar()
                seq = int(last or 0) + 1
                c.execute(insert(chat_messages).values(game=game, seq=seq, seat=seat, role=role,
                                                       name=name, text=text, created=now))
            return ChatMessage(seq, seat, role, name, text, now)
        except IntegrityError:
            # Another worker took this number between our read and our insert: number again.
            if attempt == SEQ_RETRIES - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def messages(store: Store, game: str, after: int = 0, limit: int | None = None) -> list[ChatMessage]:
    """The messages with ``seq > after`` in order (``limit``: only the latest that many)."""
    q = select(chat_messages).where(chat_messages.c.game == game, chat_messages.c.seq > after)
    with store.engine.connect() as c:
        if limit is None:
            rows = c.execute(q.order_by(chat_messages.c.seq)).all()
        else:
            rows = list(reversed(c.execute(q.order_by(chat_messages.c.seq.desc()).limit(limit)).all()))
    return [ChatMessage(r.seq, r.seat, r.role, r.name, r.text, r.created) for r in rows]


def heads(store: Store, game_ids: list[str]) -> dict[str, tuple[int, str | None]]:
    """Per game: the last chat number and the rematch (one query each, whatever the number of
    games; the version check heals a lost notice with it)."""
    if not game_ids:
        return {}
    out: dict[str, tuple[int, str | None]] = {g: (0, None) for g in game_ids}
    with store.engine.connect() as c:
        for r in c.execute(select(chat_messages.c.game, func.max(chat_messages.c.seq).label("seq"))
                           .where(chat_messages.c.game.in_(game_ids)).group_by(chat_messages.c.game)):
            out[r.game] = (int(r.seq), None)
        for r in c.execute(select(rematches.c.game, rematches.c.new_game)
                           .where(rematches.c.game.in_(game_ids))):
            out[r.game] = (out[r.game][0], str(r.new_game))
    return out


def rematch_of(store: Store, game: str) -> str | None:
    """The id of the game's rematch (None: none yet)."""
    with store.engine.connect() as c:
        v = c.execute(select(rematches.c.new_game).where(rematches.c.game == game)).scalar()
    return None if v is None else str(v)


def create_rematch(store: Store, old: str, row: GameRow, chat_in_record: bool) -> str:
    """Store ``row`` as the rematch of ``old`` — the new game, its chat choice and the claim in
    one transaction — unless ``old`` has one already. Returns the rematch's id: ``row.id`` when
    this call won, the earlier one's otherwise (then nothing was stored)."""
    try:
        with store.tx() as c:
            if c.execute(select(rematches.c.new_game).where(rematches.c.game == old)).first() is None:
                insert_game(c, row, [])
                c.execute(insert(chat_options).values(game=row.id, in_record=chat_in_record))
                # The primary key on the old game: a concurrent second claim fails here.
                c.execute(insert(rematches).values(game=old, new_game=row.id, created=time.time()))
    except IntegrityError:
        pass
    won = rematch_of(store, old)
    if won is None:  # pragma: no cover - the insert either succeeded or lost to a stored row
        raise RuntimeError(f"game {old}: no rematch stored")
    return won


def issue_token(store: Store, game: str, role: str, seat: int | None, token_hash: str) -> None:
    """Make sure the token with ``token_hash`` opens ``game`` as ``role``/``seat``.

    A seat has one valid token: a different earlier one (from a holder of the old seat whose
    link was since replaced) is revoked. Idempotent: the same hash again changes nothing."""
    try:
        with store.tx() as c:
            have = c.execute(select(tokens.c.game, tokens.c.role, tokens.c.seat)
                             .where(tokens.c.hash == token_hash)).first()
            if have is not None:
                if (have.game, have.role, have.seat) != (game, role, seat):
                    raise ValueError("token collision")  # pragma: no cover - 256-bit HMAC
                return
            if role == "seat":
                c.execute(update(tokens).where(tokens.c.game == game, tokens.c.role == "seat",
                                               tokens.c.seat == seat).values(revoked=True))
            c.execute(insert(tokens).values(hash=token_hash, game=game, role=role, seat=seat,
                                            revoked=False))
    except IntegrityError:
        pass  # the same link asked for twice at once: the other request stored it
