"""Message catalogs: an event's sentence is a key plus arguments, rendered in any language.

The sentences live in ``rebirth/data/i18n/<lang>.json`` (one flat JSON object per
language, key -> template). Templates use :meth:`str.format` named fields. Argument
values follow a few conventions, which the browser client implements the same way
(see ``docs/messages.md``):

* ``int`` / ``str``: inserted as they are;
* ``{"seat": k}``: player ``k``'s name;
* ``{"en": ..., "de": ...}``: a data-driven name or text in the language (English if missing);
* ``{"msg": KEY, "args": {...}}``: a nested catalog message.

Adding a language is adding a catalog file; a missing language or a key missing in
it falls back to English.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

FALLBACK = "en"
"""The language every catalog falls back to; its catalog must hold every key."""

_LANG_RE = re.compile(r"^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?$")
_FIELD_RE = re.compile(r"\{([^{}]*)\}")
_cache: dict[str, dict[str, str] | None] = {}


class MessageError(ValueError):
    """A message that cannot be rendered: unknown key, missing argument or a bad value."""


def _root() -> Traversable:
    """The folder holding the catalogs (a function so tests can point it elsewhere)."""
    return resources.files("rebirth.data").joinpath("i18n")


def catalog(lang: str) -> dict[str, str] | None:
    """The catalog of ``lang`` (key -> template), loaded once; None if there is none."""
    if lang in _cache:
        return _cache[lang]
    # The language names a file: refuse anything that is not a plain language tag.
    found: dict[str, str] | None = None
    if _LANG_RE.match(lang):
        f = _root().joinpath(f"{lang}.json")
        if f.is_file():
            data = json.loads(f.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not all(
                    isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
                raise MessageError(f"catalog {lang}.json: must be an object of key -> string")
            found = data
    _cache[lang] = found
    return found


def languages() -> list[str]:
    """Every language that has a catalog, sorted."""
    out = [f.name[:-5] for f in _root().iterdir() if f.name.endswith(".json")]
    return sorted(n for n in out if _LANG_RE.match(n))


def placeholders(template: str) -> set[str]:
    """The named fields of a template (``{{`` and ``}}`` are literal braces)."""
    return {m.group(1) for m in _FIELD_RE.finditer(template.replace("{{", "").replace("}}", ""))}


def template(key: str, lang: str) -> str:
    """The template for ``key`` in ``lang``, else in English; MessageError if none has it."""
    cat = catalog(lang)
    if cat is not None and key in cat:
        return cat[key]
    base = catalog(FALLBACK)
    if base is None or key not in base:
        raise MessageError(f"unknown message key {key!r}")
    return base[key]


def render_value(value: Any, lang: str, names: Sequence[str]) -> str:
    """One argument value as text, by the conventions in the module docstring."""
    if isinstance(value, bool):
        raise MessageError(f"message argument {value!r}: booleans have no text")
    if isinstance(value, (int, str)):
        return str(value)
    if isinstance(value, Mapping):
        if "seat" in value:
            k = value["seat"]
            if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < len(names):
                raise MessageError(f"message argument {dict(value)!r}: no name for that seat")
            return names[k]
        if "msg" in value:
            args = value.get("args", {})
            if not isinstance(args, Mapping):
                raise MessageError(f"message argument {dict(value)!r}: 'args' must be an object")
            return render_message(str(value["msg"]), args, lang, names)
        if FALLBACK in value:
            text = value.get(lang, value[FALLBACK])
            return str(text)
    raise MessageError(f"message argument {value!r} has no text form")


def render_message(key: str, args: Mapping[str, Any], lang: str, names: Sequence[str]) -> str:
    """The message ``key`` with ``args`` in ``lang``; ``names[k]`` is seat k's name."""
    tpl = template(key, lang)
    values = {k: render_value(v, lang, names) for k, v in args.items()}
    try:
        return tpl.format(**values)
    except (KeyError, IndexError, ValueError) as exc:
        raise MessageError(f"message {key!r} ({lang}): cannot fill {tpl!r}: {exc}") from None
