"""Perft-style regression: legal-action counts along fixed seeded games.

The counts live in tests/data/perft.json. After a deliberate rules or map
change, regenerate with ``REBIRTH_REGEN_PERFT=1 pytest tests/engine/test_perft.py``:
it prints what changed (case by case) and refuses to run where ``CI`` is set, so
a snapshot is only ever rewritten by hand and reviewed.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from rebirth.engine.board import builtin_board
from rebirth.engine.game import Game

DATA = Path(__file__).parent.parent / "data" / "perft.json"
CASES = [(b, n, seed) for b in ("scotland", "ireland") for n in (2, 3, 4) for seed in (7, 8)]


class RegenRefused(RuntimeError):
    """Regenerating the snapshot was asked for where it must not happen (CI)."""


def trace(board: str, players: int, seed: int) -> dict[str, Any]:
    """Counts of legal actions at every decision, choosing by a seeded RNG over sorted ids."""
    game = Game.create(builtin_board(board), players)
    state = game.new_state(seed)
    rng = random.Random(seed)
    counts: list[int] = []
    while not state.is_terminal():
        if state.is_chance_node():
            # Chance (I-7) is resolved as the authority does, from the game's own RNG.
            state.apply_id(state.sample_chance(state.rng))
            continue
        ids = sorted(state.legal_action_ids())
        counts.append(len(ids))
        state.apply_id(ids[int(rng.random() * len(ids))])
    return {"counts": counts, "scores": state.score, "winners": state.winners}


def key(board: str, players: int, seed: int) -> str:
    return f"{board}/{players}/{seed}"


def perft_diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Readable lines saying how ``new`` differs from ``old``; [] when they are equal."""
    out: list[str] = []
    for k in sorted(set(old) | set(new)):
        if k not in old:
            out.append(f"{k}: new case ({len(new[k]['counts'])} decisions)")
            continue
        if k not in new:
            out.append(f"{k}: case removed")
            continue
        a, b = old[k], new[k]
        if a["counts"] != b["counts"]:
            ca, cb = a["counts"], b["counts"]
            i = next((j for j, (x, y) in enumerate(zip(ca, cb, strict=False)) if x != y),
                     min(len(ca), len(cb)))
            was = ca[i] if i < len(ca) else "end"
            now = cb[i] if i < len(cb) else "end"
            out.append(f"{k}: legal-action counts first differ at decision {i + 1}: {was} -> {now}"
                       f" ({len(ca)} -> {len(cb)} decisions)")
        if a["scores"] != b["scores"]:
            out.append(f"{k}: scores {a['scores']} -> {b['scores']}")
        if a["winners"] != b["winners"]:
            out.append(f"{k}: winners {a['winners']} -> {b['winners']}")
    return out


def refuse_in_ci(env: Mapping[str, str]) -> None:
    """Raise RegenRefused when ``CI`` is set (to anything but an empty string)."""
    if env.get("CI"):
        raise RegenRefused("REBIRTH_REGEN_PERFT is refused in CI (CI is set): regenerate the "
                           "perft snapshot locally and review the diff")


def regenerate(got: Mapping[str, Any], path: Path, env: Mapping[str, str]) -> list[str]:
    """Write ``got`` to ``path`` and return the diff against the old file.

    Refuses (RegenRefused, nothing written) when ``CI`` is set: CI must check the
    snapshot, never accept whatever the code does now.
    """
    refuse_in_ci(env)
    old = json.loads(path.read_text()) if path.exists() else {}
    lines = [f"{json.dumps(k)}: {json.dumps(got[k])}" for k in sorted(got)]
    tmp = path.with_suffix(".tmp")
    tmp.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    tmp.replace(path)  # atomic: a crash never leaves half a snapshot
    return perft_diff(old, got)


def test_perft_counts(capsys: pytest.CaptureFixture[str]) -> None:
    regen = bool(os.environ.get("REBIRTH_REGEN_PERFT"))
    if regen:
        try:
            refuse_in_ci(os.environ)  # before the slow traces: fail at once
        except RegenRefused as exc:
            pytest.fail(str(exc))
    got = {key(*c): trace(*c) for c in CASES}
    if regen:
        diff = regenerate(got, DATA, os.environ)
        with capsys.disabled():  # shown even without -s: the point is to read it
            print(f"\nperft snapshot {DATA.name} regenerated; what changed:")
            print("\n".join(f"  {line}" for line in diff) if diff else "  nothing")
        pytest.skip(f"perft file regenerated ({len(diff)} change(s), printed above)")
    want = json.loads(DATA.read_text())
    for k, v in got.items():
        assert k in want, f"{k} missing from {DATA.name}"
        assert v["counts"] == want[k]["counts"], f"{k}: legal-action counts differ"
        assert v["scores"] == want[k]["scores"], f"{k}: final scores differ"
        assert v["winners"] == want[k]["winners"], f"{k}: winners differ"


# ------------------------------------------------------------------ the regeneration guard

OLD = {"scotland/2/7": {"counts": [5, 4, 3], "scores": [10, 9], "winners": [0]},
       "ireland/2/7": {"counts": [6, 5], "scores": [4, 4], "winners": [0, 1]}}


def test_perft_diff_names_each_change() -> None:
    new = {"scotland/2/7": {"counts": [5, 7, 3, 2], "scores": [10, 11], "winners": [1]},
           "ireland/3/8": {"counts": [1], "scores": [0, 0, 0], "winners": [0]}}
    assert perft_diff(OLD, new) == [
        "ireland/2/7: case removed",
        "ireland/3/8: new case (1 decisions)",
        "scotland/2/7: legal-action counts first differ at decision 2: 4 -> 7 (3 -> 4 decisions)",
        "scotland/2/7: scores [10, 9] -> [10, 11]",
        "scotland/2/7: winners [0] -> [1]",
    ]
    assert perft_diff(OLD, OLD) == []
    # A game that only got longer differs where the old one ended.
    longer = {**OLD, "ireland/2/7": {"counts": [6, 5, 2], "scores": [4, 4], "winners": [0, 1]}}
    assert perft_diff(OLD, longer) == [
        "ireland/2/7: legal-action counts first differ at decision 3: end -> 2 (2 -> 3 decisions)"]


def test_perft_regeneration_refused_in_ci_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "perft.json"
    path.write_text(json.dumps(OLD))
    changed = {"scotland/2/7": {"counts": [1], "scores": [0, 0], "winners": [0]}}
    with pytest.raises(RegenRefused, match="CI"):
        regenerate(changed, path, {"CI": "true", "REBIRTH_REGEN_PERFT": "1"})
    assert json.loads(path.read_text()) == OLD
    # Outside CI it writes the new snapshot and reports the change.
    diff = regenerate(changed, path, {"REBIRTH_REGEN_PERFT": "1"})
    assert json.loads(path.read_text()) == changed
    assert "ireland/2/7: case removed" in diff and any("scores [10, 9] -> [0, 0]" in d for d in diff)


def test_perft_regen_under_ci_fails_the_run(tmp_path: Path) -> None:
    # The real test, run as CI would with regeneration asked for: red, file untouched.
    before = DATA.read_bytes()
    env = {**os.environ, "CI": "true", "REBIRTH_REGEN_PERFT": "1"}
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        f"{__file__}::test_perft_counts"],
                       env=env, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert r.returncode == 1, r.stdout[-2000:]
    assert "refused in CI" in r.stdout
    assert DATA.read_bytes() == before
