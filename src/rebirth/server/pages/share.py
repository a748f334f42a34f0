"""Sharing a game (issue 26 item 5): its public positions move by move, the board as a PNG,
the finished game as an animated GIF, cached per game version.

Every position here is a **spectator's** view (``infoset.view(state, None)``), rebuilt by the
one replay (:func:`rebirth.engine.replay.replay_log`) from the game's setup and log: the
replay needs the hidden setup, but only public views come out of it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from rebirth.app.match import Match
from rebirth.engine import infoset
from rebirth.engine.replay import ActionEntry, LogEntry, log_of, replay_log
from rebirth.engine.state import State
from rebirth.server.pages import picture


@dataclass(frozen=True)
class Positions:
    """A game's public positions: ``views[k]`` after ``k`` moves (``views[0]``: the deal),
    each after the chance outcomes that followed its move; ``versions[k]`` its game version."""

    board: str
    names: tuple[str, ...]
    version: int
    over: bool
    views: tuple[dict[str, Any], ...]
    versions: tuple[int, ...]

    @property
    def moves(self) -> int:
        """Moves made so far (seats' actions)."""
        return len(self.views) - 1


def positions(match: Match) -> Positions:
    """Replay ``match`` (a copy of its setup and log) into its public positions."""
    st = match.state
    fresh: State = match.game.from_setup(st.setup, seed=match.seed)
    log: list[LogEntry] = log_of(st)
    views: list[dict[str, Any]] = []
    versions: list[int] = []

    def before(i: int, entry: LogEntry) -> None:
        # A move starts here: the position before it is the last one's complete result.
        if isinstance(entry, ActionEntry):
            views.append(infoset.view(fresh, None).to_json())
            versions.append(i)

    replay_log(fresh, log, before_step=before)
    views.append(infoset.view(fresh, None).to_json())
    versions.append(len(log))
    return Positions(match.game.board.id, tuple(match.names), match.version, st.is_terminal(),
                     tuple(views), tuple(versions))


class Pictures:
    """The pictures of one server process: PNGs per (game, version), GIFs per finished game
    (LRU), drawn in a worker thread one at a time (rasterising is CPU work; games go on)."""

    PNGS = 64
    GIFS = 8
    GAMES = 64

    def __init__(self) -> None:
        self.positions: OrderedDict[str, Positions] = OrderedDict()
        self.pngs: OrderedDict[tuple[str, int, str], bytes] = OrderedDict()
        self.gifs: OrderedDict[tuple[str, int, str], bytes] = OrderedDict()
        self.busy = asyncio.Semaphore(1)

    def keep_positions(self, game: str, pos: Positions) -> None:
        """Remember the latest positions of ``game`` (a bounded number of games)."""
        self.positions[game] = pos
        self.positions.move_to_end(game)
        while len(self.positions) > self.GAMES:
            self.positions.popitem(last=False)

    async def png(self, game: str, pos: Positions, index: int, caption: str) -> bytes:
        """The PNG of position ``index`` of ``pos``."""
        key = (game, pos.versions[index], caption)
        if key not in self.pngs:
            async with self.busy:
                if key not in self.pngs:
                    svg = picture.board_svg(pos.board, pos.views[index], pos.names, caption=caption)
                    self.pngs[key] = await asyncio.to_thread(picture.png, svg)
            while len(self.pngs) > self.PNGS:
                self.pngs.popitem(last=False)
        self.pngs.move_to_end(key)
        return self.pngs[key]

    async def gif(self, game: str, pos: Positions, captions: list[str], lang: str) -> bytes:
        """The GIF of a finished game, a frame per move."""
        key = (game, pos.version, lang)
        if key not in self.gifs:
            async with self.busy:
                if key not in self.gifs:
                    self.gifs[key] = await asyncio.to_thread(
                        picture.gif, pos.board, pos.views, pos.names, captions)
            while len(self.gifs) > self.GIFS:
                self.gifs.popitem(last=False)
        self.gifs.move_to_end(key)
        return self.gifs[key]


__all__ = ["Pictures", "Positions", "positions"]
