"""The engine's core owns State's insides (issue 14, items 1 and 2).

The *core* is the code that keeps a State's tables: ``engine/state.py`` (the rules),
``engine/tables.py`` (the tables), ``engine/table.py`` (table mode, which holds a State) and
the two modules that fill a state's hidden part from a seat's knowledge,
``engine/infoset.py`` (``resample``) and ``engine/determinize.py``; and ``engine/native.py``,
the bridge to the native core (issue 28), which reads and writes every table. Every other module
under ``src/rebirth`` uses the State's public surface: it calls no private State member
(``_place``, ``_events``, ``_finish`` ...), imports no private engine name, writes no
State slot or table (reads of the named tables are fine: they are documented in
``engine/tables.py``), and reads none of the internal slots below. The scan is checked
against planted violations, so it cannot pass by finding nothing.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from rebirth.app.match import Match
from rebirth.engine import position
from rebirth.engine import state as state_mod
from rebirth.engine.game import Game
from rebirth.engine.position import Position
from rebirth.engine.state import State

SRC = Path(__file__).resolve().parents[1] / "src" / "rebirth"
CORE = frozenset({"engine/state.py", "engine/tables.py", "engine/table.py", "engine/infoset.py",
                  "engine/determinize.py", "engine/native.py"})
MUTATORS = frozenset({"append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse",
                      "setdefault", "update", "add", "discard", "__setitem__"})
SLOTS = frozenset(s for s in State.__slots__ if not s.startswith("__"))
PRIVATE = frozenset({n for n in dir(State) if n.startswith("_") and not n.startswith("__")}
                    | {s for s in SLOTS if s.startswith("_")})
INTERNAL = frozenset({"hjson", "winners_", "cat"})
"""Slots that are bookkeeping, not facts: read through ``history_json``, ``winners`` and
``breakdown``."""


def state_slot(node: ast.expr) -> str | None:
    """The State slot an attribute/subscript chain reaches on a non-self object, if any."""
    cur: ast.expr = node
    found = None
    while isinstance(cur, ast.Attribute | ast.Subscript):
        if isinstance(cur, ast.Attribute) and cur.attr in SLOTS:
            found = cur.attr
        cur = cur.value
    if isinstance(cur, ast.Name) and cur.id in ("self", "cls"):
        return None
    return found


def violations(source: str, name: str = "<src>") -> list[str]:
    """Every use of State's insides in ``source``, as ``name:line: what``."""
    out: list[str] = []
    for node in ast.walk(ast.parse(source)):
        where = f"{name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rebirth.engine"):
            out += [f"{where}: imports private {a.name}" for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")]
        if isinstance(node, ast.Attribute) and not (isinstance(node.value, ast.Name)
                                                    and node.value.id in ("self", "cls")):
            if node.attr in PRIVATE:
                out.append(f"{where}: uses State's private {node.attr}")
            elif node.attr in INTERNAL:
                out.append(f"{where}: reads State's internal {node.attr}")
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for t in targets:
            if isinstance(t, ast.Attribute | ast.Subscript) and (slot := state_slot(t)):
                out.append(f"{where}: writes State's {slot}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in MUTATORS and (slot := state_slot(node.func.value)):
            out.append(f"{where}: mutates State's {slot} with {node.func.attr}()")
    return out


def outside_core() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if p.relative_to(SRC).as_posix() not in CORE)


def test_only_the_core_touches_state_insides() -> None:
    files = outside_core()
    assert len(files) > 40 and not any(f.relative_to(SRC).as_posix() in CORE for f in files)
    found = [v for f in files for v in violations(f.read_text(encoding="utf-8"),
                                                  f.relative_to(SRC).as_posix())]
    assert found == []


def test_every_core_module_exists() -> None:
    assert all((SRC / c).is_file() for c in CORE)


def test_the_scan_finds_what_it_forbids() -> None:
    bad = """
from rebirth.engine.position import _checked_state
def f(st, twin):
    st._place(0, 1, 2)
    with st.recording():
        st._events = []
    x = st.winners_[0]
    st.castles.holder[0] = 1
    st.occupancy.owner.append(3)
    twin.districts.influence[4] += 1
    del twin.visited
    st.phase = 2
"""
    found = violations(bad)
    assert len(found) == 10, found
    ok = """
def f(self, st, standing):
    self._cache = st.castles.holder[0] + st.districts.influence[3]
    self.occupancy = None
    standing.holder = 2
    n = len(st.occupancy.free[2]) + st.deck_count
    sc = st.score_placement(4, tile=0, seat=1)
    with st.recording() as events:
        st.end_now()
"""
    assert violations(ok) == []


@pytest.mark.parametrize("module", ["app/scoring.py", "bots/mcts.py", "engine/position.py"])
def test_a_planted_read_in_a_real_module_is_found(module: str) -> None:
    """A copy of a real module with one outside use planted fails the scan; the original passes."""
    source = (SRC / module).read_text(encoding="utf-8")
    assert violations(source, module) == []
    planted = source + "\n\ndef _planted(st: object) -> object:\n    return st.hjson\n"
    assert [v.split(": ", 1)[1] for v in violations(planted, module)] == ["reads State's internal hjson"]
    planted = source + "\n\ndef _planted(st):\n    st.castles.holder[0] = -1\n"
    assert [v.split(": ", 1)[1] for v in violations(planted, module)] == ["writes State's castles"]


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_a_score_request_builds_one_state_and_validates_once(board: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """POST /api/score's scoring.calculate: one State built (clones aside), one validation."""
    from rebirth.app import scoring

    game = Game.create(board, 3)
    match = Match.start(game, ["random"] * 3, 1)
    for _ in range(20):
        match.step_bot()
    data = Position.from_state(match.state).to_json()
    counts: Counter[str] = Counter()
    init, check = State.__init__, position._check

    def counted_init(self: State, *args: object, **kw: object) -> None:
        counts["State"] += 1
        init(self, *args, **kw)  # type: ignore[arg-type]

    def counted_check(*args: object, **kw: object) -> None:
        counts["check"] += 1
        check(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(state_mod.State, "__init__", counted_init)
    monkeypatch.setattr(position, "_check", counted_check)
    out = scoring.calculate(data, 0, "en")
    assert out["heat"]["cells"] and out["castles"]
    assert counts == {"State": 1, "check": 1}


LAYERS = ("engine", "bots", "analysis", "app", "learn", "env", "server", "cli")
"""The house from the bottom up (docs/architecture.md); a module may import its own floor
and the floors below, never above (the server never imports the CLI)."""
FLOOR = {"engine": 0, "bots": 1, "analysis": 2, "app": 2, "learn": 3, "env": 3, "server": 4,
         "cli": 4}


def _runtime_imports(path: Path) -> set[str]:
    """The rebirth modules ``path`` imports when it is loaded: module-level imports, not the
    ones under ``if TYPE_CHECKING:`` (annotations only) nor those inside functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If):
                test = node.test
                if isinstance(test, ast.Name) and test.id == "TYPE_CHECKING":
                    visit(node.orelse)
                    continue
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rebirth"):
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    out.add(sub if _module_path(sub) is not None else node.module)
            elif isinstance(node, ast.Import):
                out.update(a.name for a in node.names if a.name.startswith("rebirth"))

    visit(tree.body)
    return out


def _module_path(name: str) -> Path | None:
    rel = Path(*name.split(".")[1:])
    for p in (SRC / rel.with_suffix(".py"), SRC / rel / "__init__.py"):
        if p.is_file():
            return p
    return None


def _import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).with_suffix("")
        parts = ("rebirth", *rel.parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        graph[name] = {m for m in _runtime_imports(path) if m != name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle (a path back to where it started), by depth-first search."""
    found: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                found.append([*stack[stack.index(n):], n])
            elif n not in state:
                walk(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            walk(m)
    return found


def test_the_runtime_import_graph_has_no_circle() -> None:
    """Issue 14, item 9: no import circle when modules load (``game ↔ state ↔ infoset`` and
    ``records ↔ table`` were two); annotation-only imports under TYPE_CHECKING do not count."""
    graph = _import_graph()
    assert len(graph) > 80 and graph["rebirth.engine.game"]
    assert _circles(graph) == []


def test_the_circle_search_finds_a_planted_circle() -> None:
    """The search above can fail: a planted edge engine.state → engine.game is a circle."""
    graph = _import_graph()
    graph["rebirth.engine.state"] = graph["rebirth.engine.state"] | {"rebirth.engine.game"}
    assert any({"rebirth.engine.state", "rebirth.engine.game"} <= set(c) for c in _circles(graph))


def test_no_arrow_runs_up_the_house() -> None:
    """engine < bots < analysis/app < learn/env < server/cli: nothing imports a floor above
    its own at load time, and the server never imports the CLI."""
    graph = _import_graph()
    up = []
    for m, deps in graph.items():
        parts = m.split(".")
        if len(parts) < 3 or parts[1] not in FLOOR:
            continue
        for d in deps:
            dp = d.split(".")
            if len(dp) >= 2 and dp[1] in FLOOR and (
                    FLOOR[dp[1]] > FLOOR[parts[1]] or (parts[1] == "server" and dp[1] == "cli")):
                up.append(f"{m} -> {d}")
    assert up == []


def _every_import(source: str) -> set[str]:
    """Every rebirth module ``source`` names in an import, wherever it stands: at load time,
    under ``if TYPE_CHECKING:`` (annotations only) or inside a function."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rebirth"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                out.add(sub if _module_path(sub) is not None else node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("rebirth"))
    return out


def _engine_graph() -> dict[str, set[str]]:
    """The engine's modules and every engine module each imports (type-only imports too)."""
    graph: dict[str, set[str]] = {}
    for path in sorted((SRC / "engine").glob("*.py")):
        name = "rebirth.engine" if path.stem == "__init__" else f"rebirth.engine.{path.stem}"
        graph[name] = {m for m in _every_import(path.read_text(encoding="utf-8"))
                       if m.startswith("rebirth.engine.") and m != name}
    return graph


def test_the_engine_has_no_circle_even_through_type_only_imports() -> None:
    """Issue 24, item 6: no circle under ``engine/`` counting annotation-only and local imports
    (``state ↔ game ↔ infoset ↔ position`` was one): shared types sit below both sides
    (``engine/config.py``, ``engine/protocols.py``)."""
    graph = _engine_graph()
    assert len(graph) > 20 and graph["rebirth.engine.state"]
    assert _circles(graph) == []


@pytest.mark.parametrize(("module", "planted", "imported"), [
    ("state", "if TYPE_CHECKING:\n    from rebirth.engine.position import Position\n", "position"),
    ("infoset", "def _f() -> None:\n    from rebirth.engine.state import State\n", "state"),
])
def test_a_planted_type_only_circle_in_the_engine_is_found(module: str, planted: str,
                                                           imported: str) -> None:
    """The search above can fail: a real module with one type-only (or local) import planted
    back up the engine makes a circle."""
    graph = _engine_graph()
    source = (SRC / "engine" / f"{module}.py").read_text(encoding="utf-8") + "\n\n" + planted
    graph[f"rebirth.engine.{module}"] = {m for m in _every_import(source)
                                         if m.startswith("rebirth.engine.")}
    assert any({f"rebirth.engine.{module}", f"rebirth.engine.{imported}"} <= set(c)
               for c in _circles(graph))


ID_NAMES = frozenset({"aid", "outcome", "action_id"})
"""The names the code gives an action id or a chance outcome."""


def id_arithmetic(source: str, name: str = "<src>") -> list[str]:
    """Arithmetic (``+ - * // %``) or an order comparison on an action id or outcome: the
    numbering is the codec's alone (``engine/codec.py``: ``is_place``, ``card_of``, ``mark_id``,
    ``split_chance``, ...), so nothing else computes with the numbers."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult
                                                      | ast.FloorDiv | ast.Mod):
            operands = [node.left, node.right]
        elif isinstance(node, ast.Compare) and any(isinstance(o, ast.Lt | ast.LtE | ast.Gt | ast.GtE)
                                                   for o in node.ops):
            operands = [node.left, *node.comparators]
        else:
            continue
        if any(isinstance(o, ast.Name) and o.id in ID_NAMES for o in operands):
            out.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
    return out


def test_action_ids_only_through_the_codec() -> None:
    """Issue 24, item 6: no module but the codec computes with action ids (``state.py`` and
    ``records.py`` compared and subtracted the number of spaces; ``table.py`` the tile kinds)."""
    files = [p for p in sorted(SRC.rglob("*.py")) if p.relative_to(SRC).as_posix() != "engine/codec.py"]
    found = [v for p in files for v in id_arithmetic(p.read_text(encoding="utf-8"),
                                                      p.relative_to(SRC).as_posix())]
    assert found == []


def test_the_id_scan_finds_a_planted_computation() -> None:
    """The scan above can fail: a copy of ``engine/records.py`` with main's own line planted."""
    source = (SRC / "engine" / "records.py").read_text(encoding="utf-8")
    assert id_arithmetic(source) == []
    planted = source + "\n\ndef _planted(b, aid, outcome):\n    return aid < len(b.spaces), outcome - 6\n"
    assert len(id_arithmetic(planted)) == 2
