"""Message catalogs: an event's sentence is a key plus arguments, rendered in any language.

The sentences live in ``rebirth/data/i18n/<lang>/messages.json`` (one flat JSON object per
language, key -> template; the languages are those of the registry, :mod:`rebirth.engine.i18n`).
Templates use :meth:`str.format` named fields. Argument
values follow a few conventions, which the browser client implements the same way
(see ``docs/messages.md``):

* ``int`` / ``str``: inserted as they are;
* ``{"seat": k}``: player ``k``'s name;
* ``{"en": ..., "de": ..., ...}``: a data-driven name or text in the language (English if missing);
* ``{"msg": KEY, "args": {...}}``: a nested catalog message.

Adding a language is a catalog folder and a line in the registry; a key missing in a
catalog falls back to English. A language the registry does not declare is refused by every
surface with :class:`UnknownLanguage` (:func:`require_lang`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Self

from rebirth.engine import i18n

FALLBACK = i18n.FALLBACK
"""The language every catalog falls back to; its catalog must hold every key."""

NAMESPACES = ("error.", "setup.", "cli.", "score.", "table.", "structure.", "tile.name.", "variant.",
              "rules.", "tiebreak.",
              "space.kind.", "server.", "analysis.", "notify.", "account.", "push.", "share.",
              "puzzle.")
"""Key prefixes of the texts that are not event sentences (see ``docs/messages.md``):
refusals (``error.``, ``setup.``), the terminal (``cli.``), score reports (``score.``), table mode
(``table.``), names (``structure.``, ``tile.name.``, ``space.kind.``), rule variants
(``variant.``), the rulebook (``rules.``), the tiebreak sentence (``tiebreak.``,
:func:`rebirth.engine.explain.tiebreak_message`), the server's mails and pushes (``account.``,
``push.``, ``notify.``), the shared pictures' captions (``share.``) and the puzzles' answers
(``puzzle.``, :mod:`rebirth.app.puzzles`). Every other key is an
event's sentence."""

_FIELD_RE = re.compile(r"\{([^{}]*)\}")
_cache: dict[str, dict[str, str] | None] = {}


class MessageError(ValueError):
    """A message that cannot be rendered: unknown key, missing argument or a bad value."""


def load_catalog(lang: str, name: str) -> dict[str, str]:
    """The catalog ``name`` (``messages``, ``page``) of the declared language ``lang``, read and
    checked (an object of key -> string); a language the registry lacks is :class:`UnknownLanguage`."""
    require_lang(lang)
    f = i18n.catalog_file(lang, name)
    data = json.loads(f.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise MessageError(f"catalog {lang}/{name}.json: must be an object of key -> string")
    return data


def catalog(lang: str) -> dict[str, str] | None:
    """The message catalog of ``lang`` (key -> template), loaded once; None for a language the
    registry does not declare (its tag is never used as a file name)."""
    if lang in _cache:
        return _cache[lang]
    found = load_catalog(lang, "messages") if i18n.is_language(lang) else None
    _cache[lang] = found
    return found


def languages() -> list[str]:
    """Every declared language, in the registry's order (English first)."""
    return list(i18n.codes())


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


def _arg(value: Any) -> Any:
    """An error's argument as a message value: ints, strs and message values stay, a
    :class:`UserError` becomes its nested message (so it stays translatable), the rest is str()."""
    if isinstance(value, UserError):
        return {"msg": value.key, "args": dict(value.params)}
    if isinstance(value, bool) or not isinstance(value, (int, str, Mapping)):
        return str(value)
    return value


class UserError(ValueError):
    """A refusal a user reads: a catalog key plus arguments, rendered in any language.

    ``str(exc)`` is the English sentence, so logs and older callers keep working;
    ``exc.text(lang)`` is the sentence in ``lang`` and ``exc.to_json()`` is
    ``{"key": ..., "args": ...}`` for a client that renders it itself. The arguments are
    ``exc.params``, not ``exc.args``: ``BaseException.args`` is a tuple that Python itself
    fills (pickling, tracebacks), so it stays ``(key,)``.
    """

    def __init__(self, key: str, /, **args: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params: dict[str, Any] = {k: _arg(v) for k, v in args.items()}

    @classmethod
    def of(cls, message: Mapping[str, Any]) -> UserError:
        """The error for a message value ``{"msg": key, "args": {...}}`` (see :func:`msg`)."""
        return cls(str(message["msg"]), **dict(message.get("args", {})))

    @classmethod
    def like(cls, exc: UserError) -> Self:
        """The same message as ``exc`` (key and arguments), raised as this class: a loader
        re-raises a lower layer's refusal as its own error type without losing the key."""
        return cls(exc.key, **exc.params)

    def text(self, lang: str) -> str:
        """The sentence in ``lang`` (English where the catalog of ``lang`` lacks it)."""
        return render_message(self.key, self.params, lang, ())

    def message(self, lang: str) -> str:
        """The sentence in ``lang`` (the older name of :meth:`text`)."""
        return self.text(lang)

    def texts(self) -> dict[str, str]:
        """The sentence in every declared language: ``{"en": ..., "de": ..., ...}``."""
        return {lang: self.text(lang) for lang in languages()}

    def to_json(self) -> dict[str, Any]:
        """``{"key": ..., "args": ...}``, rendered by a client with the same catalogs."""
        return {"key": self.key, "args": dict(self.params)}

    def __str__(self) -> str:
        # A traceback must never fail on its own message: an unknown key shows as itself
        # (tests/test_text_system.py checks that every key in the source exists).
        try:
            return self.text(FALLBACK)
        except MessageError:
            return f"{self.key} {self.params}" if self.params else self.key


def msg(key: str, /, **args: Any) -> dict[str, Any]:
    """A nested message value ``{"msg": key, "args": {...}}`` (ints, strs and message values kept)."""
    return {"msg": key, "args": {k: _arg(v) for k, v in args.items()}}


def text(key: str, lang: str, /, **args: Any) -> str:
    """The message ``key`` in ``lang`` with keyword arguments (no seat names); a value that
    is not an int, str or message value is inserted as its str(), as in an f-string."""
    return render_message(key, {k: _arg(v) for k, v in args.items()}, lang, ())


class UnknownLanguage(UserError):
    """A language the registry does not declare (key ``error.lang.unknown``): every surface
    refuses it with this one text, which names the supported ones (:func:`require_lang`)."""


def require_lang(lang: object) -> str:
    """``lang`` when the registry declares it, else :class:`UnknownLanguage` naming the
    supported codes (in menu order; the surfaces add them as a list, ``i18n.codes()``)."""
    if not isinstance(lang, str) or not i18n.is_language(lang):
        shown = lang if isinstance(lang, str) else str(lang)
        raise UnknownLanguage("error.lang.unknown", lang=repr(shown[:20]), supported=", ".join(i18n.codes()))
    return lang
