"""Every string of the terminal game: keys ``cli.*`` in the message catalogs.

The sentences live in ``rebirth/data/i18n/<lang>/messages.json`` with every other
user-facing text (see ``docs/messages.md``); this module only looks them up. The
words a player may type (commands, yes/no, "mark", "human") are catalog entries
too (``cli.cmd.*``, ``cli.words.*``: space-separated), and every language's words
are accepted whatever the screen language, so an English habit works in German.
"""

from __future__ import annotations

import argparse
from typing import Any

from rebirth.engine.i18n import FALLBACK
from rebirth.engine.messages import UnknownLanguage, catalog, languages, require_lang, text

_COMMAND_NAMES = ("help", "legal", "missions", "log", "legend", "regions", "rules", "board", "quit")


def _words(key: str) -> tuple[str, ...]:
    """The space-separated words of ``key`` in every language, in catalog order."""
    out: list[str] = []
    for lang in ["en", *(x for x in languages() if x != "en")]:
        for w in (catalog(lang) or {}).get(key, "").split():
            if w not in out:
                out.append(w)
    return tuple(out)


COMMANDS: dict[str, str] = {w: name for name in _COMMAND_NAMES for w in _words(f"cli.cmd.{name}")}
"""Every typed command word (any language) → its canonical name."""

YES = ("", *_words("cli.words.yes"))
NO = _words("cli.words.no")
MARK_WORDS = _words("cli.words.mark")
""""mark I03" in English, "markiere I03" in German."""
HUMAN_WORDS = _words("cli.words.human")
"""Seat kinds a player may type for "human"."""


class Texts:
    """The terminal's strings in one language: ``tx("key", name=...)`` renders ``cli.key``."""

    def __init__(self, lang: str) -> None:
        self.lang = require_lang(lang)

    def __call__(self, key: str, **kw: Any) -> str:
        # A count of one takes the singular text when the catalog has one ("1 card").
        if kw.get("n") == 1 and f"cli.{key}_1" in (catalog("en") or {}):
            key = f"{key}_1"
        return text(f"cli.{key}", self.lang, **kw)


def lang_type(value: str) -> str:
    """An argparse type for ``--lang``: a language of the registry, else argparse's usage error
    (exit 2) with the one refusal of every surface, which lists the supported languages."""
    try:
        return require_lang(value)
    except UnknownLanguage as exc:
        raise argparse.ArgumentTypeError(exc.text(FALLBACK)) from None


def add_lang_option(p: argparse.ArgumentParser) -> None:
    """The ``--lang`` option of a command (the registry's languages; English by default)."""
    p.add_argument("--lang", type=lang_type, default=FALLBACK, metavar="|".join(languages()),
                   help="language of the output")
