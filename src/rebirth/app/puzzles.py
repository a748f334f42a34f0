"""Puzzles: made from game records, shipped as a validated data file, answered with the
engine's own score texts (``docs/puzzles.md``).

:func:`make_puzzles` walks complete records and keeps every placement where one move is best
by a clear margin in nearly every deal of the hidden information
(:mod:`rebirth.analysis.puzzles`); each kept position is stored as the seat's own view (its
hand, its own secret cards, public facts: nothing another seat hides), with the answer, the
compared candidates, the themes its answer turns on and a difficulty. :func:`load_puzzles`
reads and checks the file; :func:`answer` judges an answer and explains it.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from rebirth.analysis import puzzles as finder
from rebirth.bots.registry import make_bot
from rebirth.engine.actions import ActionError, parse_action
from rebirth.engine.board import SETTLEMENT, builtin_names
from rebirth.engine.determinize import ViewError, determinize, preview
from rebirth.engine.events import Event
from rebirth.engine.game import Game, Setup
from rebirth.engine.messages import UserError, render_message
from rebirth.engine.position import Position
from rebirth.engine.records import replay
from rebirth.engine.replay import ChanceEntry, LogEntry, entry_from_json, replay_log
from rebirth.engine.views import View

FORMAT = "rebirth-puzzles"
VERSION = 1
LEVELS = ("greedy", "normal", "hard")
"""The bot levels asked for the answer: each one that misses it makes the puzzle harder."""
RATING_BASE = 1000
RATING_PER_MISS = 300
"""A puzzle's rating: ``RATING_BASE + RATING_PER_MISS · misses`` (levels of :data:`LEVELS`
that do not find the answer) ``− 15 · min(lead, 10)`` (a large lead is easier to see)."""
CONFIRM_DEALS = 24
"""Deals of the second sample a puzzle must pass when it is made (CHECK_PLAYOUTS each)."""
CONFIRM_SHARE = 0.9
"""The share of the second sample's deals in which the answer must be best too: the same
margin above :data:`rebirth.analysis.puzzles.SHARE_MIN` as :data:`SHIP_SHARE`, so that a
puzzle kept only by one lucky sample does not reach the file the test re-checks."""
CHECK_DEALS = 32
CHECK_PLAYOUTS = 8
"""The test's re-check of every shipped puzzle: fresh deals of another seed (docs/puzzles.md)."""
SHIP_SHARE = 0.9
"""A puzzle is shipped only when its answer was best in this share of the deals it was made
on: a margin above the 80 % (:data:`rebirth.analysis.puzzles.SHARE_MIN`) that every re-check
asks, since a re-check on 32 deals is itself noisy (about ±6 points of share)."""
MESSAGE_KEYS = ("puzzle.correct", "puzzle.wrong", "puzzle.illegal", "puzzle.move",
                "puzzle.compare", "puzzle.not_compared", "puzzle.player", "analysis.nothing_now")
"""The catalog keys this module renders."""

_ID = re.compile(r"^[a-z0-9-]{1,40}$")
_RULE = re.compile(r"^[A-Z]-[0-9]{1,2}$")
_HEX = re.compile(r"^[A-Za-z]{1,2}[0-9]{1,2}$")


class PuzzleError(UserError):
    """A puzzle file, puzzle or answer that cannot be used: a catalog key plus arguments."""


@dataclass(frozen=True)
class Theme:
    """A theme: the rule ids it is about (docs/rules.md) and the event keys that turn it on."""

    id: str
    rules: tuple[str, ...]
    events: tuple[str, ...]


@dataclass(frozen=True)
class Candidate:
    """A compared move with its mean final margin and win chance over the deals."""

    action: str
    margin: float
    win: float


@dataclass(frozen=True)
class Puzzle:
    """One puzzle: ``view`` is the seat's own view (of its history only the last settlement
    placed in each district, which the position's last placers come from)."""

    id: str
    seat: int
    view: View
    best: str
    candidates: tuple[Candidate, ...]
    share: float
    lead: float
    deals: int
    themes: tuple[str, ...]
    found_by: tuple[str, ...]
    difficulty: int
    rating: int
    source: str

    @property
    def board(self) -> str:
        """The board id."""
        return self.view.board

    def game(self) -> Game:
        """The game the puzzle is a position of (cached per board, players and variants)."""
        return _game(self.view.board, self.view.players, self.view.variants)

    def candidate(self, action: str) -> Candidate | None:
        """The compared candidate ``action``, if it was one."""
        return next((c for c in self.candidates if c.action == action), None)

    def to_json(self) -> dict[str, Any]:
        """The stored form (the data file's entry)."""
        return {"id": self.id, "seat": self.seat, "view": self.view.to_json(), "best": self.best,
                "candidates": [{"action": c.action, "margin": round(c.margin, 2),
                                "win": round(c.win, 3)} for c in self.candidates],
                "share": round(self.share, 3), "lead": round(self.lead, 2), "deals": self.deals,
                "themes": list(self.themes), "found_by": list(self.found_by),
                "difficulty": self.difficulty, "rating": self.rating, "source": self.source}

    def public_json(self) -> dict[str, Any]:
        """What a solver is shown: the position, the seat, its hand tile and own secret cards,
        the legal spaces and the themes; never the answer, the figures or the source."""
        v = self.view
        return {
            "id": self.id, "position": Position.from_view(v).to_json(), "seat": self.seat,
            "themes": list(self.themes), "board": v.board, "players": v.players,
            "tile": v.hand, "missions": list(v.missions), "legal": list(v.legal_actions),
            "difficulty": self.difficulty, "rating": self.rating,
            # The board drawing's public facts (the game page's board reads these names).
            "board_view": {"spaces": [list(s) for s in v.spaces],
                           "castle_holders": list(v.castle_holders),
                           "cathedral_pieces": [list(p) for p in v.cathedral_pieces],
                           "tower_visits": [list(p) for p in v.tower_visits],
                           "scores": list(v.scores)},
        }


@dataclass(frozen=True)
class PuzzleSet:
    """The shipped puzzles and their themes, in file order."""

    themes: dict[str, Theme]
    puzzles: tuple[Puzzle, ...]

    def get(self, pid: str) -> Puzzle | None:
        """The puzzle ``pid``, if shipped."""
        return _index(self).get(pid)

    def daily(self, day: _dt.date) -> Puzzle:
        """The puzzle of ``day`` (UTC): the same for everyone, from the date alone."""
        h = int.from_bytes(hashlib.sha256(f"rebirth-daily:{day.isoformat()}".encode()).digest()[:8])
        return self.puzzles[h % len(self.puzzles)]

    def by_theme(self, theme: str | None) -> list[Puzzle]:
        """The puzzles of ``theme`` (None: all), easiest first, then by id."""
        out = [p for p in self.puzzles if theme is None or theme in p.themes]
        return sorted(out, key=lambda p: (p.rating, p.id))


_INDEXES: dict[int, dict[str, Puzzle]] = {}


def _index(ps: PuzzleSet) -> dict[str, Puzzle]:
    ix = _INDEXES.get(id(ps))
    if ix is None:
        ix = _INDEXES[id(ps)] = {p.id: p for p in ps.puzzles}
    return ix


@cache
def _game(board: str, players: int, variants: tuple[str, ...]) -> Game:
    return Game.create(board, players, variants)


# ------------------------------------------------------------------ views as JSON


def view_from_json(data: Any) -> View:
    """The inverse of ``View.to_json`` (lists become tuples); raises ValueError naming a
    missing or unknown field."""
    if not isinstance(data, dict):
        raise ValueError("a view must be an object")
    names = {f.name for f in fields(View)}
    missing = sorted(names - set(data))
    extra = sorted(set(data) - names)
    if missing or extra:
        raise ValueError(f"view fields missing {missing} or unknown {extra}")

    def tup(v: Any) -> Any:
        if isinstance(v, list):
            return tuple(tup(x) for x in v)
        if isinstance(v, dict):
            return {k: tup(x) for k, x in v.items()}
        return v

    return View(**{k: tup(v) for k, v in data.items()})


# ------------------------------------------------------------------ themes


def themes_of(events: Iterable[Event], themes: dict[str, Theme]) -> tuple[str, ...]:
    """The themes whose event keys occur among ``events`` (in the themes' order)."""
    keys = {e.key for e in events}
    return tuple(t.id for t in themes.values() if keys & set(t.events))


def explained_events(game: Game, view: View, action: str, salt: str) -> tuple[int, list[Event]]:
    """Points and events of ``action`` from the seat's view (the game page's preview: a
    determinization of the view, so nothing hidden is used), with a fixed random stream."""
    seat = view.seat
    assert seat is not None
    return preview(game, view, seat, action, random.Random(f"rebirth-puzzle:{salt}"))


# ------------------------------------------------------------------ making


def _views(record: Any) -> Iterable[tuple[int, Game, View]]:
    """(entry index, game, view of the seat to act) before every decision of ``record``."""
    final = replay(record)
    game = final.game
    sd = record.get("seed")
    state = game.from_setup(Setup.from_json(record["setup"]), seed=sd if isinstance(sd, int) else None)
    found: list[tuple[int, View]] = []

    def before(i: int, entry: LogEntry) -> None:
        if not isinstance(entry, ChanceEntry):
            found.append((i, state.view(entry.seat)))

    replay_log(state, [entry_from_json(e) for e in record["actions"]], before_step=before)
    for i, v in found:
        yield i, game, v


def difficulty_of(game: Game, view: View, best: str, lead: float,
                  seed: int) -> tuple[tuple[str, ...], int, int]:
    """Which :data:`LEVELS` find ``best`` (each asked once, seeded), the difficulty (1 + the
    levels that miss it) and the rating (:data:`RATING_PER_MISS`)."""
    seat = view.seat
    assert seat is not None
    found = tuple(lv for lv in LEVELS if make_bot(lv, game, seat, seed).choose(view) == best)
    misses = len(LEVELS) - len(found)
    rating = RATING_BASE + RATING_PER_MISS * misses - round(15 * min(lead, 10.0))
    return found, 1 + misses, rating


def make_puzzles(records: Sequence[tuple[str, Any]], themes: dict[str, Theme], *,
                 seed: int = 0, deals: int = finder.DEALS, playouts: int = finder.PLAYOUTS,
                 progress: Callable[[str, int, int], None] | None = None,
                 ) -> tuple[list[Puzzle], dict[str, int]]:
    """Puzzles from complete ``records`` (name, record JSON); also counts: ``scanned``
    (placements judged), ``clear`` (a clear best move), ``below_ship_share`` (best in fewer
    than :data:`SHIP_SHARE` of the deals), ``unconfirmed`` (not best in enough
    deals of a second sample), ``unthemed`` (an answer that turns on no theme) and ``kept``."""
    out: list[Puzzle] = []
    counts = {"records": 0, "scanned": 0, "clear": 0, "below_ship_share": 0, "unconfirmed": 0,
              "unthemed": 0, "kept": 0}
    for name, record in records:
        counts["records"] += 1
        stem = re.sub(r"[^a-z0-9-]", "-", Path(name).stem.lower())[:28]
        for i, game, view in _views(record):
            if view.phase != "place" or len(view.legal_action_ids) < finder.MIN_OPTIONS:
                continue
            counts["scanned"] += 1
            rng = random.Random(f"rebirth-puzzle-make:{seed}:{stem}:{i}")
            j = finder.find_puzzle(game, view, deals=deals, playouts=playouts, rng=rng)
            if progress is not None:
                progress(name, i, len(out))
            if j is None:
                continue
            counts["clear"] += 1
            # A second, independent sample must agree before a puzzle is kept (the shipped
            # file's test then checks a third one): borderline positions drop out here.
            if j.share < SHIP_SHARE:
                counts["below_ship_share"] += 1
                continue
            again = finder.recheck(game, view, j.best, list(j.candidates), deals=CONFIRM_DEALS,
                                   playouts=CHECK_PLAYOUTS, seed=f"confirm:{seed}:{stem}:{i}")
            if again.share < CONFIRM_SHARE or again.gap <= 0:
                counts["unconfirmed"] += 1
                continue
            best = game.codec.text(j.best)
            _, events = explained_events(game, view, best, f"{stem}-{i}")
            tags = themes_of(events, themes)
            if not tags:
                counts["unthemed"] += 1
                continue
            found, diff, rating = difficulty_of(game, view, best, j.gap, seed)
            cands = tuple(Candidate(e.action or "", e.margin, e.win)
                          for e in sorted(j.estimates, key=lambda e: -e.margin))
            out.append(Puzzle(
                id=f"{stem}-{i}", seat=view.current_player,
                view=_strip(game, view), best=best, candidates=cands, share=j.share, lead=j.gap,
                deals=j.deals, themes=tags, found_by=found, difficulty=diff, rating=rating,
                source=f"{Path(name).name}#{i}"))
            counts["kept"] += 1
    return out, counts


def _strip(game: Game, view: View) -> View:
    """The view with only the history entries a position is derived from: the last
    settlement placed in each district (its last placer: T-3, T-4, T-7). The rest is public
    but long, and no rule reads it: puzzles stay small without it."""
    b = game.board
    keep: dict[int, int] = {}
    for k, e in enumerate(view.history):
        h = b.by_label.get(str(e.get("action"))) if "seat" in e else None
        if h is not None and b.spaces[h].kind == SETTLEMENT and b.spaces[h].district >= 0:
            keep[b.spaces[h].district] = k
    return replace(view, history=tuple(view.history[k] for k in sorted(keep.values())))


def puzzles_json(puzzles: Sequence[Puzzle]) -> dict[str, Any]:
    """The data file's content."""
    return {"format": FORMAT, "version": VERSION,
            "settings": {"deals": finder.DEALS, "playouts": finder.PLAYOUTS,
                         "margin_min": finder.MARGIN_MIN, "z_min": finder.Z_MIN,
                         "share_min": finder.SHARE_MIN, "top_k": finder.TOP_K},
            "puzzles": [p.to_json() for p in puzzles]}


def write_puzzles(path: Path, data: dict[str, Any]) -> None:
    """One puzzle per line: a reviewable diff, a small file."""
    head = {k: v for k, v in data.items() if k != "puzzles"}
    lines = json.dumps(head, indent=1)[:-2] + ',\n "puzzles": [\n'
    lines += ",\n".join(json.dumps(p, separators=(",", ":")) for p in data["puzzles"])
    lines += "\n ]\n}\n"
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(lines, encoding="utf-8")
    tmp.replace(path)


# ------------------------------------------------------------------ loading


def _bad(where: str, what: str) -> PuzzleError:
    return PuzzleError("error.puzzles.bad", where=where, what=what)


def parse_themes(data: Any) -> dict[str, Theme]:
    """The ``themes`` object of a puzzle file."""
    if not isinstance(data, dict) or not data:
        raise _bad("themes", "must be a non-empty object")
    out = {}
    for tid, t in data.items():
        if not (isinstance(tid, str) and _ID.match(tid.replace("_", "-"))) or not isinstance(t, dict):
            raise _bad(f"themes.{tid}", "must be an id with an object")
        rules, events = t.get("rules"), t.get("events")
        if not (isinstance(rules, list) and rules
                and all(isinstance(r, str) and _RULE.match(r) for r in rules)):
            raise _bad(f"themes.{tid}.rules", "must be rule ids like C-1")
        if not (isinstance(events, list) and events and all(isinstance(e, str) for e in events)):
            raise _bad(f"themes.{tid}.events", "must be event keys")
        out[tid] = Theme(tid, tuple(rules), tuple(events))
    return out


def parse_puzzle(p: Any, themes: dict[str, Theme], where: str) -> Puzzle:
    """One entry of ``puzzles``, checked against the rules engine (its view must be a real
    position of its board, its answer and candidates legal there)."""
    if not isinstance(p, dict):
        raise _bad(where, "must be an object")
    pid = p.get("id")
    if not isinstance(pid, str) or not _ID.match(pid):
        raise _bad(f"{where}.id", "must be lower-case letters, digits and dashes")
    where = f"puzzle {pid}"

    def need(key: str, kind: type | tuple[type, ...]) -> Any:
        v = p.get(key)
        if not isinstance(v, kind) or isinstance(v, bool):
            raise _bad(f"{where}.{key}", "missing or of the wrong type")
        return v

    try:
        view = view_from_json(p.get("view"))
    except (ValueError, TypeError) as exc:
        raise _bad(f"{where}.view", str(exc)) from None
    if view.board not in builtin_names():
        raise _bad(f"{where}.view.board", f"unknown board {view.board!r}")
    seat = need("seat", int)
    if view.seat != seat or view.current_player != seat or view.phase != "place" or not view.hand:
        raise _bad(f"{where}.view", "must be the view of the seat to place, with its hand tile")
    try:
        game = _game(view.board, view.players, view.variants)
        state = determinize(game, view, random.Random(0))
    except (ViewError, UserError, ValueError) as exc:
        raise _bad(f"{where}.view", str(exc)) from None
    legal = tuple(sorted(state.legal_action_ids()))
    texts = tuple(game.codec.text(a) for a in legal)
    if legal != tuple(view.legal_action_ids) or texts != tuple(view.legal_actions):
        raise _bad(f"{where}.view.legal_actions", "do not match the position")
    best = need("best", str)
    cands = need("candidates", list)
    parsed = []
    for c in cands:
        if not (isinstance(c, dict) and isinstance(c.get("action"), str)
                and isinstance(c.get("margin"), int | float) and isinstance(c.get("win"), int | float)):
            raise _bad(f"{where}.candidates", "each needs action, margin and win")
        if c["action"] not in view.legal_actions:
            raise _bad(f"{where}.candidates", f"{c['action']} is not legal")
        parsed.append(Candidate(c["action"], float(c["margin"]), float(c["win"])))
    if best not in {c.action for c in parsed} or len(parsed) < 2:
        raise _bad(f"{where}.best", "must be one of two or more candidates")
    tags = need("themes", list)
    if not tags or any(t not in themes for t in tags):
        raise _bad(f"{where}.themes", f"must be some of {', '.join(themes)}")
    found = need("found_by", list)
    if any(x not in LEVELS for x in found):
        raise _bad(f"{where}.found_by", f"must be some of {', '.join(LEVELS)}")
    difficulty = need("difficulty", int)
    if not 1 <= difficulty <= len(LEVELS) + 1:
        raise _bad(f"{where}.difficulty", f"must be 1..{len(LEVELS) + 1}")
    share = need("share", (int, float))
    if not SHIP_SHARE <= share <= 1:
        raise _bad(f"{where}.share", f"must be {SHIP_SHARE}..1")
    return Puzzle(id=pid, seat=seat, view=view, best=best, candidates=tuple(parsed),
                  share=float(share), lead=float(need("lead", (int, float))),
                  deals=need("deals", int), themes=tuple(tags), found_by=tuple(found),
                  difficulty=difficulty, rating=need("rating", int), source=need("source", str))


def parse_puzzles(data: Any, themes: dict[str, Theme]) -> PuzzleSet:
    """A whole puzzle file's JSON, checked (its themes must be those of ``themes``)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
        raise _bad("format", f"must be {FORMAT!r} version {VERSION}")
    raw = data.get("puzzles")
    if not isinstance(raw, list) or not raw:
        raise _bad("puzzles", "must be a non-empty list")
    out = [parse_puzzle(p, themes, f"puzzles[{k}]") for k, p in enumerate(raw)]
    seen: set[str] = set()
    for p in out:
        if p.id in seen:
            raise _bad(f"puzzle {p.id}", "id used twice")
        seen.add(p.id)
    return PuzzleSet(themes, tuple(out))


def shipped_path(name: str = "puzzles.json") -> Path:
    """A shipped file of ``data/puzzles`` (``puzzles.json``, ``themes.json``)."""
    return Path(str(files("rebirth").joinpath(f"data/puzzles/{name}")))


def _read(p: Path) -> Any:
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PuzzleError("error.puzzles.file", path=str(p), why=exc.strerror or str(exc)) from None
    except json.JSONDecodeError as exc:
        raise PuzzleError("error.puzzles.file", path=str(p), why=f"not JSON ({exc})") from None


def load_themes(path: Path | None = None) -> dict[str, Theme]:
    """The theme table (default: the shipped ``themes.json``, the one place that maps a theme
    to its rule ids and the events that turn it on)."""
    data = _read(shipped_path("themes.json") if path is None else path)
    if not isinstance(data, dict) or data.get("format") != "rebirth-puzzle-themes":
        raise _bad("format", "must be 'rebirth-puzzle-themes'")
    return parse_themes(data.get("themes"))


def load_puzzles(path: Path | None = None, themes: dict[str, Theme] | None = None) -> PuzzleSet:
    """Read and check a puzzle file (default: the shipped one, with the shipped themes);
    :class:`PuzzleError` says what is wrong and where."""
    p = shipped_path() if path is None else path
    return parse_puzzles(_read(p), load_themes() if themes is None else themes)


@cache
def shipped() -> PuzzleSet:
    """The shipped puzzles, read once per process."""
    return load_puzzles()




# ------------------------------------------------------------------ answering


@dataclass(frozen=True)
class Answer:
    """The verdict on an answer and its explanation in one language."""

    correct: bool
    best: str
    explanation: str

    def to_json(self) -> dict[str, Any]:
        """``{"correct", "best", "explanation"}``."""
        return {"correct": self.correct, "best": self.best, "explanation": self.explanation}


def _names(n: int, lang: str) -> list[str]:
    return [render_message("puzzle.player", {"n": q + 1}, lang, ()) for q in range(n)]


def _move_text(puzzle: Puzzle, action: str, lang: str, names: Sequence[str]) -> str:
    points, events = explained_events(puzzle.game(), puzzle.view, action, puzzle.id)
    effects = " ".join(e.render(lang, names) for e in events if e.kind != "place") \
        or render_message("analysis.nothing_now", {}, lang, names)
    return render_message("puzzle.move", {"action": action, "points": f"{points:+d}",
                                          "effects": effects}, lang, names)


def answer(puzzle: Puzzle, action: Any, lang: str = "en") -> Answer:
    """Judge ``action`` (any value: only the best move's text is right) and explain it with
    the engine's own score texts; an illegal or unreadable answer gets the rule it breaks."""
    names = _names(puzzle.view.players, lang)
    best = puzzle.best
    bc = puzzle.candidate(best)
    assert bc is not None
    text = action.strip() if isinstance(action, str) and len(action) <= 40 else None
    if text is not None and _HEX.match(text):
        text = text.upper()  # "j13" is J13; anything else is judged as typed
    parts: list[str] = []
    try:
        if text is None:
            raise PuzzleError("error.puzzles.unreadable")
        parse_action(text)
        if text not in puzzle.view.legal_actions:
            # The engine's own refusal names the rule (P-2...P-4, an occupied hex, ...).
            explained_events(puzzle.game(), puzzle.view, text, puzzle.id)
            raise PuzzleError("error.puzzles.not_legal", action=text)
    except (ActionError, PuzzleError) as exc:
        shown = text if text is not None else "?"
        parts.append(render_message("puzzle.illegal", {"action": shown, "reason": exc.text(lang)},
                                    lang, names))
        parts.append(render_message("puzzle.wrong", {"best": best}, lang, names))
        parts.append(_move_text(puzzle, best, lang, names))
        return Answer(False, best, " ".join(parts))
    correct = text == best
    if correct:
        parts.append(render_message("puzzle.correct", {"best": best}, lang, names))
        parts.append(_move_text(puzzle, best, lang, names))
        other = next(c for c in puzzle.candidates if c.action != best)
    else:
        parts.append(render_message("puzzle.wrong", {"best": best}, lang, names))
        parts.append(_move_text(puzzle, best, lang, names))
        parts.append(_move_text(puzzle, text, lang, names))
        found = puzzle.candidate(text)
        other = found if found is not None else next(c for c in puzzle.candidates if c.action != best)
        if found is None:
            parts.append(render_message("puzzle.not_compared", {
                "action": text, "candidates": ", ".join(c.action for c in puzzle.candidates)},
                lang, names))
    parts.append(render_message("puzzle.compare", {
        "deals": puzzle.deals, "best": best, "best_margin": f"{bc.margin:+.1f}",
        "other": other.action, "other_margin": f"{other.margin:+.1f}",
        "share": f"{100 * puzzle.share:.0f}"}, lang, names))
    return Answer(correct, best, " ".join(parts))
