"""Issue 16 item 2: the webhook's SSRF guard. By default loopback, private, link-local (the
cloud metadata address), multicast, reserved and IPv4-mapped forms of them are refused — checked
after name resolution, on every address a name resolves to, and the request goes to the
checked address (one lookup: no DNS-rebinding window); redirects are not followed;
``REBIRTH_WEBHOOK_ALLOW_PRIVATE`` allows internal addresses. Issue 24 item 7: registration
resolves and judges the host the same way (``127.1``, ``0xa000001``, ``localhost``, the metadata
name, an unresolvable name are refused when typed, with a text naming host and address)."""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path
from typing import Any

import pytest

from rebirth.server.notifications.webhook_guard import WebhookFailed, WebhookRefused, forbidden, post_json
from server import kit
from server.notifykit import receiver

BODY = b'{"content": "x", "text": "x"}'


def fake_dns(monkeypatch: pytest.MonkeyPatch, answers: dict[str, list[str]]) -> list[str]:
    """``getaddrinfo`` answering ``answers`` for the names in it; returns the names looked up."""
    real = socket.getaddrinfo
    asked: list[str] = []

    def lookup(host: Any, port: Any, *args: Any, **kw: Any) -> Any:
        if host in answers:
            asked.append(host)
            return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "",
                     (a, port)) for a in answers[host]]
        return real(host, port, *args, **kw)

    monkeypatch.setattr(socket, "getaddrinfo", lookup)  # the guard's one lookup
    return asked


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:{port}/hook",
    "http://[::1]:{port}/hook",
    "http://localhost:{port}/hook",  # a name resolving to loopback
    "http://[::ffff:127.0.0.1]:{port}/hook",  # IPv4-mapped loopback
    "http://0.0.0.0:{port}/hook",
])
def test_loopback_refused_by_default_and_nothing_sent(url: str) -> None:
    with receiver() as rec:
        with pytest.raises(WebhookRefused):
            post_json(url.format(port=rec.port), BODY, allow_private=False, timeout=2)
        assert rec.hits == []
        # The setting allows it (a self-hosted network, the tests).
        if "[" not in url and "0.0.0.0" not in url:  # the receiver listens on IPv4
            post_json(url.format(port=rec.port), BODY, allow_private=True, timeout=2)
            assert len(rec.hits) == 1


@pytest.mark.parametrize("ip", ["10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "fd00::1",
                                "fe80::1", "224.0.0.1", "240.0.0.1", "100.64.0.1", "::ffff:10.0.0.1",
                                "255.255.255.255"])
def test_internal_addresses_refused(ip: str) -> None:
    assert forbidden(ipaddress.ip_address(ip))
    host = f"[{ip}]" if ":" in ip else ip
    with pytest.raises(WebhookRefused):
        post_json(f"http://{host}/hook", BODY, allow_private=False, timeout=1)


@pytest.mark.parametrize("ip", ["93.184.215.14", "2606:4700::1111", "8.8.8.8"])
def test_public_addresses_allowed(ip: str) -> None:
    assert not forbidden(ipaddress.ip_address(ip))


def test_metadata_name_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_dns(monkeypatch, {"metadata.google.internal": ["8.8.8.8"]})
    with pytest.raises(WebhookRefused):
        post_json("http://metadata.google.internal/computeMetadata/v1/", BODY, allow_private=False, timeout=1)


def test_a_name_resolving_to_loopback_is_refused_after_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    with receiver() as rec:
        asked = fake_dns(monkeypatch, {"hooks.example.org": ["127.0.0.1"]})
        with pytest.raises(WebhookRefused, match="internal"):
            post_json(f"http://hooks.example.org:{rec.port}/x", BODY, allow_private=False, timeout=2)
        assert asked == ["hooks.example.org"] and rec.hits == []


def test_one_internal_address_among_public_ones_refuses_the_name(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_dns(monkeypatch, {"mixed.example.org": ["8.8.8.8", "127.0.0.1"]})
    with pytest.raises(WebhookRefused):
        post_json("http://mixed.example.org/x", BODY, allow_private=False, timeout=1)


def test_the_checked_address_is_the_one_connected_to(monkeypatch: pytest.MonkeyPatch) -> None:
    """No second lookup (DNS rebinding): the name is resolved once and the connection goes to
    that address, with the URL's host in the Host header."""
    with receiver() as rec:
        asked = fake_dns(monkeypatch, {"hook.test": ["127.0.0.1"]})
        answer = post_json(f"http://hook.test:{rec.port}/in", BODY, allow_private=True, timeout=2)
        assert answer.ip == "127.0.0.1" and answer.status == 204
        assert asked == ["hook.test"]
        assert [(h.path, h.host, h.body) for h in rec.hits] == [("/in", f"hook.test:{rec.port}", BODY)]


def test_redirects_are_not_followed() -> None:
    with receiver() as target, receiver(status=302) as hop:
        hop.location = target.url("/stolen")
        with pytest.raises(WebhookRefused, match="redirect"):
            post_json(hop.url("/hook"), BODY, allow_private=True, timeout=2)
        assert len(hop.hits) == 1 and target.hits == []


@pytest.mark.parametrize("url", ["ftp://example.org/x", "file:///etc/passwd", "gopher://example.org/",
                                 "http:///nohost", "http://u:p@example.org/", "http://example.org:99999/"])
def test_not_an_http_url(url: str) -> None:
    with pytest.raises(WebhookRefused):
        post_json(url, BODY, allow_private=True, timeout=1)


def test_error_answers_are_failures_to_retry() -> None:
    with receiver(status=500) as rec, pytest.raises(WebhookFailed, match="500"):
        post_json(rec.url(), BODY, allow_private=True, timeout=2)


# ------------------------------------------------------------- judged at registration too


def _register(tmp: Path, hook: str, *, later: bool = False) -> Any:
    """Register ``hook`` for seat 0 (internal addresses not allowed): at creation, or later
    with the seat's own link; the answer."""
    with kit.client(tmp, webhook_allow_private=False) as c:
        if not later:
            return c.post("/api/games", json={"players": 2, "seats": [
                {"kind": "human", "notify": {"webhook": hook}}, {"kind": "human"}]})
        g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        tok = kit.seat_tokens(c, g)[0]
        return c.put(f"/api/games/{g['game']}/notify", json={"webhook": hook},
                     headers={"Authorization": f"Bearer {tok}"})


@pytest.mark.parametrize("later", [False, True], ids=["at-creation", "set-later"])
@pytest.mark.parametrize(("host", "named"), [
    ("127.1", "127.0.0.1"),  # inet_aton's short form of loopback
    ("0xa000001", "10.0.0.1"),  # a private address written as one hex number
    ("2130706433", "127.0.0.1"),  # loopback as one decimal number
    ("localhost", "127.0.0.1"),
    ("hooks.rebinding.test", "192.168.0.7"),  # a name pointing inside (the resolver is faked)
])
def test_a_name_resolving_inside_is_refused_at_registration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            host: str, named: str, later: bool) -> None:
    """Issue 24 item 7: registration resolves the host and judges every address with the
    delivery's own function; the refusal names the host and the address (en, de)."""
    asked = fake_dns(monkeypatch, {"hooks.rebinding.test": ["192.168.0.7"]})
    r = _register(tmp_path, f"http://{host}:8080/hook", later=later)
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["code"] == "bad_notify" and err["details"]["field"] == "webhook"
    for lang in ("en", "de"):
        assert host in err["message"][lang] and named in err["message"][lang], err["message"]
    assert err["message"]["en"] != err["message"]["de"]
    # Only the faked name went to the (faked) resolver; the other spellings the real one reads
    # without a network (numbers, /etc/hosts).
    assert ("hooks.rebinding.test" in asked) == (host == "hooks.rebinding.test")


@pytest.mark.parametrize("host", ["metadata.google.internal", "METADATA.google.internal.", "metadata"])
def test_the_metadata_name_is_refused_at_registration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      host: str) -> None:
    fake_dns(monkeypatch, {host: ["8.8.8.8"]})  # whatever it resolves to
    r = _register(tmp_path, f"http://{host}/computeMetadata/v1/")
    assert r.status_code == 400
    err = r.json()["error"]
    assert err["code"] == "bad_notify" and all(host.lower() in m for m in err["message"].values())
    assert "metadata" in err["message"]["en"] and "Metadaten" in err["message"]["de"]


def test_an_unresolvable_name_is_refused_at_registration(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def nowhere(host: Any, port: Any, *args: Any, **kw: Any) -> Any:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", nowhere)
    r = _register(tmp_path, "https://no-such-host.example.org/hook")
    assert r.status_code == 400
    err = r.json()["error"]
    assert err["code"] == "bad_notify" and err["details"]["field"] == "webhook"
    assert all("no-such-host.example.org" in m for m in err["message"].values())


@pytest.mark.parametrize("later", [False, True], ids=["at-creation", "set-later"])
def test_a_public_name_is_accepted_at_registration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   later: bool) -> None:
    asked = fake_dns(monkeypatch, {"hooks.example.org": ["93.184.215.14", "2606:4700::1111"]})
    r = _register(tmp_path, "https://hooks.example.org/hook", later=later)
    assert r.status_code in (200, 201), r.text
    # Registration asked for this name only; when it is the seat's turn, the notice's own
    # delivery may already have resolved it again in the background (by design).
    assert asked and set(asked) == {"hooks.example.org"}
