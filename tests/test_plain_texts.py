"""Texts a player reads are plain and grammatical (issue 16 item 5): no catalog sentence puts "a"
before a placeholder or a vowel ("a energy space"), the space kinds are named with their own
article in both languages (P-2, P-3, P-4 refusals), and the rule variants' descriptions name
no source document ("(seed 001)"), in the catalogs and in GET /api/variants."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rebirth.engine.board import SPACE_KINDS
from rebirth.engine.game import VARIANTS
from rebirth.engine.messages import languages, msg, render_message

I18N = Path(__file__).resolve().parents[1] / "src" / "rebirth" / "data" / "i18n"
CATALOGS = sorted(I18N.glob("*/*.json"))
# "a" before a vowel, or before a placeholder whose value may start with one.
A_BEFORE_VOWEL = re.compile(r"\b[aA] (?:\{|[aeiouAEIOU]\w)")


def english() -> list[Path]:
    return [p for p in CATALOGS if p.parent.name == "en"]


@pytest.mark.parametrize("path", english(), ids=lambda p: str(p.relative_to(I18N)))
def test_no_a_before_a_vowel_or_a_placeholder(path: Path) -> None:
    bad = {k: v for k, v in json.loads(path.read_text("utf-8")).items() if A_BEFORE_VOWEL.search(v)}
    assert not bad, bad


@pytest.mark.parametrize("lang", languages())
def test_space_kinds_carry_their_article(lang: str) -> None:
    """P-4 "hex X is an energy space", P-2/P-3 "X is a food space; …" in every language."""
    want = {"en": {"energy": "an energy space", "food": "a food space",
                   "settlement": "a settlement space"},
            "de": {"energy": "ein Energiefeld", "food": "ein Nahrungsfeld",
                   "settlement": "ein Siedlungsfeld"},
            "fr": {"energy": "une case d'énergie", "food": "une case vivrière",
                   "settlement": "une case de colonie"}}
    for kind in SPACE_KINDS:
        kind_text = render_message(f"space.kind.a.{kind}", {}, lang, ())
        kind_arg = msg(f"space.kind.a.{kind}")
        p4 = render_message("error.hex_not_settlement_space", {"hex": "B7", "kind": kind_arg}, lang, ())
        p2 = render_message("error.space_may_use_only_when", {"label": "B7", "tile": "E",
                                                               "kind": msg(f"space.kind.a.{kind}")}, lang, ())
        assert kind_text in p4 and kind_text in p2
        assert not A_BEFORE_VOWEL.search(p4) and not A_BEFORE_VOWEL.search(p2), (p4, p2)
        if kind in want.get(lang, {}):
            assert kind_text == want[lang][kind]


def test_the_engine_refusal_reads_an_energy_space() -> None:
    """The refusal a player meets: a settlement on an energy space (P-4), in English and German."""
    from rebirth.engine.board import builtin_board
    from rebirth.engine.game import Game
    from rebirth.engine.messages import UserError
    from rebirth.engine.position import Position, PositionError

    board = builtin_board("scotland")
    energy = next(s.label for s in board.spaces if s.kind_name == "energy")
    game = Game.create("scotland", 3)
    pos = Position.from_json({"format": "rebirth-position", "version": 1, "board": "scotland", "players": 3,
                              "tiles": [{"hex": energy, "seat": 0, "tile": "S1"}]})
    with pytest.raises(PositionError) as err:
        pos.validate(game)
    assert isinstance(err.value, UserError)
    assert f"hex {energy} is an energy space" in err.value.text("en")
    assert f"Feld {energy} ist ein Energiefeld" in err.value.text("de")


@pytest.mark.parametrize("lang", languages())
def test_variant_descriptions_are_plain(lang: str) -> None:
    for name, text in VARIANTS.items():
        assert "seed" not in text[lang].lower(), (name, text[lang])
        assert not re.search(r"\(\s*seed|\b0\d\d\b", text[lang]), (name, text[lang])


def test_api_variants_are_plain() -> None:
    """What the lobby and the table companion show: GET /api/variants."""
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from rebirth.server.api.data import router

    app = FastAPI()
    app.include_router(router)
    with TestClient(app) as client:
        r = client.get("/api/variants")
    assert r.status_code == 200, r.text
    body = r.json()
    assert len(body["variants"]) == len(VARIANTS)
    for v in body["variants"]:
        for lang, text in v["text"].items():
            assert "seed" not in text.lower(), (lang, text)
