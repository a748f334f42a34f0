"""Web push (issue 26 item 1): a seat's browser subscribes (its service worker's
``PushManager``), and its turn, a deadline reminder, a chat message from another player and the
game's end reach it as notifications, even with the page closed.

The push channel is one more channel of the outbox (server/persistence/outbox.py): a turn's row
is written with its step, a dispatcher claims it (exactly once across workers) and
:meth:`Pusher.deliver` sends it — encrypted for the subscription (RFC 8291, ``aes128gcm``, by
``pywebpush``), signed with the server's VAPID key (RFC 8292, ``py-vapid``; the key pair is
made at first start and kept in the database, persistence/push.py) — through the webhooks'
SSRF guard (webhook_guard.py: the endpoint is resolved once, every address checked, the
connection pinned). A push service answering 404 or 410 says the subscription expired: it is
dropped.

The payload names the game and what happened, and the seat's page to open
(``/game/<id>?seat=<n>``): never a token, nothing of the position, nothing private — the
browser that subscribed holds the seat's token itself (web/seat.js).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
import time
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid
from pydantic import BaseModel, ConfigDict, Field
from pywebpush import WebPusher

from rebirth.engine.messages import text
from rebirth.server.errors import ApiError, texts
from rebirth.server.notifications.channel import Owner, board_name
from rebirth.server.notifications.reminders import judge
from rebirth.server.notifications.webhook_guard import (
    Unresolvable,
    WebhookFailed,
    WebhookRefused,
    check_url,
    post_bytes,
    resolve,
)
from rebirth.server.persistence import push as pushstore
from rebirth.server.persistence.outbox import Job
from rebirth.server.persistence.store import GameRow, Store
from rebirth.server.settings import Settings

log = logging.getLogger("rebirth.notify")

GONE = (404, 410)
"""A push service's answers for a subscription that no longer exists (RFC 8030 §7.3)."""

KINDS = ("turn", "reminder", "chat", "end")
"""What a push tells (the outbox row's kind, a reminder's ``reminder-<s>`` counted as one)."""


class PushKeys(BaseModel):
    """A subscription's keys (base64url): the browser's P-256 public key and its auth secret."""

    model_config = ConfigDict(extra="forbid", strict=True)
    p256dh: str = Field(max_length=200)
    auth: str = Field(max_length=64)


class PushSpec(BaseModel):
    """A ``PushSubscription``'s JSON: ``{"endpoint", "keys": {"p256dh", "auth"}}``
    (``expirationTime``, which browsers add, is accepted and ignored)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    endpoint: str = Field(max_length=2000)
    keys: PushKeys
    expirationTime: float | int | None = None


def _unb64(s: str) -> bytes:
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def b64(data: bytes) -> str:
    """base64url without padding (the Push API's form)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _bad(field: str) -> ApiError:
    return ApiError(400, "bad_notify", texts("server.bad_push"), {"field": field})


async def checked_push(spec: PushSpec, settings: Settings) -> PushSpec:
    """The subscription, checked (400 ``bad_notify`` otherwise): an ``https://`` endpoint on a
    public address — ``http://`` and loopback or private addresses only under
    ``REBIRTH_WEBHOOK_ALLOW_PRIVATE``, judged by the webhooks' guard —, a valid P-256 public key
    and a 16-byte auth secret."""
    try:
        scheme, host, port, _path = check_url(spec.endpoint.strip())
    except WebhookRefused as exc:
        raise _bad("push.endpoint") from exc
    if scheme != "https" and not settings.webhook_allow_private:
        raise _bad("push.endpoint")
    if not settings.webhook_allow_private:
        try:
            await asyncio.to_thread(resolve, host, port, False)
        except WebhookRefused as exc:
            raise ApiError(400, "bad_notify", texts(exc.key, **exc.params),
                           {"field": "push.endpoint"}) from exc
        except Unresolvable as exc:
            raise ApiError(400, "bad_notify", texts("server.webhook_unresolvable", host=exc.host),
                           {"field": "push.endpoint"}) from exc
    try:
        point = _unb64(spec.keys.p256dh)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except (ValueError, binascii.Error) as exc:
        raise _bad("push.keys.p256dh") from exc
    try:
        auth = _unb64(spec.keys.auth)
    except (ValueError, binascii.Error) as exc:
        raise _bad("push.keys.auth") from exc
    if len(auth) != 16:
        raise _bad("push.keys.auth")
    return spec


def make_keys() -> tuple[str, str]:
    """A new VAPID key pair: (private key PEM, public key base64url, uncompressed point)."""
    v = Vapid()
    v.generate_keys()
    pem = v.private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()).decode()
    pub = v.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return pem, b64(pub)


def kind_of(kind: str) -> str:
    """The text a row's kind is told with (``reminder-3600`` is a reminder)."""
    return kind.split("-", 1)[0]


def seat_path(game: str, seat: int) -> str:
    """The page a notification opens: the game and the seat, no secret (the browser that
    subscribed holds the token)."""
    return f"/game/{game}?seat={seat}"


def payload(job: Job, row: GameRow, board: dict[str, str], sender: str = "") -> dict[str, Any]:
    """What a push says (public: the game, the seat's own name, what happened, the page; for a
    chat message who wrote it, never the text)."""
    kind = kind_of(job.kind)
    args: dict[str, Any] = {"name": row.names[job.seat], "board": board, "from": sender}
    if kind == "reminder":
        s = int(job.kind.split("-", 1)[1]) if "-" in job.kind else 3600
        args["hours"] = max(1, round(s / 3600))
    return {"title": text(f"push.{kind}.title", row.lang, **args),
            "body": text(f"push.{kind}.body", row.lang, **args),
            "kind": kind, "game": job.game, "seat": job.seat,
            "url": seat_path(job.game, job.seat),
            # One notification per game on the device: a newer one replaces the older (lichess's stacking).
            "tag": f"rebirth-{job.game}"}


async def mark(notifier: Owner, job: Job, done: str, error: str | None = None) -> None:
    """Mark a claimed row ``done`` (a failure to is logged: its lease runs out, it is tried again)."""
    try:
        await asyncio.to_thread(notifier.outbox.finish, job, done, error)
    except Exception:
        log.exception("game %s: push %d could not be marked %s", job.game, job.id, done)


class Pusher:
    """The push channel of one worker's notifier."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._keys: tuple[str, str] | None = None
        self.sent = 0
        """Pushes that a push service accepted (tests)."""
        self.dropped = 0
        """Subscriptions dropped because their push service said they are gone (tests)."""
        self._ended: set[str] = set()
        """Games whose end this worker enqueued (no second round trip per load)."""

    def keys(self) -> tuple[str, str]:
        """The server's VAPID ``(private PEM, public base64url)``, made at first use (synchronous)."""
        if self._keys is None:
            self._keys = pushstore.key_pair(self.store, make_keys)
        return self._keys

    async def public_key(self) -> str:
        """The applicationServerKey a browser subscribes with."""
        return (await asyncio.to_thread(self.keys))[1]

    def request(self, sub: pushstore.PushSub, data: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
        """The encrypted body and the headers of one push (synchronous)."""
        info = {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}
        body = WebPusher(info).encode(json.dumps(data).encode(), "aes128gcm")["body"]
        private = self.keys()[0]
        u = urlsplit(sub.endpoint)
        claims = {"aud": f"{u.scheme}://{u.netloc}", "exp": int(time.time()) + 12 * 3600,
                  "sub": self.settings.push_contact}
        auth = Vapid.from_pem(private.encode()).sign(claims)["Authorization"]
        return bytes(body), {"Content-Encoding": "aes128gcm", "Content-Type": "application/octet-stream",
                             "TTL": str(self.settings.push_ttl), "Urgency": "high", "Authorization": auth}

    async def ended(self, notifier: Owner, game: str, version: int, humans: list[int]) -> None:
        """The game ended at ``version``: each human seat with a subscription is told (the
        outbox's key keeps it to one per seat, whichever worker or reload enqueues it)."""
        if game in self._ended:
            return
        self._ended.add(game)
        for seat in humans:
            await self._enqueue(notifier, game, version, seat, "end")

    async def chatted(self, notifier: Owner, game: str, sender: int, seq: int) -> None:
        """A player's chat message ``seq``: every other human seat with a subscription is told
        (who wrote, never what: the text stays in the game)."""
        row = await asyncio.to_thread(self.store.game, game)
        if row is None:
            return
        for seat, kind in enumerate(row.kinds):
            if seat != sender and kind == "human":
                await self._enqueue(notifier, game, seq, seat, "chat")

    async def _enqueue(self, notifier: Owner, game: str, version: int, seat: int, kind: str) -> None:
        try:
            made = await asyncio.to_thread(notifier.outbox.enqueue, game, version, seat, kind, ("push",))
        except Exception:  # the database is away: this one notice is lost, the game goes on
            log.exception("game %s: the %s push of seat %d could not be enqueued", game, kind, seat)
            return
        if made:
            notifier.wake()

    def _send(self, sub: pushstore.PushSub, data: dict[str, Any]) -> int:
        body, headers = self.request(sub, data)
        return post_bytes(sub.endpoint, body, headers, allow_private=self.settings.webhook_allow_private,
                          timeout=self.settings.webhook_timeout).status

    async def deliver(self, notifier: Owner, job: Job, row: GameRow | None) -> None:
        """Send one claimed push row and mark it (``sent``; ``dropped`` when there is nothing to
        send or the subscription is gone; retried with the notifier's backoff otherwise)."""
        try:
            sub = await asyncio.to_thread(pushstore.get, self.store, job.game, job.seat)
            if sub is None or row is None or await self.stale(notifier, job, row):
                await asyncio.to_thread(notifier.outbox.finish, job, "dropped")
                return
            later = await judge(notifier, job)
            if later == "drop":
                await asyncio.to_thread(notifier.outbox.finish, job, "dropped")
                return
            if not isinstance(later, str):  # the deadline moved (a vacation, time added)
                await asyncio.to_thread(notifier.outbox.postpone, job, later)
                return
            sender = await self._sender(job, row) if kind_of(job.kind) == "chat" else ""
            data = payload(job, row, board_name(row.board), sender)
            loop = asyncio.get_running_loop()
            status = await loop.run_in_executor(notifier.pool, self._send, sub, data)
        except WebhookRefused as exc:
            log.warning("game %s seat %d: push endpoint refused, not retried: %s", job.game, job.seat, exc)
            await mark(notifier, job, "failed", str(exc))
            return
        except Exception as exc:
            await notifier.failed(job, exc)
            return
        if status in GONE:
            # Expired or unsubscribed: forget it (only that endpoint: a newer one stays).
            await asyncio.to_thread(pushstore.drop, self.store, job.game, job.seat, sub.endpoint)
            self.dropped += 1
            log.info("game %s seat %d: push subscription gone (%d), dropped", job.game, job.seat, status)
            await mark(notifier, job, "dropped", f"push service answered {status}")
            return
        if not 200 <= status < 300:
            await notifier.failed(job, WebhookFailed(f"push service answered {status}"))
            return
        self.sent += 1
        notifier.delivered += 1
        log.info("game %s seat %d: push (%s, version %d) delivered", job.game, job.seat, job.kind,
                 job.version)
        await mark(notifier, job, "sent")

    async def _sender(self, job: Job, row: GameRow) -> str:
        """The name of the player who wrote chat message ``job.version``."""
        from rebirth.server.persistence import chat as chatstore

        msgs = await asyncio.to_thread(chatstore.messages, self.store, job.game, job.version - 1, 1)
        seat = msgs[0].seat if msgs else None
        return row.names[seat] if seat is not None and 0 <= seat < len(row.names) else ""

    async def stale(self, notifier: Owner, job: Job, row: GameRow) -> bool:
        """Nothing to say any more: a turn or a reminder whose turn is over (the notifier's
        judgement); a chat message or an end is never stale."""
        kind = kind_of(job.kind)
        if kind in ("chat", "end"):
            return row.kinds[job.seat] != "human"
        return await notifier.stale(job, row)
