"""Fuzzing the record and map loaders: seeded mutations of real records and maps.

Every input must end in a clear error (RecordError, MapError, SetupError or
DataError with a message) or a valid result: never another exception, never
more than a few seconds. ``REBIRTH_FUZZ_SCALE=10`` runs ten times as many.
"""

from __future__ import annotations

import copy
import json
import os
import random
import signal
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from rebirth.cli.maps import play_checks
from rebirth.engine.board import MapError, decode_map, parse_board
from rebirth.engine.game import SetupError
from rebirth.engine.missions import DataError
from rebirth.engine.records import RecordError, load_record, replay
from recordkit import game_record, ireland_record_with_chance, map_json

SCALE = int(os.environ.get("REBIRTH_FUZZ_SCALE", "1"))
RECORDS = 1000 * SCALE
MAPS = 500 * SCALE
TIME_LIMIT = 5.0  # seconds per input: "a few seconds", far above the ~10 ms a load takes


def _deep(n: int) -> Any:
    v: Any = []
    for _ in range(n):
        v = [v]
    return v


ODD_VALUES: list[Any] = [
    True, False, None, 0, -1, 1, 2, 3, 4, 7, 1.0, 0.5, -0.0, 1e308, 2**31, 2**64, 10**39, 10**40,
    "", "x", "1", "S9", "E", "reveal S2", "reveal NOT-A-TILE", "mark I03", "[/]", "../../etc",
    "/dev/zero", "scotland", "ireland", "\u202e\u0000", "\ud800", "ß" * 300, "a" * 5000,
    [], [1, 2], ["S1"], [[]], {}, {"a": 1}, {"en": "x", "de": "y"}, _deep(30), _deep(60),
]


class Hang(Exception):
    """An input took longer than TIME_LIMIT."""


@dataclass
class Tally:
    tried: int = 0
    clear: int = 0
    valid: int = 0
    hangs: int = 0
    tracebacks: list[str] = field(default_factory=list)

    def line(self, what: str) -> str:
        return (f"{what}: {self.tried} inputs, {self.clear} clear errors, {self.valid} valid, "
                f"{len(self.tracebacks)} tracebacks, {self.hangs} hangs")


def _paths(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*path, i))


def _mutate_tree(doc: Any, rng: random.Random) -> Any:
    paths = list(_paths(doc))[1:]
    path = rng.choice(paths)
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    old = parent[key]
    op = rng.randrange(9)
    if op == 0:  # delete
        del parent[key]
    elif op == 1:  # insert a key or an item next to it
        if isinstance(parent, dict):
            parent[rng.choice(["extra", "winner", "colour", str(key) + "s", "seat", "chance"])] = (
                rng.choice(ODD_VALUES))
        else:
            parent.insert(key, rng.choice([copy.deepcopy(old), rng.choice(ODD_VALUES)]))
    elif op == 2 and isinstance(parent, list) and len(parent) > 1:  # swap two items
        j = rng.randrange(len(parent))
        parent[key], parent[j] = parent[j], parent[key]
    elif op == 3 and isinstance(old, int) and not isinstance(old, bool):  # numbers nearby and far
        parent[key] = rng.choice([old + 1, old - 1, -old, old * 10**rng.randrange(1, 40), float(old),
                                  bool(old % 2)])
    elif op == 4 and isinstance(old, str):  # strings edited
        parent[key] = rng.choice([old.lower(), old + "x", old[:-1], old * 3, old + "\u0301", " " + old,
                                  old.replace("S", "s")])
    elif op == 5:  # a value of the same kind from elsewhere in the document
        other = rng.choice(paths)
        node = doc
        try:
            for k in other:
                node = node[k]
        except (KeyError, IndexError, TypeError):
            node = None
        parent[key] = copy.deepcopy(node)
    else:  # type swap
        parent[key] = copy.deepcopy(rng.choice(ODD_VALUES))
    return doc


def _mutate_bytes(raw: bytes, rng: random.Random) -> bytes:
    op = rng.randrange(7)
    b = bytearray(raw)
    if op == 0:  # bit flips
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
    elif op == 1:  # truncation
        del b[rng.randrange(len(b)):]
    elif op == 2:  # invalid UTF-8
        i = rng.randrange(len(b))
        b[i:i] = rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"])
    elif op == 3:  # deep nesting
        n = rng.choice([40, 1000, 100_000])
        return b"[" * n + raw + b"]" * n
    elif op == 4:  # a huge number in place of a small one
        text = raw.decode("utf-8", "surrogatepass")
        i = text.find(": 1")
        if i >= 0:
            text = text[:i + 2] + "9" * rng.choice([161, 5000, 100_000]) + text[i + 3:]
        return text.encode("utf-8", "surrogatepass")
    elif op == 5:  # NaN, Infinity, a byte-order mark, a lone surrogate escape
        text = raw.decode("utf-8", "surrogatepass")
        i = text.find(": 0")
        text = text[:i + 2] + rng.choice(["NaN", "Infinity", "-Infinity", '"\\ud800"']) + text[i + 3:]
        return rng.choice([b"", b"\xef\xbb\xbf"]) + text.encode("utf-8", "surrogatepass")
    else:  # a random slice repeated
        i = rng.randrange(len(b))
        b[i:i] = b[i:i + rng.randrange(1, 200)] * rng.randint(1, 50)
    return bytes(b)


def _inputs(bases: list[Any], n: int, seed: int) -> Iterator[bytes]:
    rng = random.Random(seed)
    for k in range(n):
        doc = copy.deepcopy(bases[k % len(bases)])
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            if doc is None or not isinstance(doc, dict | list) or not list(_paths(doc))[1:]:
                break
            doc = _mutate_tree(doc, rng)
        raw = json.dumps(doc, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
        if rng.random() < 0.3:
            raw = _mutate_bytes(raw, rng)
        yield raw


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang


def _run(inputs: Iterator[bytes], load: Callable[[bytes], Any],
         clear: tuple[type[Exception], ...]) -> Tally:
    tally = Tally()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        for raw in inputs:
            tally.tried += 1
            start = time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
            try:
                load(raw)
                tally.valid += 1
            except Hang:
                tally.hangs += 1
            except clear as exc:
                if str(exc):
                    tally.clear += 1
                else:  # pragma: no cover - reported below
                    tally.tracebacks.append(f"empty message: {exc!r}")
            except Exception:  # everything else is what this test exists to find
                tally.tracebacks.append(traceback.format_exc(limit=4) + f"\ninput: {raw[:300]!r}")
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if time.perf_counter() - start > TIME_LIMIT:  # pragma: no cover
                tally.hangs += 1
    finally:
        signal.signal(signal.SIGALRM, previous)
    return tally


def _load_record(raw: bytes) -> Any:
    return replay(load_record(raw))


def _load_map(raw: bytes) -> Any:
    board = parse_board(decode_map(raw))
    # What play, bench and arena do next (as `maps check` runs it): the cards and
    # tokens that go with the map, a random game per player count, the rendering.
    return play_checks(board)


def test_fuzz_records() -> None:
    bases = [game_record(b, n, seed) for b in ("scotland", "ireland") for n in (2, 3, 4)
             for seed in (1, 2)]
    bases += [ireland_record_with_chance(), game_record("scotland", 3, 4, stop_after=30),
              game_record("ireland", 4, 4, stop_after=25)]
    tally = _run(_inputs(bases, RECORDS, seed=2026), _load_record, (RecordError,))
    print(tally.line("records"))
    assert tally.tried == RECORDS
    assert not tally.tracebacks, tally.tracebacks[0]
    assert tally.hangs == 0
    # The mutations must reach both outcomes, or they test nothing.
    assert tally.clear > RECORDS // 2 and tally.valid > 0


def test_fuzz_maps() -> None:
    bases = [map_json("scotland"), map_json("ireland")]
    tally = _run(_inputs(bases, MAPS, seed=7), _load_map, (MapError, SetupError, DataError))
    print(tally.line("maps"))
    assert tally.tried == MAPS
    assert not tally.tracebacks, tally.tracebacks[0]
    assert tally.hangs == 0
    assert tally.clear > MAPS // 2 and tally.valid > 0
