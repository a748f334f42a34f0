"""Issue 16 item 2: turn notifications. A turn-based game (no clock) where a local webhook
receiver and a local SMTP server each get exactly one notification per turn of their seat,
holding that seat's link and nothing another seat may not know (canary cards, the canary
seed, other tokens); bad input (a webhook that is not http(s), an e-mail that is no address, an
internal address, a bot seat), an unreachable webhook and a refusing SMTP server (logged retries
with backoff), and no move delayed by a webhook that never answers."""

from __future__ import annotations

import email
import email.policy
import json
import logging
import socket
import statistics
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from starlette.testclient import WebSocketTestSession

from canaries import SEED_CANARY, canary_game
from rebirth.engine.game import Game
from rebirth.server.persistence.outbox import Outbox
from rebirth.server.persistence.store import Store
from server import kit, pgkit
from server.notifykit import blackhole, closed_port_url, receiver, smtp_server, wait_for

SEED_TEXTS = (str(SEED_CANARY), hex(SEED_CANARY)[2:])


def canary_factory(board: str, players: int, variants: list[str]) -> Game:
    return canary_game(board, players, variants)


def store_of(c: TestClient) -> Store:
    """The app's store."""
    st: Store = c.app.state.registry.store  # type: ignore[attr-defined]
    return st


def decoded(data: bytes) -> bytes:
    """The text of an e-mail (headers and decoded body)."""
    msg = email.message_from_bytes(data, policy=email.policy.default)
    body = msg.get_body(("plain",))
    assert body is not None
    head = "".join(f"{k}: {v}\n" for k, v in msg.items())
    content: str = body.get_content()
    return (head + content).encode()


def fast(**kw: Any) -> dict[str, Any]:
    """Notification settings for the tests: internal addresses allowed, short waits."""
    base: dict[str, Any] = {"webhook_allow_private": True, "notify_interval": 0.05, "notify_retry_s": 0.05,
                            "webhook_timeout": 2.0}
    base.update(kw)
    return base


class Player:
    """One seat's socket: the latest view and version it was sent."""

    def __init__(self, ws: WebSocketTestSession, tok: str) -> None:
        self.ws = ws
        sync = kit.hello(ws, tok)
        self.view: dict[str, Any] = sync["view"]
        self.version: int = sync["version"]

    def drain(self, version: int) -> None:
        while self.version < version:
            msg = self.ws.receive_json()
            if msg["type"] in ("update", "sync"):
                self.view, self.version = msg["view"], msg["version"]


@contextmanager
def players(c: TestClient, gid: str, toks: list[str]) -> Iterator[list[Player]]:
    with ExitStack() as stack:
        socks = [stack.enter_context(c.websocket_connect(f"/ws/games/{gid}")) for _ in toks]
        yield [Player(ws, t) for ws, t in zip(socks, toks, strict=True)]


def step(ps: list[Player]) -> float:
    """The seat to move takes its first legal action; every socket reads the update. Returns
    the seconds from sending the action to the mover's update."""
    cur = ps[0].view["current_player"]
    p = ps[cur]
    start = time.perf_counter()
    p.ws.send_json({"type": "act", "action": p.view["legal_actions"][0], "version": p.version})
    while True:
        msg = p.ws.receive_json()
        if msg["type"] == "error":
            raise AssertionError(msg)
        if msg["type"] in ("update", "sync"):
            p.view, p.version = msg["view"], msg["version"]
            break
    took = time.perf_counter() - start
    for q in ps:
        q.drain(p.version)
    return took


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """The test's database: the default SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield {}
        return
    with pgkit.database() as url:
        yield {"database_url": url}


@pytest.mark.parametrize("clock", [None, {"kind": "turn", "per_move_s": 86400}], ids=["no-clock", "turn-24h"])
def test_one_notification_per_turn_on_webhook_and_email(tmp_path: Path, db: dict[str, Any],
                                                       clock: dict[str, Any] | None) -> None:
    """Issue 16 item 2 (must-show): each seat's webhook and mailbox get exactly one
    notification per turn of that seat, with its own link and nothing hidden (S-5) — also in a
    turn-based game with a 24 h move (its reminder is due an hour before the deadline)."""
    with receiver() as rec, smtp_server() as smtp, kit.client(
            tmp_path, game_factory=canary_factory, seed_factory=lambda: SEED_CANARY,
            **fast(smtp_host="127.0.0.1", smtp_port=smtp.port, **db)) as c:
        g = kit.new_game(c, players=2, clock=clock, seats=[
            {"kind": "human", "name": "Ailsa",
             "notify": {"webhook": rec.url("/a"), "email": "ailsa@example.org"}},
            {"kind": "human", "name": "Brodie",
             "notify": {"webhook": rec.url("/b"), "email": "brodie@example.org"}}])
        gid = g["game"]
        invites = [s["url"].split("#i=")[1] for s in g["links"]["seats"]]
        toks = kit.seat_tokens(c, g)
        # A notification's link is the seat's own page: no secret (the claimer holds the token).
        links = [f"http://testserver/game/{gid}?seat={i}" for i in (0, 1)]
        others = {kit.token(g["links"]["spectator"]), kit.token(g["links"]["admin"]), *invites, *toks}
        turns = [0, 0]
        paths = ["/a", "/b"]
        mails = ["ailsa@example.org", "brodie@example.org"]

        def delivered(seat: int) -> bool:
            return (len(rec.on(paths[seat])) == turns[seat]
                    and sum(mails[seat] in m.rcpt for m in smtp.box) == turns[seat])

        with players(c, gid, toks) as ps:
            last = ps[0].view["current_player"]
            turns[last] += 1  # the first turn starts with the deal
            assert wait_for(lambda: delivered(last)), (rec.hits, smtp.box)
            while sum(turns) < 12:
                step(ps)
                now = ps[0].view["current_player"]
                if now != last:
                    turns[now] += 1
                    last = now
                    assert wait_for(partial(delivered, now)), (turns, [h.path for h in rec.hits])
        time.sleep(0.5)  # anything sent twice would have arrived by now
        assert [len(rec.on(p)) for p in paths] == turns
        assert [sum(m in x.rcpt for x in smtp.box) for m in mails] == turns
        rows = Outbox(store_of(c)).rows(gid)
        sent = [r for r in rows if r["kind"] == "turn"]
        assert len(sent) == 2 * sum(turns) and {r["done"] for r in sent} == {"sent"}
        # A 24 h move's reminders are due 4 h and 1 h before its deadline: none is sent here;
        # each is dropped unsent once its turn is over (pending only for the turn still running).
        reminders = [r for r in rows if str(r["kind"]).startswith("reminder")]
        assert len(reminders) == (2 * 2 * sum(turns) if clock else 0)
        assert {r["done"] for r in reminders} <= {None, "dropped"}

        # Every byte sent: the seat's own link, no other token, no canary card, no seed.
        for seat in (0, 1):
            # Each e-mail both as sent and decoded (quoted-printable may wrap a token).
            readable = [h.body for h in rec.on(paths[seat])] + [
                decoded(m.data) for m in smtp.box if mails[seat] in m.rcpt]
            assert len(readable) == 2 * turns[seat]
            assert all(links[seat].encode() in r for r in readable)
            for raw in readable + [m.data for m in smtp.box if mails[seat] in m.rcpt]:
                for t in others:
                    assert t.encode() not in raw
                assert b"CANARY" not in raw
                for s in SEED_TEXTS:
                    assert s.encode() not in raw
            body = json.loads(rec.on(paths[seat])[0].body)
            assert set(body) == {"content", "text", "game", "seat", "name", "kind", "version", "url"}
            assert body["url"] == links[seat] and body["seat"] == seat and body["kind"] == "turn"
            assert links[seat] in body["content"] and body["content"] == body["text"]


def test_channels_set_later_by_the_seats_own_link(tmp_path: Path) -> None:
    """Issue 16 item 2: "also settable later by that seat's own link" — only by it."""
    with receiver() as rec, kit.client(tmp_path, **fast()) as c:
        g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        gid, (s0, s1) = g["game"], kit.seat_tokens(c, g)
        spect = kit.token(g["links"]["spectator"])
        auth0 = {"Authorization": f"Bearer {s0}"}
        assert c.get(f"/api/games/{gid}/notify", headers=auth0).json()["webhook"] is None
        r = c.put(f"/api/games/{gid}/notify", json={"webhook": rec.url("/later")},
                  headers={"Authorization": f"Bearer {spect}"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
        r = c.put(f"/api/games/{gid}/notify", json={"webhook": "javascript:alert(1)"},
                  headers={"Authorization": f"Bearer {s0}"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_notify"
        first = c.get(f"/api/games/{gid}").json()
        r = c.put(f"/api/games/{gid}/notify", json={"webhook": rec.url("/later")},
                  headers={"Authorization": f"Bearer {s0}"})
        assert r.status_code == 200 and r.json()["webhook"] == rec.url("/later")
        assert c.get(f"/api/games/{gid}/notify", headers=auth0).json()["webhook"] == rec.url("/later")
        with players(c, gid, [s0, s1]) as ps:
            assert first["status"] == "playing"
            if ps[0].view["current_player"] != 0:
                step(ps)
            while ps[0].view["current_player"] == 0:
                # Seat 0's turn (now, or when it chose the webhook): told once, whatever it plays.
                assert wait_for(lambda: len(rec.on("/later")) == 1)
                step(ps)
            time.sleep(0.3)
            assert len(rec.on("/later")) == 1
        # A revoked link forgets the channels (the stored link held the old token).
        admin = kit.token(g["links"]["admin"])
        r = c.post(f"/api/games/{gid}/seats/0/revoke", headers={"Authorization": f"Bearer {admin}"})
        assert r.status_code == 200
        assert Outbox(store_of(c)).sub(gid, 0) is None


@pytest.mark.parametrize(("notify", "field", "allow"), [
    ({"webhook": "ftp://example.org/hook"}, "webhook", True),
    ({"webhook": "file:///etc/passwd"}, "webhook", True),
    ({"webhook": "example.org/hook"}, "webhook", True),
    ({"webhook": "http://user:pw@example.org/hook"}, "webhook", True),
    ({"email": "not an address"}, "email", True),
    ({"email": "a@b.c\r\nBcc: x@y.z"}, "email", True),
    ({"webhook": "http://127.0.0.1:9/hook"}, "webhook", False),
    ({"webhook": "http://[::1]/hook"}, "webhook", False),
    ({"webhook": "http://169.254.169.254/latest/meta-data"}, "webhook", False),
])
def test_bad_notify_settings_are_refused_and_make_no_game(tmp_path: Path, notify: dict[str, str], field: str,
                                                          allow: bool) -> None:
    """Issue 16 bad input: a webhook that is not http(s), an e-mail that is no address, an
    internal address typed as such: a clear error (one error shape), and no game is made."""
    with kit.client(tmp_path, **fast(webhook_allow_private=allow)) as c:
        r = c.post("/api/games", json={"players": 2, "seats": [{"kind": "human", "notify": notify},
                                                                {"kind": "normal"}]})
        assert r.status_code == 400, r.text
        err = r.json()["error"]
        assert err["code"] == "bad_notify" and err["details"]["field"] == field
        assert err["message"]["en"] and err["message"]["de"] and err["message"]["en"] != err["message"]["de"]
        assert store_of(c).game_ids() == []


def test_a_bot_seat_cannot_be_notified(tmp_path: Path) -> None:
    with kit.client(tmp_path, **fast()) as c:
        r = c.post("/api/games", json={"players": 2, "seats": [
            {"kind": "human"}, {"kind": "normal", "notify": {"email": "bot@example.org"}}]})
        assert r.status_code == 400 and r.json()["error"]["details"]["field"] == "notify"


def test_unreachable_webhook_is_retried_with_backoff_and_logged(tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """Issue 16 bad input: an unreachable webhook — logged retries with growing delays, then
    given up; the game goes on."""
    caplog.set_level(logging.INFO, logger="rebirth.notify")
    url = closed_port_url()
    with kit.client(tmp_path, **fast(notify_attempts=4)) as c:
        g = kit.new_game(c, players=2, seats=[{"kind": "human", "notify": {"webhook": url}},
                                              {"kind": "human", "notify": {"webhook": url}}])
        store = store_of(c)
        box = Outbox(store)
        assert wait_for(lambda: [r["done"] for r in box.rows(g["game"])] == ["failed"], timeout=15)
        row = box.rows(g["game"])[0]
        assert row["attempts"] == 4 and "Connection" in str(row["last_error"])
    retries = [r for r in caplog.records if "retry in" in r.getMessage()]
    assert len(retries) == 3
    delays = [float(r.getMessage().split("retry in ")[1].split(" s")[0]) for r in retries]
    assert delays == sorted(delays) and delays[-1] > delays[0]  # exponential backoff
    assert any("given up after 4 attempts" in r.getMessage() for r in caplog.records)


def test_refusing_smtp_server_is_retried_and_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 16 bad input: an SMTP server that refuses — a logged retry, nothing delivered."""
    caplog.set_level(logging.WARNING, logger="rebirth.notify")
    with smtp_server(refuse=True) as smtp, kit.client(
            tmp_path, **fast(smtp_host="127.0.0.1", smtp_port=smtp.port, notify_attempts=3)) as c:
        g = kit.new_game(c, players=2, seats=[{"kind": "human", "notify": {"email": "a@example.org"}},
                                              {"kind": "human", "notify": {"email": "b@example.org"}}])
        box = Outbox(store_of(c))
        assert wait_for(lambda: [r["done"] for r in box.rows(g["game"])] == ["failed"], timeout=15)
        assert smtp.handler.refused == 3 and smtp.box == []
        assert "SMTPRecipientsRefused" in str(box.rows(g["game"])[0]["last_error"])
    assert sum("retry in" in r.getMessage() for r in caplog.records) == 2


def test_email_only_when_smtp_is_configured(tmp_path: Path) -> None:
    """Without ``REBIRTH_SMTP_HOST`` no e-mail is queued (and the page is told)."""
    with receiver() as rec, kit.client(tmp_path, **fast()) as c:
        g = kit.new_game(c, players=2, seats=[
            {"kind": "human", "notify": {"webhook": rec.url("/a"), "email": "a@example.org"}},
            {"kind": "human", "notify": {"webhook": rec.url("/a"), "email": "b@example.org"}}])
        tok = kit.claim(c, g["links"]["seats"][0]["url"])
        assert c.get(f"/api/games/{g['game']}/notify",
                     headers={"Authorization": f"Bearer {tok}"}).json()["email_available"] is False
        assert wait_for(lambda: len(rec.hits) == 1)
        assert [r["channel"] for r in Outbox(store_of(c)).rows(g["game"])] == ["webhook"]


def test_a_blackholed_webhook_delays_no_move(tmp_path: Path) -> None:
    """Issue 16: "no move lost or delayed by a notification" — both seats' webhooks never
    answer (each delivery hangs until its timeout); the moves' latency stays that of a game
    without notifications, and every move is stored. Moves come 0.2 s apart (a person's
    pace is seconds); back to back, a move may wait for the previous turn's outbox write (one
    SQLite fsync), which the figures printed show as well."""
    def latencies(hook: str | None, pause: float) -> list[float]:
        sub = tmp_path / f"{'hole' if hook else 'plain'}-{pause}"
        sub.mkdir()
        # Production waits (a look every 2 s, retries after 5 s): what a real server does.
        with kit.client(sub, **fast(webhook_timeout=3.0, notify_interval=2.0, notify_retry_s=5.0)) as c:
            seats: list[dict[str, Any]] = [{"kind": "human"}, {"kind": "human"}]
            if hook:
                for s in seats:
                    s["notify"] = {"webhook": hook}
            g = kit.new_game(c, players=2, seats=seats)
            toks = kit.seat_tokens(c, g)
            with players(c, g["game"], toks) as ps:
                took = []
                for _ in range(16):
                    time.sleep(pause)
                    took.append(step(ps))
                version = ps[0].version
            row = store_of(c).game(g["game"])
            assert row is not None and row.version == version  # nothing lost
            if hook:
                rows = Outbox(store_of(c)).rows(g["game"])
                # Hanging or waiting for a retry; the turns already over are dropped unsent.
                assert rows and {r["done"] for r in rows} <= {None, "dropped"}
                assert any(r["done"] is None for r in rows)
            return took

    def ms(xs: list[float]) -> str:
        return f"median {statistics.median(xs) * 1000:.1f} ms, max {max(xs) * 1000:.1f} ms"

    with blackhole() as hole:
        slow = latencies(hole, 0.2)
        rushed = latencies(hole, 0.0)
    plain = latencies(None, 0.2)
    plain_rushed = latencies(None, 0.0)
    med_slow, med_plain = statistics.median(slow), statistics.median(plain)
    print(f"move latency, moves 0.2 s apart: blackholed webhook {ms(slow)}; no notifications {ms(plain)}."
          f" Back to back: blackholed {ms(rushed)}; none {ms(plain_rushed)}")
    assert max(slow) < 1.0  # a hanging delivery (3 s timeout) is never waited for
    assert med_slow < med_plain * 3 + 0.05


def test_my_games_lists_whose_turn_newest_move_first(tmp_path: Path) -> None:
    """Issue 16 item 2: "My games" — the games of the links a browser holds, whose turn it is,
    newest move first, from tokens in the POST body; unknown tokens answer "gone"."""
    with kit.client(tmp_path, **fast()) as c:
        a = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        b = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        ta = kit.seat_tokens(c, a)
        tb = kit.seat_tokens(c, b)
        with players(c, a["game"], ta) as ps:
            step(ps)
            step(ps)
            turn_a = ps[0].view["current_player"]
        r = c.post("/api/my-games", json={"tokens": [tb[0], ta[turn_a], "no-such-token"]})
        assert r.status_code == 200
        out = r.json()["games"]
        assert [g.get("game") for g in out] == [a["game"], b["game"], None]
        assert out[0]["i"] == 1 and out[0]["seat"] == turn_a and out[0]["your_turn"] is True
        assert out[0]["to_move"] == turn_a and out[0]["version"] >= 2
        assert out[1]["i"] == 0 and out[2] == {"i": 2, "gone": True}
        text = r.text
        for t in ta + tb:
            assert t not in text  # tokens are never sent back
        too_many = c.post("/api/my-games", json={"tokens": ["x"] * 51})
        assert too_many.status_code == 400 and too_many.json()["error"]["code"] == "bad_message"


def test_a_restarted_server_enqueues_what_a_killed_writer_did_not(tmp_path: Path) -> None:
    """A writer killed between its commit and its enqueue: the restarted server re-checks whose
    turn it is when it loads the game and notifies that seat once (the outbox's key keeps a
    second load from adding it again)."""
    with receiver() as rec:
        with kit.client(tmp_path, **fast()) as c:
            g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
            gid = g["game"]
            to_move = c.get(f"/api/games/{gid}").json()
            with players(c, gid, kit.seat_tokens(c, g)) as ps:
                seat = ps[0].view["current_player"]
            # The channel appears in the database only (as if the enqueue after it was lost).
            link = f"http://testserver/game/{gid}?seat={seat}"
            Outbox(store_of(c)).subscribe(gid, seat, rec.url("/late"), None, link)
            assert Outbox(store_of(c)).rows(gid) == [] and to_move["status"] == "playing"
        for _ in range(2):
            with kit.client(tmp_path, **fast()) as c:
                assert wait_for(lambda: len(rec.on("/late")) == 1)
                time.sleep(0.2)
        assert len(rec.on("/late")) == 1
        assert json.loads(rec.hits[0].body)["url"] == link


def test_a_name_resolving_to_loopback_is_refused_at_delivery(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    """SSRF (issue 16 item 2): a webhook name is checked again when it is called, after
    resolution. A name that was public at registration (issue 24: judged there too) and
    resolves to loopback by delivery (DNS rebinding) sends nothing, the row fails at once (a
    refusal is not retried) and the refusal is logged."""
    caplog.set_level(logging.WARNING, logger="rebirth.notify")
    real = socket.getaddrinfo
    looked: list[str] = []

    def rebinding(host: Any, port: Any, *args: Any, **kw: Any) -> Any:
        if host != "hooks.rebinding.test":
            return real(host, port, *args, **kw)
        looked.append(host)
        # Public for the registration's lookup (one per seat), loopback afterwards.
        ip = "93.184.215.14" if len(looked) <= 2 else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    with receiver() as rec, kit.client(tmp_path, **fast(webhook_allow_private=False)) as c:
        hook = f"http://hooks.rebinding.test:{rec.port}/internal"
        g = kit.new_game(c, players=2, seats=[{"kind": "human", "notify": {"webhook": hook}},
                                              {"kind": "human", "notify": {"webhook": hook}}])
        box = Outbox(store_of(c))
        assert wait_for(lambda: [r["done"] for r in box.rows(g["game"])] == ["failed"])
        assert box.rows(g["game"])[0]["attempts"] == 1 and rec.hits == []
    assert len(looked) == 3
    assert any("refused" in r.getMessage() and "internal address" in r.getMessage() for r in caplog.records)


def test_my_games_and_channels_answers_hold_nothing_hidden(tmp_path: Path) -> None:
    """S-5 for the new answers: "my games" and a seat's channels carry no canary card, no
    seed, no other seat's channels."""
    with kit.client(tmp_path, game_factory=canary_factory, seed_factory=lambda: SEED_CANARY, **fast()) as c:
        g = kit.new_game(c, players=2, seats=[
            {"kind": "human", "notify": {"email": "a@example.org", "webhook": "https://a.example.org/h"}},
            {"kind": "human", "notify": {"email": "b@example.org"}}])
        toks = kit.seat_tokens(c, g)
        with players(c, g["game"], toks) as ps:
            for _ in range(4):
                step(ps)
        bodies = [c.post("/api/my-games", json={"tokens": toks}).text]
        bodies += [c.get(f"/api/games/{g['game']}/notify", headers={"Authorization": f"Bearer {t}"}).text
                   for t in toks]
        for b in bodies:
            assert "CANARY" not in b and not any(s in b for s in SEED_TEXTS)
        assert "a@example.org" not in bodies[2] and "a.example.org" not in bodies[2]
        assert "b@example.org" not in bodies[1] and "b@example.org" not in bodies[0]


def test_a_hanging_webhook_does_not_hold_up_other_notifications(tmp_path: Path) -> None:
    """A failing channel never blocks: while one game's webhooks hang (each until its 3 s
    timeout), another game's seat is told at once."""
    with blackhole() as hole, receiver() as rec, kit.client(tmp_path, **fast(webhook_timeout=3.0)) as c:
        stuck = kit.new_game(c, players=2, seats=[{"kind": "human", "notify": {"webhook": hole}},
                                                  {"kind": "human", "notify": {"webhook": hole}}])
        box = Outbox(store_of(c))
        assert wait_for(lambda: any(r["claimed_by"] for r in box.rows(stuck["game"])))  # hanging now
        start = time.monotonic()
        kit.new_game(c, players=2, seats=[{"kind": "human", "notify": {"webhook": rec.url("/ok")}},
                                          {"kind": "human", "notify": {"webhook": rec.url("/ok")}}])
        assert wait_for(lambda: len(rec.on("/ok")) == 1, timeout=2.5)
        assert time.monotonic() - start < 2.5
        assert [r["done"] for r in box.rows(stuck["game"])] == [None]  # still hanging


def test_a_turn_based_deadline_sends_one_reminder_to_the_seat_to_move(tmp_path: Path) -> None:
    """Issue 16 item 2 "Reminders before a turn-based deadline": with a turn clock the seat to
    move gets its turn notification at once and one reminder per threshold shorter than the move
    (``REBIRTH_REMINDERS``; here 2 s before an 8 s deadline); the seat not to move gets none."""
    per_move = 8
    with receiver() as rec, kit.client(tmp_path, **fast(min_clock_s=1, reminders="2,3600")) as c:
        g = kit.new_game(c, players=2, clock={"kind": "turn", "per_move_s": per_move},
                         seats=[{"kind": "human", "notify": {"webhook": rec.url("/s0")}},
                                {"kind": "human", "notify": {"webhook": rec.url("/s1")}}])
        gid = g["game"]
        start = time.monotonic()
        sync = None
        toks = kit.seat_tokens(c, g)
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            sync = kit.hello(ws, toks[0])
        mover = sync["view"]["current_player"]
        path, other = f"/s{mover}", f"/s{1 - mover}"
        deadline = start + per_move
        while time.monotonic() < deadline - 0.5 and len(rec.on(path)) < 2:
            time.sleep(0.05)
        kinds = [json.loads(h.body)["kind"] for h in rec.on(path)]
        assert kinds == ["turn", "reminder"], kinds
        got_at = time.monotonic() - start
        assert per_move * 0.75 - 1.0 <= got_at < per_move, got_at  # due 6 s into an 8 s move
        body = json.loads(rec.on(path)[1].body)
        assert body["url"].endswith(f"/game/{gid}?seat={mover}") and body["seat"] == mover
        assert all(json.loads(h.body)["kind"] != "reminder" for h in rec.on(other))


def test_a_reminder_for_a_turn_already_over_is_dropped(tmp_path: Path) -> None:
    """Issue 24 item 7: the seat to move plays its turn before its reminder is due; when the
    reminder's time comes it is dropped unsent (its row marked ``dropped``), not delivered."""
    per_move = 4
    with receiver() as rec, kit.client(tmp_path, **fast(min_clock_s=1, reminders="1")) as c:
        g = kit.new_game(c, players=2, clock={"kind": "turn", "per_move_s": per_move},
                         seats=[{"kind": "human", "notify": {"webhook": rec.url("/s0")}},
                                {"kind": "human", "notify": {"webhook": rec.url("/s1")}}])
        gid, toks = g["game"], kit.seat_tokens(c, g)
        with c.websocket_connect(f"/ws/games/{gid}") as w0, c.websocket_connect(f"/ws/games/{gid}") as w1:
            socks = {0: w0, 1: w1}
            syncs = {0: kit.hello(w0, toks[0]), 1: kit.hello(w1, toks[1])}
            mover = syncs[0]["view"]["current_player"]
            view = syncs[mover]["view"]
            # The mover plays its whole turn at once (a placement may ask for a mark too).
            while view["current_player"] == mover and view["phase"] != "end":
                socks[mover].send_json({"type": "act", "action": view["legal_actions"][0],
                                        "version": len(view["history"])})
                while (msg := socks[mover].receive_json())["type"] != "update":
                    assert msg["type"] != "error", msg
                view = msg["view"]
            # Past the mover's reminder time (3 s into a 4 s move).
            time.sleep(per_move * 0.75 + 1.0)
            path = f"/s{mover}"
            assert [json.loads(h.body)["kind"] for h in rec.on(path)] == ["turn"], rec.on(path)
            store = c.app.state.registry.store  # type: ignore[attr-defined]
            with store.engine.connect() as conn:
                rows = conn.execute(text("SELECT kind, done FROM notify_outbox WHERE game = :g "
                                         "AND seat = :s"), {"g": gid, "s": mover}).all()
            assert ("reminder-1", "dropped") in [(r[0], r[1]) for r in rows], rows
