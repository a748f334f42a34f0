"""One commit path (issue 24 item 1): every change to an online game or a table goes through
:meth:`rebirth.server.authority.kernel.Authority.commit` — proposed on a copy, written, accepted.

Two kinds of proof: a scan of the server's source for any other code that changes a match, a
state or an authority's value (and a planted second path that the scan must catch), and the
store made to fail mid-change for each kind of mover (a human, a bot, a clock's time-out, a seat
handed to a bot, a resign, a table entry): memory, database and every seat's view stay as they
were."""

from __future__ import annotations

import ast
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from pytest import MonkeyPatch
from sqlalchemy.exc import OperationalError
from starlette.testclient import WebSocketTestSession

from rebirth.server.persistence.store import Store
from rebirth.server.play.registry import Registry
from rebirth.server.play.session import Session
from server import kit

SERVER = Path(__file__).resolve().parents[2] / "src" / "rebirth" / "server"

MUTATORS = {"submit", "step_bot", "run_bots", "apply_chance", "_resolve_chance", "replay"}
"""Methods that change a match or a state in place."""
FIELDS = {"state", "seats", "bots", "steps", "match", "_value", "history"}
"""Attributes whose assignment (or item assignment) changes a match, a state or a value."""
ALLOWED = {
    # The kernel's swap: the one place a committed value is taken.
    ("authority/kernel.py", "Authority.__init__"),
    ("authority/kernel.py", "Authority.commit"),
    # A table entry is tried by the engine on the copy it proposes (trial = state.clone()).
    ("tables/authority.py", "EntryChange.propose"),
}


def second_paths(root: Path) -> list[str]:
    """Every place under ``root`` that changes a match, a state or an authority's value outside
    the allowed ones: ``file:line function: what``."""
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for scope, node in _walk(tree):
            what = _change(node)
            if what is not None and (rel, scope) not in ALLOWED:
                found.append(f"{rel}:{getattr(node, 'lineno', 0)} {scope}: {what}")
    return found


def _walk(tree: ast.AST, scope: str = "") -> list[tuple[str, ast.AST]]:
    out: list[tuple[str, ast.AST]] = []
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            out.extend(_walk(child, f"{scope}.{child.name}" if scope else child.name))
        else:
            out.append((scope, child))
            out.extend((scope, n) for n in ast.walk(child) if n is not child)
    return out


def _change(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
        return f"calls .{node.func.attr}()"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "apply" \
            and not (isinstance(node.func.value, ast.Name) and node.func.value.id in {"st", "trial"}):
        return "calls .apply()"
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None:
        targets = [node.target]
    for t in targets:
        base = t.value if isinstance(t, ast.Subscript) else t
        if isinstance(base, ast.Attribute) and base.attr in FIELDS and not _is_init_self(base):
            return f"assigns .{base.attr}"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in {"append", "extend", "pop", "insert"} \
            and isinstance(node.func.value, ast.Attribute) \
            and node.func.value.attr in {"steps", "seats", "bots"}:
        return f"changes .{node.func.value.attr} in place"
    return None


def _is_init_self(node: ast.Attribute) -> bool:
    # ``self.x = ...`` builds an object's own fields; a match or state of another object is not.
    return isinstance(node.value, ast.Name) and node.value.id == "self" \
        and node.attr not in {"_value", "match", "state"}


def test_the_server_changes_a_match_only_through_the_commit_path() -> None:
    assert second_paths(SERVER) == []


def test_a_planted_second_path_is_caught(tmp_path: Path) -> None:
    planted = tmp_path / "server"
    planted.mkdir()
    (planted / "shortcut.py").write_text(
        "def hurry(session, action):\n"
        "    session.match.submit(0, action)  # a step that skips the write\n"
        "    session.match.seats[0] = None\n"
        "    session.authority._value = None\n", encoding="utf-8")
    found = second_paths(planted)
    assert [f.split(": ", 1)[1] for f in found] == ["calls .submit()", "assigns .seats", "assigns ._value"]


# ---------------------------------------------------------------------------------- the store fails


def registry(c: TestClient) -> Registry:
    r: Registry = c.app.state.registry  # type: ignore[attr-defined]
    return r


def quiet(ws: WebSocketTestSession) -> list[dict[str, Any]]:
    """The frames of a change the socket got before the answer to a ping (presence frames of
    the test's own sockets coming and going are not such)."""
    ws.send_json({"type": "ping"})
    got = []
    while (msg := ws.receive_json())["type"] != "pong":
        if msg["type"] != "presence":
            got.append(msg)
    return got


def unchanged(c: TestClient, gid: str, before: Any, syncs: dict[str, dict[str, Any]]) -> None:
    """Memory holds the same value, the database the same version, and every seat's new sync
    says what its sync said before."""
    s = registry(c).hubs[gid]
    assert s.value is before
    assert registry(c).store.versions([gid]) == {gid: before.version}
    row = registry(c).store.game(gid)
    assert row is not None and row.kinds == before.row.kinds
    for tok, old in syncs.items():
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            new = kit.hello(ws, tok)
        for key in ("version", "view", "events", "kinds"):
            assert new[key] == old[key], key


def failing(*_args: object, **_kw: object) -> None:
    raise OperationalError("INSERT", {}, Exception("disk I/O error"))


def test_a_human_step_the_store_refuses_changes_nothing(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, board="ireland", players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        gid, toks = g["game"], kit.seat_tokens(c, g)
        spectator = kit.token(g["links"]["spectator"])
        path = f"/ws/games/{gid}"
        with c.websocket_connect(path) as w0, c.websocket_connect(path) as w1, \
                c.websocket_connect(path) as ws:
            syncs = {t: kit.hello(w, t) for t, w in zip((*toks, spectator), (w0, w1, ws), strict=True)}
            p = syncs[toks[0]]["view"]["current_player"]
            mover, other = (w0, w1) if p == 0 else (w1, w0)
            before = registry(c).hubs[gid].value
            monkeypatch.setattr(Store, "append", failing)
            action = syncs[toks[p]]["view"]["legal_actions"][0]
            mover.send_json({"type": "act", "action": action, "version": 0})
            while (answer := mover.receive_json())["type"] == "presence":
                pass
            assert answer["type"] == "error" and answer["code"] == "server_error", answer
            assert quiet(other) == [] and quiet(ws) == []
            unchanged(c, gid, before, syncs)


def test_a_bot_step_the_store_refuses_changes_nothing(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    tried: list[int] = []

    def refuse(self: Store, game: str, steps: list[Any], *args: Any, **kw: Any) -> None:
        tried.append(len(steps))
        failing()

    monkeypatch.setattr(Store, "append", refuse)
    with kit.client(tmp_path, bot_retry_max=0.05) as c:
        g = kit.new_game(c, board="scotland", players=2, seats=[{"kind": "easy"}, {"kind": "easy"}])
        gid, spectator = g["game"], kit.token(g["links"]["spectator"])
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            sync = kit.hello(ws, spectator)
            deadline = time.monotonic() + 10
            while len(tried) < 3:  # the bot tries, is refused, tries again
                assert time.monotonic() < deadline
                time.sleep(0.02)
            before = registry(c).hubs[gid].value
            assert before.version == 0 and quiet(ws) == []
            unchanged(c, gid, before, {spectator: sync})


def test_a_time_out_the_store_refuses_changes_nothing(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    from rebirth.server.clocks import changes
    from rebirth.server.persistence import clocks as clockstore

    with kit.client(tmp_path) as c:
        g = kit.new_game(c, board="ireland", players=2, seats=[{"kind": "human"}, {"kind": "human"}],
                         clock={"kind": "realtime", "initial_s": 60, "increment_s": 0})
        gid, toks = g["game"], kit.seat_tokens(c, g)
        with c.websocket_connect(f"/ws/games/{gid}") as w0:
            syncs = {toks[0]: kit.hello(w0, toks[0])}
            s: Session = registry(c).hubs[gid]
            before = s.value
            monkeypatch.setattr(changes, "wall_time", lambda: time.time() + 3600)  # long past the deadline
            monkeypatch.setattr(clockstore, "change", failing)
            c.portal.call(s.clock.expire)  # type: ignore[union-attr]
            assert s.clock.timeouts == 0
            assert quiet(w0) == []
            monkeypatch.undo()
            unchanged(c, gid, before, syncs)
            s.clock.close()


def test_a_hand_over_the_store_refuses_changes_nothing(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, board="ireland", players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        gid, toks = g["game"], kit.seat_tokens(c, g)
        with c.websocket_connect(f"/ws/games/{gid}") as w0:
            syncs = {toks[0]: kit.hello(w0, toks[0])}
            before = registry(c).hubs[gid].value
            monkeypatch.setattr(Store, "set_kind", failing)
            r = c.post(f"/api/games/{gid}/seats/1/bot", headers={"Authorization": f"Bearer {toks[0]}"})
            assert r.status_code == 503 and r.json()["error"]["code"] == "server_error", r.text
            assert quiet(w0) == []
            unchanged(c, gid, before, syncs)


def test_a_resign_the_store_refuses_changes_nothing(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    """Issue 25 item 4: a resign is a mover of the commit path like the others: its write (the
    seat handed to a bot and its forfeit, one transaction) refused, nothing changed."""
    from rebirth.server.persistence import seatnotify

    with kit.client(tmp_path) as c:
        g = kit.new_game(c, board="ireland", players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        gid, toks = g["game"], kit.seat_tokens(c, g)
        with c.websocket_connect(f"/ws/games/{gid}") as w0, c.websocket_connect(f"/ws/games/{gid}") as w1:
            syncs = {toks[0]: kit.hello(w0, toks[0]), toks[1]: kit.hello(w1, toks[1])}
            before = registry(c).hubs[gid].value
            monkeypatch.setattr(seatnotify, "resign", failing)
            w0.send_json({"type": "resign"})
            while (answer := w0.receive_json())["type"] == "presence":
                pass
            assert answer["type"] == "error" and answer["code"] == "server_error", answer
            assert quiet(w1) == []
            assert seatnotify.forfeits_of(registry(c).store, gid) == {}
            unchanged(c, gid, before, syncs)


def test_a_table_entry_the_store_refuses_changes_nothing(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    with kit.client(tmp_path) as c:
        made = c.post("/api/tables", json={"board": "scotland", "players": 2, "names": ["Ailsa", "Bram"],
                                           "start_player": 0})
        assert made.status_code == 201, made.text
        tid, tok = made.json()["table"], made.json()["token"]
        auth = {"Authorization": f"Bearer {tok}"}
        first = c.get(f"/api/tables/{tid}", headers=auth).json()
        hub = c.app.state.tables.hubs[tid]  # type: ignore[attr-defined]
        before = hub.value
        hexes = first["legal"]["hexes"]
        label = next(iter(hexes))
        entry = f"{hexes[label][0]}@{label}"
        monkeypatch.setattr(Store, "append_table_entry", failing)
        r = c.post(f"/api/tables/{tid}/entries", headers=auth,
                   json={"entry": entry, "seat": first["seat"], "version": 0})
        assert r.status_code == 503 and r.json()["error"]["code"] == "server_error", r.text
        assert hub.value is before
        assert c.app.state.registry.store.table_steps(tid) == []  # type: ignore[attr-defined]
        monkeypatch.undo()
        assert c.get(f"/api/tables/{tid}", headers=auth).json() == first
