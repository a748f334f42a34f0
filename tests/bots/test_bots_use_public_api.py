"""Bots use the engine's public surface only (issue 11): no private engine names, no writes
to a State's tables. Hidden information is redrawn by the engine
(``State.resample_from_infostate``, :mod:`rebirth.engine.infoset`), never by a bot."""

from __future__ import annotations

import ast
from pathlib import Path

from test_architecture import MUTATORS, state_slot

BOTS = Path(__file__).resolve().parents[2] / "src" / "rebirth" / "bots"
def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node


def violations(source: str, name: str = "<src>") -> list[str]:
    """Every access a bot must not make, as ``file:line: what``."""
    out: list[str] = []
    for node in ast.walk(ast.parse(source)):
        where = f"{name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rebirth.engine"):
            out += [f"{where}: imports private {a.name}" for a in node.names if a.name.startswith("_")]
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                and not node.attr.startswith("__"):
            root = _root(node)
            if not (isinstance(root, ast.Name) and root.id in ("self", "cls")):
                out.append(f"{where}: reads private attribute {node.attr}")
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = list(node.targets)
        for t in targets:
            if isinstance(t, ast.Attribute | ast.Subscript) and (slot := state_slot(t)):
                out.append(f"{where}: writes state table {slot}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in MUTATORS and (slot := state_slot(node.func.value)):
            out.append(f"{where}: mutates state table {slot} with {node.func.attr}()")
    return out


def test_bots_use_only_the_public_engine_api() -> None:
    files = sorted(BOTS.glob("*.py"))
    assert len(files) >= 7
    found = [v for f in files for v in violations(f.read_text(encoding="utf-8"), f.name)]
    assert found == []


def test_the_scan_finds_what_it_forbids() -> None:
    bad = """
from rebirth.engine.state import _LIST_OF_KIND
def f(state, rng):
    state.tiles.hand = [1]
    state.tiles.supply[0] = []
    state.tiles.set_aside[1].append(3)
    state.cards.next_card += 1
    x = state._events
    del twin.cards.tower_cards[0]
"""
    found = violations(bad)
    assert len(found) == 7, found
    ok = """
def f(self, state, best, kids):
    best.append(1)
    kids[3] = 2
    self.rng = None
    n = state.tiles.hand[0] + len(state.occupancy.free[2])
    st = state.resample_from_infostate(0, None)
"""
    assert violations(ok) == []
