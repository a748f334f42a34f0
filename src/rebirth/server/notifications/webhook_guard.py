"""Webhook requests that cannot be turned against the server's own network (SSRF).

A webhook URL is typed by a user, and the server then makes a request to it. So the host is
resolved once, every address it resolves to is checked (loopback, private, link-local — which
holds the cloud metadata address 169.254.169.254 —, multicast, reserved, unspecified and the
IPv4-mapped forms of those are refused unless ``REBIRTH_WEBHOOK_ALLOW_PRIVATE``), and the
connection goes to the checked address itself: no second lookup, so no DNS-rebinding window.
TLS still verifies the certificate against the host name (SNI). Redirects are not followed: a
3xx answer is a failed delivery.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_URL = 2000
"""The longest webhook URL accepted."""

METADATA_HOSTS = ("metadata.google.internal", "metadata", "instance-data")
"""Names of cloud metadata services, refused whatever they resolve to."""


class WebhookRefused(Exception):
    """The URL may not be called (its scheme, or an address it resolves to). ``key`` and
    ``args``: the catalog text saying why (the English message is for the log)."""

    def __init__(self, message: str, key: str = "server.bad_webhook", **args: str) -> None:
        super().__init__(message)
        self.key = key
        self.params = args


class WebhookFailed(Exception):
    """The request was made (or tried) and did not succeed: retry later."""


class Unresolvable(WebhookFailed):
    """The host has no address now (at delivery: retried; at registration: refused)."""

    def __init__(self, message: str, host: str) -> None:
        super().__init__(message)
        self.host = host


def check_url(url: str) -> tuple[str, str, int, str]:
    """``(scheme, host, port, path?query)`` of an acceptable-looking webhook URL (no lookup);
    :class:`WebhookRefused` otherwise."""
    if len(url) > MAX_URL:
        raise WebhookRefused("the URL is too long")
    try:
        u = urlsplit(url)
        port = u.port
    except ValueError as exc:
        raise WebhookRefused(f"not a URL: {exc}") from None
    if u.scheme not in ("http", "https") or not u.hostname:
        raise WebhookRefused("only http:// and https:// addresses")
    if u.username or u.password:
        raise WebhookRefused("no user name or password in the address")
    path = (u.path or "/") + (f"?{u.query}" if u.query else "")
    return u.scheme, u.hostname, port or (443 if u.scheme == "https" else 80), path


def forbidden(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """An address a webhook may not reach by default."""
    if isinstance(ip, ipaddress.IPv6Address):
        mapped = ip.ipv4_mapped or ip.sixtofour
        if mapped is not None and forbidden(mapped):
            return True
    return (ip.is_loopback or ip.is_private or ip.is_link_local or ip.is_multicast or ip.is_reserved
            or ip.is_unspecified or not ip.is_global)


def resolve(host: str, port: int, allow_private: bool) -> list[str]:
    """The addresses of ``host``, every one of them checked (one refused refuses the host: an
    attacker's name may mix a public and an internal address)."""
    if host.lower().rstrip(".") in METADATA_HOSTS and not allow_private:
        raise WebhookRefused(f"{host} is a metadata service", "server.webhook_metadata", host=host)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise Unresolvable(f"cannot resolve {host}: {exc}", host) from None
    addrs = list(dict.fromkeys(str(i[4][0]) for i in infos))
    if not addrs:
        raise Unresolvable(f"{host} has no address", host)
    if not allow_private:
        for a in addrs:
            if forbidden(ipaddress.ip_address(a.split("%", 1)[0])):
                # A literal address is named once; a name (``localhost``, ``127.1``,
                # ``0xa000001``) with what it resolves to.
                literal = host.strip("[]").lower() == a.lower()
                raise WebhookRefused(f"{host} resolves to {a}, an internal address",
                                     "server.webhook_private" if literal else "server.webhook_internal",
                                     host=host, address=a)
    return addrs


class _PinnedHTTP(http.client.HTTPConnection):
    """HTTP to one checked address (the Host header still names the URL's host)."""

    def __init__(self, host: str, port: int, ip: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._ip = ip

    def connect(self) -> None:
        self.sock = socket.create_connection((self._ip, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """HTTPS to one checked address; the certificate is verified for the URL's host."""

    def __init__(self, host: str, port: int, ip: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._ip = ip

    def connect(self) -> None:
        raw = socket.create_connection((self._ip, self.port), self.timeout)
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Answer:
    """What the webhook answered."""

    status: int
    ip: str


def post_json(url: str, body: bytes, *, allow_private: bool, timeout: float) -> Answer:
    """POST ``body`` (JSON) to ``url`` through the guard. :class:`WebhookRefused`: never
    allowed (do not retry); :class:`WebhookFailed`: no 2xx answer (retry)."""
    scheme, host, port, path = check_url(url)
    errors: list[str] = []
    for ip in resolve(host, port, allow_private):
        conn: http.client.HTTPConnection = (_PinnedHTTPS if scheme == "https" else _PinnedHTTP)(
            host, port, ip, timeout)
        try:
            conn.request("POST", path, body=body, headers={
                "Content-Type": "application/json", "User-Agent": "rebirth-notify/1"})
            r = conn.getresponse()
            r.read(65536)
        except (OSError, http.client.HTTPException) as exc:
            errors.append(f"{ip}: {type(exc).__name__}: {exc}")
            continue
        finally:
            conn.close()
        if 300 <= r.status < 400:
            # Following it would let an allowed address send the request to a refused one.
            raise WebhookRefused(f"{ip}: answered {r.status}, a redirect (not followed)")
        if not 200 <= r.status < 300:
            raise WebhookFailed(f"{ip}: answered {r.status}")
        return Answer(r.status, ip)
    raise WebhookFailed("; ".join(errors) or "no address answered")


def post_bytes(url: str, body: bytes, headers: dict[str, str], *, allow_private: bool,
               timeout: float) -> Answer:
    """POST ``body`` with ``headers`` to ``url`` through the same guard as :func:`post_json`
    (one lookup, every address checked, the connection pinned to a checked address, no
    redirect followed) and return the first answer, whatever its status (a web push service's
    404 and 410 mean something: the caller judges). :class:`WebhookFailed`: no address
    answered."""
    scheme, host, port, path = check_url(url)
    errors: list[str] = []
    for ip in resolve(host, port, allow_private):
        conn: http.client.HTTPConnection = (_PinnedHTTPS if scheme == "https" else _PinnedHTTP)(
            host, port, ip, timeout)
        try:
            conn.request("POST", path, body=body, headers={"User-Agent": "rebirth-notify/1", **headers})
            r = conn.getresponse()
            r.read(65536)
        except (OSError, http.client.HTTPException) as exc:
            errors.append(f"{ip}: {type(exc).__name__}: {exc}")
            continue
        finally:
            conn.close()
        return Answer(r.status, ip)
    raise WebhookFailed("; ".join(errors) or "no address answered")
