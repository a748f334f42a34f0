"""The language registry: the one place that says which languages Rebirth speaks.

``rebirth/data/i18n/languages.json`` declares each language once (its code and its name in
its own language) and the catalogs every language has; each language's catalogs live in the
folder named by its code (``data/i18n/<code>/<catalog>.json``, docs/messages.md). Every
surface (the engine's renderer, the server's error texts and routes, the terminal's
``--lang``, the pages' language menus through ``GET /api/languages``) reads the list from
here, so adding a language is one folder and one line. The file is checked when first read:
a malformed entry, a duplicate code, a missing catalog or a catalog folder that is not
declared is a :class:`RegistryError` naming the file and the fault.

Also the type of a data-driven text (map, mission and token names): ``{code: text}``, with
English always present and any other declared language optional (English where missing).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

Text = dict[str, str]
"""A data-driven text: language code -> string; ``"en"`` is always there."""

FALLBACK = "en"
"""The language every catalog and data-driven text falls back to: it has every key."""

REGISTRY_FILE = "languages.json"
_CODE_RE = re.compile(r"^[a-z]{2,3}(?:-[A-Z]{2})?$")


class RegistryError(ValueError):
    """The registry file or the catalog folders disagree with the rules above (a packaging
    fault, not a user's: it is said in English, since the catalogs depend on the registry)."""


@dataclass(frozen=True)
class Language:
    """One declared language."""

    code: str
    """Its tag (``en``, ``de``, ``fr``; a region as ``pt-BR``)."""
    name: str
    """Its name in itself (``Français``), as the language menus show it."""


@dataclass(frozen=True)
class Registry:
    """The declared languages, in menu order, with the catalogs each one has."""

    languages: tuple[Language, ...]
    catalogs: tuple[str, ...]
    """The catalog names every language has (``messages``, ``page``)."""

    @property
    def codes(self) -> tuple[str, ...]:
        """The codes, in menu order."""
        return tuple(lang.code for lang in self.languages)


def root() -> Traversable:
    """The folder holding the registry and the catalog folders (a function: tests point it elsewhere)."""
    return resources.files("rebirth.data").joinpath("i18n")


def _fail(fault: str) -> RegistryError:
    return RegistryError(f"data/i18n/{REGISTRY_FILE}: {fault}")


def parse_registry(data: object, folder: Traversable) -> Registry:
    """The registry from the parsed JSON of ``languages.json``, checked against ``folder``."""
    if not isinstance(data, dict) or set(data) != {"catalogs", "languages"}:
        raise _fail('must be an object with exactly "catalogs" and "languages"')
    cats, langs = data["catalogs"], data["languages"]
    if not isinstance(cats, list) or not cats or not all(
            isinstance(c, str) and re.fullmatch(r"[a-z]+", c) for c in cats) or len(set(cats)) != len(cats):
        raise _fail('"catalogs" must be a non-empty list of distinct lower-case names')
    if not isinstance(langs, list) or not langs:
        raise _fail('"languages" must be a non-empty list')
    out: list[Language] = []
    for i, entry in enumerate(langs):
        if not isinstance(entry, dict) or set(entry) != {"code", "name"}:
            raise _fail(f'languages[{i}]: must be an object with exactly "code" and "name"')
        code, name = entry["code"], entry["name"]
        if not isinstance(code, str) or not _CODE_RE.match(code):
            raise _fail(f"languages[{i}].code: {code!r} is not a language tag like en, de or pt-BR")
        if not isinstance(name, str) or not name.strip():
            raise _fail(f"languages[{i}].name: must be the language's name in itself")
        if code in (lang.code for lang in out):
            raise _fail(f"languages[{i}].code: {code!r} is declared twice")
        out.append(Language(code, name))
    codes = [lang.code for lang in out]
    if FALLBACK not in codes:
        raise _fail(f"{FALLBACK!r} (the language every other falls back to) must be declared")
    for code in codes:
        for cat in cats:
            if not folder.joinpath(code, f"{cat}.json").is_file():
                raise _fail(f"{code!r} is declared but data/i18n/{code}/{cat}.json is missing")
    # A catalog folder nobody declared is a second list of languages in the making.
    stray = sorted(f.name for f in folder.iterdir() if f.is_dir() and not f.name.startswith(("_", "."))
                   and f.name not in codes)
    if stray:
        raise _fail(f"catalog folder(s) {', '.join(stray)} not declared in \"languages\"")
    return Registry(tuple(out), tuple(cats))


@cache
def registry() -> Registry:
    """The registry of the installed package, read and checked once."""
    folder = root()
    try:
        data = json.loads(folder.joinpath(REGISTRY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _fail(f"cannot be read: {exc}") from None
    return parse_registry(data, folder)


def codes() -> tuple[str, ...]:
    """Every declared language's code, in menu order."""
    return registry().codes


def is_language(code: object) -> bool:
    """Whether ``code`` is a declared language (anything else, a non-string too, is not)."""
    return isinstance(code, str) and code in registry().codes


def catalog_file(code: str, catalog: str) -> Traversable:
    """The file of ``catalog`` of the declared language ``code`` (never any other path)."""
    reg = registry()
    if code not in reg.codes or catalog not in reg.catalogs:
        raise KeyError(f"no catalog {catalog!r} of language {code!r}")
    return root().joinpath(code, f"{catalog}.json")


def pick(t: Text, lang: str) -> str:
    """The string for ``lang``, falling back to English."""
    return t.get(lang, t[FALLBACK])


def data_text(value: object) -> Text | None:
    """A data-driven text checked (an object with an ``"en"`` string and strings only for
    declared languages), as a fresh dict; None when it is not one (the loader says where)."""
    if not isinstance(value, dict) or not isinstance(value.get(FALLBACK), str):
        return None
    known = registry().codes
    if not all(isinstance(k, str) and k in known and isinstance(v, str) for k, v in value.items()):
        return None
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


def same_text(s: str) -> Text:
    """A text that reads the same in every language (an id shown as it is)."""
    return {FALLBACK: s}
