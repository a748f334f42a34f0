"""One text system: every user-facing sentence is a catalog key plus arguments (issue 14, item 5).

Checks that every catalog of every declared language (``data/i18n/<lang>/messages.json`` and the
pages' ``data/i18n/<lang>/page.json``) has exactly the English keys and placeholders, that no Python source
under ``src/`` holds German user text outside the catalogs (string literals with umlauts
or common German words; docstrings excluded), and that every message key named in the
source exists in the catalogs, and that every user-facing exception (a :class:`UserError` or a
class derived from one: records, maps, mission data, file formats, bots, analysis ...) is
raised with a catalog key, never with a sentence or str(exc), and that key exists in every
catalog. Each scanner is shown to fail on a planted string.
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


@pytest.mark.parametrize("name", ["messages", "page"])
def test_every_catalog_has_every_key_of_every_other(name: str, folder: Path = I18N) -> None:
    cats = {p.parent.name: _load(p) for p in sorted(folder.glob(f"*/{name}.json"))}
    assert {"en", "de"} <= set(cats)
    for lang, cat in cats.items():
        assert set(cat) == set(cats["en"]), (lang, sorted(set(cat) ^ set(cats["en"]))[:5])
    for lang, cat in cats.items():
        for key, tpl in cat.items():
            assert messages.placeholders(tpl) == messages.placeholders(cats["en"][key]), (lang, key)


def test_a_missing_key_is_found(tmp_path: Path) -> None:
    # The same check on a planted pair of catalogs: one key only in German.
    for lang, cat in (("en", {"a": "A"}), ("de", {"a": "A", "b": "B"})):
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "messages.json").write_text(json.dumps(cat))
    with pytest.raises(AssertionError):
        test_every_catalog_has_every_key_of_every_other("messages", tmp_path)
    # ... and a placeholder renamed in one language.
    (tmp_path / "de" / "messages.json").write_text(json.dumps({"a": "{x}"}))
    (tmp_path / "en" / "messages.json").write_text(json.dumps({"a": "{y}"}))
    with pytest.raises(AssertionError):
        test_every_catalog_has_every_key_of_every_other("messages", tmp_path)


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
    # In every catalog, not only the fallback: a key only English has would show English.
    cats = {lang: messages.catalog(lang) or {} for lang in messages.languages()}
    assert {"en", "de"} <= set(cats)
    seen = []
    missing = []
    for p in _sources():
        for line, key in key_literals(p.read_text("utf-8")):
            seen.append(key)
            missing += [f"{p.relative_to(SRC).as_posix()}:{line}: {key} ({lang})"
                        for lang, cat in cats.items() if key not in cat and f"{key}_1" not in cat]
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


# --- exceptions carry keys (issue 14, item 5) -------------------------------------------------

USER_ERRORS = frozenset({"UserError"})
"""The root of the user-facing exception classes; every class derived from it (by name, across
the package's sources) must be raised with a catalog key, never with a sentence."""
_KEY_TEXT = re.compile(r"^[a-z][a-z0-9_]*(?:\.[A-Za-z0-9_\-]+)+$")
"""A catalog key: dotted words, no spaces (``error.record.not_object``)."""


def user_error_classes(sources: list[str]) -> set[str]:
    """Names of the classes that derive from :class:`UserError`, by their bases' names (the
    closure over every module, so ``TableError(IllegalActionError)`` is found too)."""
    bases: dict[str, set[str]] = {}
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef):
                names = {b.id if isinstance(b, ast.Name) else b.attr
                         for b in node.bases if isinstance(b, ast.Name | ast.Attribute)}
                bases.setdefault(node.name, set()).update(names)
    found = set(USER_ERRORS)
    grew = True
    while grew:
        grew = False
        for name, parents in bases.items():
            if name not in found and parents & found:
                found.add(name)
                grew = True
    return found


def _key_arg(arg: ast.expr) -> str | None:
    """Why ``arg`` (the first argument of a user error) is not a key, or None if it is one:
    a literal key, an f-string whose fixed head is a key prefix (``f"error.map.x.{kind}"``), or
    a name or attribute that holds a key (``REDACTED``, ``self.key``)."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return None if _KEY_TEXT.match(arg.value) else f"a sentence {arg.value[:50]!r}"
    if isinstance(arg, ast.JoinedStr):
        head = arg.values[0] if arg.values else None
        if isinstance(head, ast.Constant) and isinstance(head.value, str) \
                and re.match(r"^[a-z][a-z0-9_]*\.[A-Za-z0-9_.\-]*$", head.value) \
                and all(not isinstance(v, ast.Constant) or " " not in str(v.value) for v in arg.values):
            return None
        return "an f-string sentence"
    if isinstance(arg, ast.Name | ast.Attribute):
        return None
    return f"a {type(arg).__name__} (str(exc), a concatenation ...) instead of a key"


def sentence_raises(source: str, classes: set[str]) -> list[tuple[int, str]]:
    """(line, why) of every call of a user-facing exception class in ``source`` whose first
    argument is a sentence (a string literal, an f-string, str(exc) ...) rather than a key."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) \
                or node.func.id not in classes:
            continue
        if not node.args:
            out.append((node.lineno, f"{node.func.id}() without a key"))
            continue
        why = _key_arg(node.args[0])
        if why is not None:
            out.append((node.lineno, f"{node.func.id}: {why}"))
    return sorted(out)


def raised_keys(source: str, classes: set[str]) -> list[tuple[int, str]]:
    """(line, key or f-string head) of every literal key a user-facing exception is raised with;
    an f-string key ends in ``*``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in classes \
                and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                out.append((node.lineno, arg.value))
            elif isinstance(arg, ast.JoinedStr) and isinstance(arg.values[0], ast.Constant):
                out.append((node.lineno, str(arg.values[0].value) + "*"))
    return out


def _all_sources() -> dict[str, str]:
    return {p.relative_to(SRC).as_posix(): p.read_text("utf-8") for p in _sources()}


def test_the_user_facing_errors_are_user_errors() -> None:
    # The loaders' errors are UserErrors (key + args) and still ValueErrors, so every caller
    # that caught them keeps catching them.
    from rebirth.analysis.core import AnalysisError
    from rebirth.app.arena import ArenaError
    from rebirth.app.hint import HintError
    from rebirth.bots.base import BotError
    from rebirth.engine.board import MapError
    from rebirth.engine.formats import FormatError
    from rebirth.engine.missions import DataError
    from rebirth.engine.records import RecordError

    for cls in (RecordError, MapError, DataError, FormatError, BotError, AnalysisError, ArenaError,
                HintError):
        assert issubclass(cls, messages.UserError) and issubclass(cls, ValueError), cls
    names = user_error_classes(list(_all_sources().values()))
    assert {"RecordError", "MapError", "DataError", "FormatError", "BotError", "TableError",
            "PositionError", "SetupError", "CalcAsk"} <= names


def test_user_errors_are_raised_with_keys_not_sentences() -> None:
    srcs = _all_sources()
    classes = user_error_classes(list(srcs.values()))
    bad = [f"{rel}:{line}: {why}" for rel, src in srcs.items()
           for line, why in sentence_raises(src, classes)]
    assert bad == []


def test_the_sentence_scan_finds_planted_violations() -> None:
    planted = '''
class MapError(UserError):
    pass
class TableError(IllegalActionError):
    pass
def f(name, exc, kind):
    raise MapError(f"unknown map {name!r}")
    raise RecordError("record: must be a JSON object")
    raise TableError(str(exc))
    raise MapError("error.map.unknown", name=name)
    raise MapError(f"error.map.markers_on.{kind}", where=name)
    raise MapError("map: " + name)
    raise ValueError("a plain ValueError is not a user error")
    raise MapError()
'''
    classes = user_error_classes([planted, "class IllegalActionError(ActionError): pass\n"
                                           "class ActionError(UserError): pass\n"
                                           "class RecordError(UserError): pass\n"])
    assert {"MapError", "TableError", "RecordError", "ActionError"} <= classes
    assert [line for line, _ in sentence_raises(planted, classes)] == [7, 8, 9, 12, 14]


def test_every_key_an_error_is_raised_with_exists_in_every_catalog() -> None:
    srcs = _all_sources()
    classes = user_error_classes(list(srcs.values()))
    cats = {lang: messages.catalog(lang) or {} for lang in messages.languages()}
    assert {"en", "de"} <= set(cats)
    missing = []
    seen = 0
    for rel, src in srcs.items():
        for line, key in raised_keys(src, classes):
            seen += 1
            for lang, cat in cats.items():
                ok = any(k.startswith(key[:-1]) for k in cat) if key.endswith("*") \
                    else key in cat or f"{key}_1" in cat
                if not ok:
                    missing.append(f"{rel}:{line}: {key} ({lang})")
    assert seen > 200
    assert missing == []


def test_the_raised_key_scan_finds_a_planted_missing_key() -> None:
    planted = 'raise MapError("error.map.no_such_key")\nraise MapError(f"error.nothing_here.{k}")\n'
    keys = [k for _, k in raised_keys(planted, {"MapError"})]
    assert keys == ["error.map.no_such_key", "error.nothing_here.*"]
    en = messages.catalog("en") or {}
    assert "error.map.no_such_key" not in en and not any(k.startswith("error.nothing_here.") for k in en)
