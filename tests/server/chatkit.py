"""Helpers of the chat and rematch tests: play a game out over its sockets, read frames until
one of a kind arrives, keep every frame a socket received."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.testclient import WebSocketTestSession

from server import kit
from server.workerkit import recv


class Seat:
    """One socket with every frame it received (as text: what a canary scan reads)."""

    def __init__(self, ws: WebSocketTestSession) -> None:
        self.ws = ws
        self.frames: list[str] = []
        self.view: dict[str, Any] = {}
        self.version = -1
        self.seat: int | None = None

    def read(self) -> dict[str, Any]:
        """The next frame; fails after 30 s without one (a lost frame fails, never hangs)."""
        msg = recv(self.ws, 30.0)
        self.frames.append(json.dumps(msg))
        if "view" in msg:
            self.view, self.version = msg["view"], int(msg["version"])
        if msg["type"] == "sync":
            self.seat = msg["seat"]
        return msg

    def hello(self, tok: str) -> dict[str, Any]:
        """Say hello; returns the sync (its chat history frame follows)."""
        self.ws.send_json({"type": "hello", "token": tok, "since": -1})
        return self.until(lambda m: m["type"] == "sync")

    def until(self, done: Callable[[dict[str, Any]], bool], limit: int = 5000) -> dict[str, Any]:
        """Read until a frame for which ``done`` holds; returns it."""
        for _ in range(limit):
            msg = self.read()
            if done(msg):
                return msg
        raise AssertionError("the expected frame did not come")

    def history(self, after: int = 0) -> dict[str, Any]:
        """Ask for the chat after ``after`` (as a page does after each sync); returns the answer."""
        self.ws.send_json({"type": "chat_history", "after": after})
        return self.until(lambda m: m["type"] == "chat" and m.get("history") is True)

    def chat(self, text: str, **extra: Any) -> None:
        self.ws.send_json({"type": "chat", "text": text, **extra})

    def next_chat(self) -> dict[str, Any]:
        """The next chat frame or chat-related error."""
        return self.until(lambda m: m["type"] in ("chat", "error"))

    @property
    def blob(self) -> str:
        return "\n".join(self.frames)


def play_out(seats: dict[int, Seat]) -> None:
    """Play the game to its end: whichever seat is to move plays its first legal action (the
    others are bots); every socket reads what it is sent."""
    for _ in range(2000):
        for s in seats.values():
            while s.view == {} or (s.version < max(o.version for o in seats.values())):
                s.read()
        any_seat = next(iter(seats.values()))
        if any_seat.view["phase"] == "end":
            for s in seats.values():
                while s.view["phase"] != "end":
                    s.read()
            return
        p = any_seat.view["current_player"]
        if p in seats and seats[p].view["legal_actions"]:
            s = seats[p]
            old = s.version
            s.ws.send_json({"type": "act", "action": s.view["legal_actions"][0], "version": old})
            s.until(_moved_on(old, errors=True))
        else:
            # A bot is to move: wait for its step.
            old = any_seat.version
            any_seat.until(_moved_on(old))
    raise AssertionError("the game did not end")


def _moved_on(old: int, errors: bool = False) -> Callable[[dict[str, Any]], bool]:
    """A frame past version ``old`` (or, with ``errors``, a refusal)."""
    return lambda m: (errors and m["type"] == "error") or ("view" in m and int(m["version"]) > old)


def auth(tok: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {tok}"}


_CLAIMED: dict[str, dict[int, str]] = {}


def tokens(c: Any, g: dict[str, Any]) -> dict[int, str]:
    """The human seats' tokens of a create answer: each seat's invitation claimed once (issue
    15 item 7), as that seat's browser would; asked again, the same tokens."""
    if g["game"] not in _CLAIMED:
        _CLAIMED[g["game"]] = {s["seat"]: kit.claim(c, s["url"]) for s in g["links"]["seats"] if s["url"]}
    return _CLAIMED[g["game"]]
