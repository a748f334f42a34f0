"""Turn notifications: when it becomes a seat's turn, that seat's player is told through the
channels they chose — a webhook (JSON, Discord- and Slack-compatible) and e-mail (SMTP). The
page's own signals (tab title, favicon badge, sound, the browser's Notification API) are
web/notify.js's.

Order: a step is committed first; then the writer enqueues the notification of the seat now to
move in the durable outbox (server/persistence/outbox.py; its unique key makes every enqueue idempotent,
so a restarted server that re-checks whose turn it is adds nothing twice). A dispatcher per
worker claims due rows and delivers them in its own threads, off the path of every move: a
failing channel is retried with exponential backoff and logged, and never delays a step.

A notification holds the game's board, the seat's own name and the seat's own link — nothing
of the position, no other seat's token (tests/server/test_notify.py checks every byte sent).

The entry point for other senders (a deadline reminder): :meth:`Notifier.enqueue`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import smtplib
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from rebirth.app.match import HUMAN, Match
from rebirth.engine.messages import text
from rebirth.server.authority.live import LiveGame
from rebirth.server.errors import ApiError, texts
from rebirth.server.notifications.channel import board_name
from rebirth.server.notifications.push import Pusher, PushSpec, kind_of
from rebirth.server.notifications.reminders import judge, reminder_times
from rebirth.server.notifications.webhook_guard import (
    Unresolvable,
    WebhookRefused,
    check_url,
    post_json,
    resolve,
)
from rebirth.server.persistence import seatnotify as prefs
from rebirth.server.persistence.outbox import Job, Outbox
from rebirth.server.persistence.store import GameRow, Store, TurnNotice
from rebirth.server.settings import Settings

if TYPE_CHECKING:
    from rebirth.server.play.registry import Registry
    from rebirth.server.play.session import Session as Hub

log = logging.getLogger("rebirth.notify")

EMAIL_RE = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@"
                      r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+")
"""An e-mail address as the lobby accepts it (a plain ``local@domain``: no display names, no
quoted parts, nothing a mail header could be injected through)."""

DELIVERY_THREADS = 8
"""Threads deliveries run in: their own, so a stuck webhook never takes a thread a move's
database commit needs (those run in the loop's default executor). Also the most deliveries in
flight: a dispatcher claims only what it can start at once, so no claimed row waits."""


class NotifySpec(BaseModel):
    """A seat's channels: ``{"webhook": URL, "email": ADDRESS}``, each optional (null: none)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    webhook: str | None = Field(default=None, max_length=2000)
    email: str | None = Field(default=None, max_length=254)
    push: PushSpec | None = None
    """A browser's ``PushSubscription`` (``PUT /api/games/{id}/notify`` only; absent: kept as
    it is, null: removed — notifications/push.py)."""


async def checked(spec: NotifySpec | None, settings: Settings) -> tuple[str | None, str | None]:
    """The spec's webhook and e-mail, stripped and checked (400 ``bad_notify`` otherwise). The
    webhook's host is resolved here and every address judged as at delivery (``127.1``,
    ``0xa000001``, ``localhost`` or a metadata name are refused now, not accepted and then
    failed); delivery resolves again (the name may point elsewhere by then)."""
    if spec is None:
        return None, None
    hook = (spec.webhook or "").strip() or None
    mail = (spec.email or "").strip() or None
    if hook is not None:
        try:
            _scheme, host, port, _path = check_url(hook)
        except WebhookRefused as exc:
            raise ApiError(400, "bad_notify", texts("server.bad_webhook"), {"field": "webhook"}) from exc
        if not settings.webhook_allow_private:
            # Nothing to judge when internal addresses are allowed; the lookup may block, so
            # it runs in a thread, through the very function delivery uses.
            try:
                await asyncio.to_thread(resolve, host, port, False)
            except WebhookRefused as exc:
                raise ApiError(400, "bad_notify", texts(exc.key, **exc.params), {"field": "webhook"}) from exc
            except Unresolvable as exc:
                raise ApiError(400, "bad_notify", texts("server.webhook_unresolvable", host=exc.host),
                               {"field": "webhook"}) from exc
    if mail is not None and not EMAIL_RE.fullmatch(mail):
        raise ApiError(400, "bad_notify", texts("server.bad_email"), {"field": "email"})
    return hook, mail


def turn_key(m: Match) -> tuple[int, int] | None:
    """``(version, seat)``: the human seat to move and the version its turn began at (after the
    last step of another seat; chance steps do not start a turn). None: the game is over or a
    bot is to move."""
    st = m.state
    if st.is_terminal():
        return None
    p = st.current_player
    if m.seats[p].kind != HUMAN:
        return None
    for step in reversed(m.steps):
        if step.seat is not None and step.seat != p:
            return step.version, p
    return 0, p


def webhook_body(url: str, message: str, extra: dict[str, Any]) -> dict[str, Any]:
    """The JSON of a webhook: Discord reads ``content``, Slack ``text``; other receivers get both
    and the structured fields."""
    host = (urlsplit(url).hostname or "").lower()
    if host in ("discord.com", "discordapp.com") or host.endswith((".discord.com", ".discordapp.com")):
        return {"content": message}
    if host == "hooks.slack.com":
        return {"text": message}
    return {"content": message, "text": message, **extra}


class Notifier:
    """The outbox's writer hook and its dispatcher (one per worker)."""

    def __init__(self, store: Store, settings: Settings, registry: Registry | None = None) -> None:
        self.store = store
        self.settings = settings
        self.outbox = Outbox(store)
        self.registry = registry
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._pending: set[asyncio.Task[Any]] = set()
        self._inflight: set[asyncio.Task[None]] = set()
        self._closed = False
        self.pool = ThreadPoolExecutor(DELIVERY_THREADS, thread_name_prefix="rebirth-notify")
        self._last: dict[str, tuple[int, int]] = {}
        """Per game, the turn last enqueued by this worker (no second round trip per step)."""
        self._reminded: dict[str, tuple[int, int]] = {}
        """Per game, the turn (version, seat) whose deadline reminder is enqueued."""
        self.delivered = 0
        """Deliveries that succeeded in this process (tests)."""
        self.seen = 0
        """Notices not sent because the seat was looking at its game (tests)."""
        self.default_policy: Callable[[str, int], str | None] | None = None
        """The account's default policy of a seat without its own (``(game, seat)`` →
        ``away``/``every``/None; called off the loop). None: ``away``. Wired by the accounts."""
        self.push = Pusher(store, settings)
        """The web push channel (notifications/push.py)."""

    # ------------------------------------------------------------------ enqueueing

    def channels(self) -> tuple[str, ...]:
        """The channels this server can deliver (e-mail only with an SMTP server; web push
        always: notifications/push.py)."""
        return ("webhook", "email", "push") if self.settings.smtp_host else ("webhook", "push")

    def after_commit(self, hub: Hub) -> None:
        """The writer's hook after a committed step (and after a game is loaded): enqueue the
        notification of the seat now to move. It runs as its own task: the step's broadcast
        does not wait for it."""
        if hub.match.state.is_terminal():
            # The end: every human seat's push (notifications/push.py), once per game.
            self._spawn(self.push.ended(self, hub.id, hub.committed,
                                        [i for i, s in enumerate(hub.match.seats) if s.kind == HUMAN]))
        key = turn_key(hub.match)
        if key is None:
            return
        version, seat = key
        times = reminder_times(hub.value.clock, self.settings)
        if times and self._reminded.get(hub.id) != key:
            # Idempotent like the turn's; dropped unsent if the seat moves first (the
            # dispatcher checks the turn). Asked again once the clock starts (a new game).
            self._reminded[hub.id] = key
            for kind, due in times:
                self._spawn(self.enqueue(hub.id, seat, version=version, kind=kind, due=due))
        if self._last.get(hub.id) == key:
            return  # the same turn goes on (a seat's second step): enqueued already
        self._last[hub.id] = key
        written, hub.notified = hub.notified, None
        if written is not None and (written[0].version, written[0].seat) == key:
            # Enqueued in the step's own write (Store.append): no round trip of its own.
            if written[1]:
                self._wake.set()
            return
        self._spawn(self.enqueue(hub.id, seat, version=version))

    def turn_notice(self, game_id: str, after: LiveGame) -> TurnNotice | None:
        """The writers' hook before a step is stored: the turn notification it starts, to be
        written in the step's own transaction (a transactional outbox); None when the turn
        goes on or no human is to move. (A game loaded or a seat subscribing enqueues by
        :meth:`enqueue`.)"""
        key = turn_key(after.match)
        if key is None or self._last.get(game_id) == key:
            return None
        return TurnNotice(key[0], key[1], self.channels())

    async def enqueue(self, game: str, seat: int, *, version: int, kind: str = "turn",
                      due: float | None = None) -> int:
        """Enqueue a notification of ``kind`` (``turn``, ``reminder``) for ``seat`` on every
        channel it chose; idempotent per (game, version, seat, channel, kind). Returns the rows
        that were new (0 when the seat chose no channel)."""
        try:
            made = await asyncio.to_thread(self.outbox.enqueue, game, version, seat, kind,
                                           self.channels(), due)
        except Exception:  # the database is away: the next step, a restart or a load enqueues it again
            if self._last.get(game) == (version, seat):
                del self._last[game]
            log.exception("game %s: the notification of seat %d (version %d) could not be enqueued",
                          game, seat, version)
            return 0
        if made:
            self._wake.set()
        return made

    def wake(self) -> None:
        """Look at the outbox now (rows were made due by another writer)."""
        self._wake.set()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    # ------------------------------------------------------------------ dispatching

    def start(self) -> None:
        """Start the dispatcher, and the start's check of the games whose seats chose channels."""
        self._task = asyncio.get_running_loop().create_task(self._run())
        if self.registry is not None:
            self._spawn(self.recover())

    async def recover(self) -> None:
        """A (re)start: each unfinished game with a seat that chose a channel is loaded, which
        enqueues its current turn (a writer killed between its commit and its enqueue left it
        out; the outbox's key keeps it from going out twice). Only those games: a restart does
        not load the others."""
        if self.registry is None:
            return
        try:
            ids = await asyncio.to_thread(self.outbox.subscribed_games)
        except Exception:
            log.exception("the games with notification channels could not be read")
            return
        for gid in ids:
            try:
                await self.registry.get(gid)
            except Exception:  # one broken game must not stop the others' notifications
                log.exception("game %s could not be loaded for its notifications", gid)

    async def close(self) -> None:
        """Stop the dispatcher (rows being delivered stay claimed until their lease ends)."""
        self._closed = True
        tasks = [t for t in [self._task, *self._pending, *self._inflight] if t is not None]
        for t in tasks:
            t.cancel()
        if tasks:
            # Bounded: Python 3.11's wait_for can swallow a cancel that meets a wake-up; the
            # loop then sees _closed and ends by itself.
            await asyncio.wait(tasks, timeout=5)
        self.pool.shutdown(wait=False, cancel_futures=True)

    @property
    def lease(self) -> float:
        """Seconds a claim lasts: longer than any delivery may take."""
        return 3 * self.settings.webhook_timeout + 30

    async def _run(self) -> None:
        while not self._closed:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.settings.notify_interval):
                    await self._wake.wait()
            self._wake.clear()
            if self._closed:
                return
            try:
                await self.dispatch()
            except Exception:  # the database is away: the next tick tries again
                log.exception("the notification outbox could not be read")

    async def dispatch(self) -> int:
        """Claim due rows (as many as there are free delivery threads) and start their
        deliveries, without waiting for them: a webhook that hangs holds one thread until its
        timeout, never the dispatcher. Returns how many were claimed."""
        free = DELIVERY_THREADS - len(self._inflight)
        if free <= 0:
            return 0
        jobs = await asyncio.to_thread(self.outbox.claim, free, self.lease)
        for job in jobs:
            task = asyncio.get_running_loop().create_task(self._deliver(job))
            self._inflight.add(task)
            task.add_done_callback(self._delivered)
        return len(jobs)

    def _delivered(self, task: asyncio.Task[None]) -> None:
        self._inflight.discard(task)
        self._wake.set()  # a thread is free: rows that were due may be waiting

    async def _deliver(self, job: Job) -> None:
        if job.channel == "push":  # its own module (notifications/push.py)
            await self.push.deliver(self, job, await asyncio.to_thread(self.store.game, job.game))
            return
        loop = asyncio.get_running_loop()
        try:
            sub = await asyncio.to_thread(self.outbox.sub, job.game, job.seat)
            row = await asyncio.to_thread(self.store.game, job.game)
            target = None if sub is None else (sub.webhook if job.channel == "webhook" else sub.email)
            if sub is None or row is None or not target \
                    or await self.stale(job, row):
                await asyncio.to_thread(self.outbox.finish, job, "dropped")
                return
            later = await judge(self, job)
            if later == "drop":
                await asyncio.to_thread(self.outbox.finish, job, "dropped")
                return
            if not isinstance(later, str):  # the deadline moved (a vacation, time added)
                await asyncio.to_thread(self.outbox.postpone, job, later)
                return
            away = await self.policy(job.game, job.seat) == "away"
            if away and self.settings.notify_grace > 0 and await asyncio.to_thread(
                    prefs.postpone_young, self.store, job.id, self.outbox.worker, self.settings.notify_grace):
                # A page opening (the creator's, a reload) has the grace to say it is visible.
                return
            if away and await self.attending(job.game, job.seat):
                # Decided now, not at enqueueing: the player is looking at the game (issue 25
                # item 6), on this worker or another.
                self.seen += 1
                await asyncio.to_thread(self.outbox.finish, job, "seen")
                return
            name = row.names[job.seat]
            args = {"name": name, "board": board_name(row.board), "link": sub.link}
            subject = text(f"notify.{kind_of(job.kind)}.subject", row.lang, **args)
            message = text(f"notify.{kind_of(job.kind)}.body", row.lang, **args)
            if job.channel == "webhook":
                extra = {"game": job.game, "seat": job.seat, "name": name, "kind": kind_of(job.kind),
                         "version": job.version, "url": sub.link}
                body = json.dumps(webhook_body(target, message, extra)).encode()
                await loop.run_in_executor(self.pool, self._post, target, body)
            else:
                unsub = await asyncio.to_thread(prefs.unsubscribe_token, self.store, job.game, job.seat,
                                                target)
                base = site_of(sub.link)
                stop = f"{base}/unsubscribe#u={unsub}"
                message += "\n\n" + text("notify.unsubscribe", row.lang, link=stop)
                one_click = f"{base}/api/unsubscribe?u={unsub}"
                await loop.run_in_executor(self.pool, self._mail, target, subject, message, one_click)
        except WebhookRefused as exc:
            log.warning("game %s seat %d: webhook refused, not retried: %s", job.game, job.seat, exc)
            await self._finish(job, "failed", str(exc))
            return
        except Exception as exc:
            await self.failed(job, exc)
            return
        self.delivered += 1
        log.info("game %s seat %d: %s notification (%s, version %d) delivered", job.game, job.seat,
                 job.channel, job.kind, job.version)
        await self._finish(job, "sent")

    async def policy(self, game: str, seat: int) -> str:
        """The seat's policy: its own, else the account's default, else ``away``."""
        own = await asyncio.to_thread(prefs.policy, self.store, game, seat)
        if own is None and self.default_policy is not None:
            try:
                own = await asyncio.to_thread(self.default_policy, game, seat)
            except Exception:  # the default is advisory: the seat's notice still goes out
                log.exception("game %s seat %d: the account's default policy could not be read", game, seat)
        return own if own in prefs.POLICIES else "away"

    async def attending(self, game: str, seat: int) -> bool:
        """A page of the seat open and visible, on this worker or (Redis' marks) another: under
        policy ``away`` the notice is not sent. Redis unable to say: not looking (a lost mark
        must not swallow a notice)."""
        if self.registry is None:
            return False
        held = self.registry.hubs.get(game)
        if held is not None and held.attending(seat):
            return True
        broker = self.registry.broker
        if broker is None:
            return False
        elsewhere = await broker.visible_elsewhere(game)
        return elsewhere is not None and seat in elsewhere

    async def stale(self, job: Job, row: GameRow) -> bool:
        """A turn notification or a deadline reminder whose turn is over already (the player
        moved before it went out, or before a retry): the game ended, the seat is a bot's now,
        or the turn to move is no longer the one the job is for — judged from the game as
        stored, whichever worker wrote it (this worker's copy when it is current, else the
        stored log replayed off the loop)."""
        if row.status != "playing" or row.kinds[job.seat] != HUMAN:
            return True
        if self.registry is None:
            return False
        held = self.registry.hubs.get(job.game)
        if held is not None and held.committed >= row.version:
            match = held.match
        else:
            match = await asyncio.to_thread(self.registry.load_match, row)
        return turn_key(match) != (job.version, job.seat)

    async def _finish(self, job: Job, done: str, error: str | None = None) -> None:
        try:
            await asyncio.to_thread(self.outbox.finish, job, done, error)
        except Exception:
            log.exception("game %s: notification %d could not be marked %s", job.game, job.id, done)

    async def failed(self, job: Job, exc: Exception) -> None:
        why = f"{type(exc).__name__}: {exc}"[:500]
        tries = job.attempts + 1
        if tries >= self.settings.notify_attempts:
            log.error("game %s seat %d: %s notification given up after %d attempts: %s",
                      job.game, job.seat, job.channel, tries, why)
            await self._finish(job, "failed", why)
            return
        delay = self.settings.notify_retry_s * 2 ** job.attempts
        log.warning("game %s seat %d: %s notification failed (attempt %d), retry in %.1f s: %s",
                    job.game, job.seat, job.channel, tries, delay, why)
        try:
            await asyncio.to_thread(self.outbox.retry, job, time.time() + delay, why)
        except Exception:
            log.exception("game %s: notification %d could not be rescheduled", job.game, job.id)

    # ------------------------------------------------------------------ the channels

    def _post(self, url: str, body: bytes) -> None:
        post_json(url, body, allow_private=self.settings.webhook_allow_private,
                  timeout=self.settings.webhook_timeout)

    def _mail(self, to: str, subject: str, body: str, unsubscribe: str | None = None) -> None:
        s = self.settings
        msg = EmailMessage()
        msg["From"] = s.smtp_from
        msg["To"] = to
        msg["Subject"] = subject
        msg["Date"] = formatdate(usegmt=True)
        msg["Message-ID"] = make_msgid("rebirth", domain=mail_domain(s.smtp_from, s.public_url))
        if unsubscribe is not None:
            # RFC 2369 and RFC 8058: a mail client's one-click "unsubscribe" POSTs
            # "List-Unsubscribe=One-Click" to this https URL; its token does nothing else.
            msg["List-Unsubscribe"] = f"<{unsubscribe}>"
            msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        msg["Auto-Submitted"] = "auto-generated"
        msg.set_content(body)
        with smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=s.webhook_timeout) as smtp:
            if s.smtp_starttls:
                smtp.starttls()
            if s.smtp_user:
                smtp.login(s.smtp_user, s.smtp_password)
            smtp.send_message(msg)


def seat_link(base: str, game: str, slot: str) -> str:
    """A seat's own link in a notification: the game page and the seat (``?seat=SEAT``, or
    ``?seat=table`` for a hot-seat device) — no secret; the browser that holds the seat opens
    it with its stored token (web/seat.js), a signed-in player through the account."""
    return f"{base}/game/{game}?seat={slot}"


def site_of(link: str) -> str:
    """The scheme and host of a stored seat link (where the unsubscribe page is)."""
    parts = urlsplit(link)
    return f"{parts.scheme}://{parts.netloc}"


def mail_domain(sender: str, public_url: str) -> str:
    """The domain of the Message-ID: the sender's (own) domain, else the public URL's host,
    else ``localhost``."""
    _name, addr = parseaddr(sender)
    domain = addr.rpartition("@")[2].strip().lower()
    if domain and EMAIL_RE.fullmatch(f"x@{domain}"):
        return domain
    host = (urlsplit(public_url).hostname or "").lower() if public_url else ""
    return host or "localhost"


async def subscribe(notifier: Notifier, hub: Hub, seat: int, hook: str | None, mail: str | None,
                    link: str) -> None:
    """Store a seat's channels; if it is that seat's turn now, it is told at once."""
    await asyncio.to_thread(notifier.outbox.subscribe, hub.id, seat, hook, mail, link)
    async with hub.lock:
        key = turn_key(hub.match)
    if key is not None and key[1] == seat:
        await notifier.enqueue(hub.id, seat, version=key[0])
        # A deadline runs: its reminders go to the channels just chosen.
        for kind, due in reminder_times(hub.value.clock, notifier.settings):
            await notifier.enqueue(hub.id, seat, version=key[0], kind=kind, due=due)


async def forget(notifier: Notifier, game: str, seat: int) -> None:
    """A revoked link: the seat's channels and the stored link go with it."""
    await asyncio.to_thread(notifier.outbox.forget, game, seat)


def attach(registry: Registry, notifier: Notifier) -> None:
    """Let the registry's writers call the notifier after each committed step and each load."""
    hook: Callable[[Hub], None] = notifier.after_commit
    registry.on_commit.append(hook)
    registry.on_chat.append(
        lambda game, seat, seq: notifier._spawn(notifier.push.chatted(notifier, game, seat, seq)))
    registry.notice_of_turn = notifier.turn_notice
