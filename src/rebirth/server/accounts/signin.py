"""Sign-in by e-mail (issue 25 item 1): a single-use code, stored as a SHA-256 digest, valid
for :data:`CODE_SECONDS`, mailed as ``{public}/signin#c=<code>`` (the fragment: browsers never
send it to a server, a proxy's log or a ``Referer``).

The request is answered before anything is looked up: the code is made and the mail sent by a
background task (:class:`SigninMailer`), the same work for a known and an unknown address, so
neither the answer nor its time tells whether an account exists. The code is never logged.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import smtplib
import time
from concurrent.futures import ThreadPoolExecutor
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from sqlalchemy import delete, insert, select, update

from rebirth.engine.messages import text
from rebirth.server.accounts.store import normal_email
from rebirth.server.persistence.accounts import signin_codes
from rebirth.server.persistence.store import Store, hash_token
from rebirth.server.settings import Settings

log = logging.getLogger("rebirth.server.accounts")

CODE_SECONDS = 15 * 60.0
"""How long a sign-in link works (once)."""

EMAIL = re.compile(r"[^@\s<>()\[\],;:\"\\]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9.\-]{0,251}[A-Za-z0-9])?"
                   r"\.[A-Za-z]{2,63}")
"""A well-formed address (local part without spaces or specials; a dotted domain)."""


def well_formed(email: str) -> bool:
    """Is ``email`` an address a link can be sent to (at most 254 characters)."""
    email = email.strip()
    return len(email) <= 254 and EMAIL.fullmatch(email) is not None and ".." not in email


def new_code(store: Store, email: str) -> str:
    """A fresh sign-in code for ``email`` (stored as its digest; expired codes are swept)."""
    code = secrets.token_urlsafe(24)
    now = time.time()
    with store.tx() as c:
        c.execute(delete(signin_codes).where(signin_codes.c.expires < now - CODE_SECONDS))
        c.execute(insert(signin_codes).values(hash=hash_token(code), email=normal_email(email), created=now,
                                              expires=now + CODE_SECONDS, used=False))
    return code


def use_code(store: Store, code: str) -> str | None:
    """Spend a code: its address, once (None: unknown, used or expired). A conditional update,
    so two requests racing with the same code (two workers): exactly one signs in."""
    if not code or len(code) > 64:
        return None
    h = hash_token(code)
    now = time.time()
    with store.tx() as c:
        row = c.execute(select(signin_codes.c.email, signin_codes.c.expires)
                        .where(signin_codes.c.hash == h)).first()
        if row is None or row.expires < now:
            return None
        won = c.execute(update(signin_codes).where(signin_codes.c.hash == h, signin_codes.c.used.is_(False))
                        .values(used=True)).rowcount
    return str(row.email) if won == 1 else None


def signin_link(base: str, code: str) -> str:
    """The link of a sign-in mail."""
    return f"{base}/signin#c={code}"


class SigninMailer:
    """Makes codes and sends sign-in mails off the request path (one per app)."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        # One thread: SMTP is blocking, and the event loop must never wait for it.
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rebirth-signin-mail")
        self._tasks: set[asyncio.Task[None]] = set()
        self.sent = 0
        """Mails handed to the SMTP server (tests)."""

    def request(self, email: str, lang: str, base: str) -> None:
        """Send a link to ``email`` in the background (the caller answers at once)."""
        task = asyncio.get_running_loop().create_task(self._send(email, lang, base))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, email: str, lang: str, base: str) -> None:
        try:
            code = await asyncio.to_thread(new_code, self.store, email)
            link = signin_link(base, code)
            subject = text("account.mail.subject", lang)
            body = text("account.mail.body", lang, link=link, minutes=int(CODE_SECONDS // 60))
            await asyncio.get_running_loop().run_in_executor(self._pool, self._mail, email, subject, body)
            self.sent += 1
        except Exception as exc:
            # The exception's type only: its text could quote the message, and the message holds the code.
            log.warning("sign-in mail not sent (%s)", type(exc).__name__)

    def _mail(self, to: str, subject: str, body: str) -> None:
        s = self.settings
        msg = EmailMessage()
        msg["From"] = s.smtp_from
        msg["To"] = to
        msg["Subject"] = subject
        msg["Date"] = formatdate(usegmt=True)
        domain = s.smtp_from.rsplit("@", 1)[-1] if "@" in s.smtp_from else "localhost"
        msg["Message-ID"] = make_msgid(domain=domain)
        msg["Auto-Submitted"] = "auto-generated"
        msg.set_content(body)
        with smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=s.webhook_timeout) as smtp:
            if s.smtp_starttls:
                smtp.starttls()
            if s.smtp_user:
                smtp.login(s.smtp_user, s.smtp_password)
            smtp.send_message(msg)

    async def drain(self, timeout: float = 5.0) -> None:
        """Wait (bounded) for the mails in flight."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)

    async def close(self) -> None:
        """Finish the mails in flight (bounded), then stop the mail thread."""
        await self.drain()
        for t in list(self._tasks):
            t.cancel()
        self._pool.shutdown(wait=False, cancel_futures=True)
