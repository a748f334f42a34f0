"""Bilingual text: every user-facing string exists in English and German."""

from __future__ import annotations

from typing import TypedDict


class Text(TypedDict):
    """A string in English and German."""

    en: str
    de: str


def text(en: str, de: str) -> Text:
    """Build a :class:`Text`."""
    return {"en": en, "de": de}


def pick(t: Text, lang: str) -> str:
    """The string for ``lang``, falling back to English."""
    return t.get(lang, t["en"])  # type: ignore[return-value]
