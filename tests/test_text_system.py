"""One text system: every user-facing sentence is a catalog key plus arguments.

Checks that every catalog (the Python side's ``data/i18n/<lang>.json`` and the pages'
``data/i18n/page/<lang>.json``) has the same keys as every other, that no Python source
under ``src/`` holds German user text outside the catalogs (string literals with umlauts
or common German words; docstrings excluded), and that every message key named in the
source exists in the catalogs. Each scanner is shown to fail on a planted string.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from rebirth.engine import messages

SRC = Path(messages.__file__).resolve().parent.parent
"""The package folder, src/rebirth."""
I18N = SRC / "data" / "i18n"

# Modules of the server whose texts the server's own rework converts (issue 14, item 6);
# each is removed from this list as it is converted. Nothing else may hold German text.
PENDING: frozenset[str] = frozenset()

_UMLAUT = re.compile(r"[äöüÄÖÜß]")
# Words that are German and not English (whole words, case-sensitive: nouns capitalised).
_GERMAN = re.compile(
    r"\b(?:der|und|nicht|ist|eine?|einen|keine?|kein|für|mit|auf|wird|sind|oder|muss|bitte|"
    r"gibt|noch|schon|zu|zum|zur|dem|den|des|vom|beim|nur|wenn|aber|hat|Spieler|Feld|Felder|"
    r"Sitz|Stellung|Partie|Gebiet|Burg|Aufbau|Fehler|Sieger|Summe|Punkte|Gleichstand|Zug|"
    r"Plätze|Platz|Spielplan|Karte|Siedlung|unbekannte[rs]?|ungültige[rs]?|abgebrochen|beendet|"
    r"Aktion|Aktionen|Eingabe|Ergebnis|erlaubt|gewinnt|liegt|Regel|Regeln|Gebiete|Felde?s?)\b")
NOT_KEYS = frozenset({"table.html", "setup.start_player"})
"""Literals that look like keys but are not: a page file and a JSON field path."""
_KEY = re.compile(r"^(?:error|setup|cli|score|table|structure|tile\.name|variant|rules|space\.kind|"
                  r"tiebreak)\.[A-Za-z0-9_.\-]+$")


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes (module, class, function and attribute docstrings)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for stmt in body:
                if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                        and isinstance(stmt.value.value, str):
                    out.add(id(stmt.value))
    return out


def german_literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal in ``source`` that reads as German."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs \
                and (_UMLAUT.search(node.value) or _GERMAN.search(node.value)):
            found.append((node.lineno, node.value))
    return sorted(found)


def key_literals(source: str) -> list[tuple[int, str]]:
    """(line, key) of every message key in ``source``: a literal that looks like a key
    (namespace prefix) and the first argument of the terminal's ``tx("…")``/scoring's
    ``tr("…")`` (which prefix ``cli.`` / ``score.``)."""
    tree = ast.parse(source)
    # Pieces of f-strings ("cli.cmd.{name}") are prefixes, not keys.
    pieces = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _KEY.match(node.value) \
                and id(node) not in pieces and node.value not in NOT_KEYS:
            out.append((node.lineno, node.value))
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            fn = node.func
            name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
            if name in ("tx", "tr"):
                out.append((node.lineno, ("cli." if name == "tx" else "score.") + node.args[0].value))
    return out


def _sources() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def _load(path: Path) -> dict[str, str]:
    data = json.loads(path.read_text("utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("folder", [I18N, I18N / "page"], ids=["engine", "page"])
def test_every_catalog_has_every_key_of_every_other(folder: Path) -> None:
    cats = {p.stem: _load(p) for p in sorted(folder.glob("*.json"))}
    assert {"en", "de"} <= set(cats)
    every = set().union(*cats.values())
    for lang, cat in cats.items():
        assert every - set(cat) == set(), lang
    for lang, cat in cats.items():
        for key, tpl in cat.items():
            assert messages.placeholders(tpl) == messages.placeholders(cats["en"][key]), (lang, key)


def test_a_missing_key_is_found(tmp_path: Path) -> None:
    # The same check on a planted pair of catalogs: one key only in German.
    (tmp_path / "en.json").write_text(json.dumps({"a": "A"}))
    (tmp_path / "de.json").write_text(json.dumps({"a": "A", "b": "B"}))
    with pytest.raises(AssertionError):
        test_every_catalog_has_every_key_of_every_other(tmp_path)


def test_no_german_user_text_in_python_sources() -> None:
    bad = []
    for p in _sources():
        rel = p.relative_to(SRC).as_posix()
        if rel in PENDING:
            continue
        bad += [f"{rel}:{line}: {text[:70]!r}" for line, text in german_literals(p.read_text("utf-8"))]
    assert bad == []


def test_pending_modules_exist() -> None:
    # A converted or moved module must leave PENDING, or the list hides nothing real.
    for rel in PENDING:
        assert (SRC / rel).is_file(), rel


def test_the_german_scan_finds_a_planted_string() -> None:
    planted = '''
def f():
    """Ein Docstring zählt nicht."""
    raise ValueError("the game is over", "die Partie ist vorbei")
x = "Feld gesperrt"
y = "Plättchen"
ok = ("the seat", "a hex", "die")
'''
    assert [line for line, _ in german_literals(planted)] == [4, 5, 6]


def test_every_key_named_in_the_source_exists() -> None:
    en = messages.catalog("en")
    assert en is not None
    seen = []
    missing = []
    for p in _sources():
        for line, key in key_literals(p.read_text("utf-8")):
            seen.append(key)
            if key not in en and f"{key}_1" not in en:
                missing.append(f"{p.relative_to(SRC).as_posix()}:{line}: {key}")
    assert len(seen) > 250
    assert missing == []


def test_the_key_scan_finds_a_planted_key() -> None:
    planted = 'raise PositionError("error.no_such_key")\nprint(tx("no_such_line", n=1))\n'
    keys = [k for _, k in key_literals(planted)]
    assert keys == ["error.no_such_key", "cli.no_such_line"]
    en = messages.catalog("en") or {}
    assert [k for k in keys if k not in en] == keys


def test_no_regular_expression_translation() -> None:
    # Texts are translated by key, never by rewriting an English sentence with a pattern.
    for p in _sources():
        src = p.read_text("utf-8")
        assert "_SETUP_DE" not in src and "_setup_de" not in src, p
