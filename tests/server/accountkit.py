"""Helpers for the account tests: a server with a local SMTP server, sign-in by the mailed link."""

from __future__ import annotations

import email
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from server import kit, notifykit

LINK = re.compile(r"(\S+/signin)#c=([A-Za-z0-9_\-]+)")


@contextmanager
def mail_client(tmp: Path, **kw: Any) -> Iterator[tuple[TestClient, notifykit.Smtp]]:
    """A started TestClient whose sign-in mails go to a local SMTP server."""
    with notifykit.smtp_server() as smtp, \
            kit.client(tmp, smtp_host="127.0.0.1", smtp_port=smtp.port, **kw) as c:
        yield c, smtp


def wait_mail(smtp: notifykit.Smtp, n: int, timeout: float = 10.0) -> notifykit.Mail:
    """The ``n``-th mail (1-based) the server received."""
    deadline = time.monotonic() + timeout
    while len(smtp.box) < n:
        assert time.monotonic() < deadline, f"only {len(smtp.box)} mails"
        time.sleep(0.02)
    return smtp.box[n - 1]


def code_of(mail: notifykit.Mail) -> str:
    """The sign-in code of a mail's link."""
    msg = email.message_from_bytes(mail.data)
    body = msg.get_payload(decode=True)
    assert isinstance(body, bytes)
    m = LINK.search(body.decode())
    assert m, body
    return m.group(2)


def signin(c: TestClient, smtp: notifykit.Smtp, address: str,
           seats: list[str] | None = None) -> dict[str, Any]:
    """Ask for a link, read it from the mail, spend it: the signin answer (the client holds the cookie)."""
    before = len(smtp.box)
    r = c.post("/api/account/email", json={"email": address, "lang": "en"})
    assert r.status_code == 202, r.text
    code = code_of(wait_mail(smtp, before + 1))
    r = c.post("/api/account/signin", json={"code": code, "seats": seats or []})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out
