"""Where players can reach this server: the base of every link, and the addresses to print.

A link is built from ``REBIRTH_PUBLIC_URL`` when it is set (a proxy, a domain name); else
from the request's own address, whose scheme and client uvicorn takes from
``X-Forwarded-*`` headers only when they come from a trusted proxy
(``--forwarded-allow-ips``). A link whose host is loopback works on this computer only:
the lobby says so.
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import socket
import struct

from starlette.requests import HTTPConnection

from rebirth.server.settings import Settings

_SIOCGIFADDR = 0x8915
"""Linux's ioctl for an interface's IPv4 address."""


def base_url(settings: Settings, conn: HTTPConnection) -> str:
    """The scheme, host and port (and path prefix) links start with, without a trailing slash."""
    if settings.public_url:
        return settings.public_url
    return str(conn.base_url).rstrip("/")


def is_loopback_host(host: str | None) -> bool:
    """True for ``localhost``, ``127.x.x.x`` and ``::1`` (and for no host at all)."""
    if not host or host.lower() in ("localhost", "localhost."):
        return True
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    return host.lower().endswith(".localhost")


def interface_addresses() -> list[str]:
    """This machine's own IPv4 addresses, loopback ones last (what ``--host 0.0.0.0`` listens on).

    Read from the interfaces themselves (Linux), so no packet is sent anywhere; elsewhere
    from the host name's addresses."""
    found: list[str] = []
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        names = []
    for name in names:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                packed = fcntl.ioctl(s.fileno(), _SIOCGIFADDR, struct.pack("256s", name[:15].encode()))
            except OSError:  # an interface without an IPv4 address
                continue
            found.append(socket.inet_ntoa(packed[20:24]))
    if not found:
        with contextlib.suppress(OSError):
            found = sorted({str(a[4][0]) for a in socket.getaddrinfo(socket.gethostname(), None,
                                                                     socket.AF_INET)})
    unique = list(dict.fromkeys(found))
    return sorted(unique, key=lambda a: (ipaddress.ip_address(a).is_loopback, a))


def listen_urls(host: str, port: int) -> list[str]:
    """The URLs to print for a server listening on ``host``: for a wildcard address the
    machine's reachable addresses (never ``0.0.0.0``), else the address itself."""
    wildcard = host in ("0.0.0.0", "", "::")
    addrs = (interface_addresses() or ["127.0.0.1"]) if wildcard else [host]
    return [f"http://[{a}]:{port}/" if ":" in a else f"http://{a}:{port}/" for a in addrs]
