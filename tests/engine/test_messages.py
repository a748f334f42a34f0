"""Message catalogs: every event sentence comes from a catalog key with arguments.

Checks that every key the explain builders use exists in every catalog with the same
placeholders, that every event renders cleanly in every language, that serialising an
event needs the seat it is for and shows a drawn card (K-1, I-9) only to its owner, that
the K-3/K-7 ruling is said once per game, and that a new language is only a new file.
"""

from __future__ import annotations

import inspect
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rebirth.engine import explain, messages
from rebirth.engine.board import builtin_board
from rebirth.engine.events import Event
from rebirth.engine.game import Game
from rebirth.engine.messages import MessageError, render_message
from rebirth.engine.missions import builtin_cards, builtin_tokens

NAMES = ("Ann", "Ben", "Cy", "Dee")
CATALOG_DIR = Path(messages.__file__).resolve().parent.parent / "data" / "i18n"


def builder_events() -> Iterator[Event]:
    """Every builder in explain.py, called with every combination that picks another key."""
    sco, ire = builtin_board("scotland"), builtin_board("ireland")
    card_s, card_i = builtin_cards(sco)[0], builtin_cards(ire)[0]
    space = sco.spaces[0]
    castle, cath, tower = sco.castles[0], sco.cathedrals[0], ire.towers[0]
    by_size = {len(d.spaces): d for d in sco.districts + ire.districts}
    yield explain.returned_4p(3, ["E", "E", "E", "F", "F", "F", "S2", "S3", "S4"])
    for t in range(6):
        yield explain.discard(1, t)
        yield explain.extra_tile(2, t)
        yield explain.extra_unplaceable(0, t)
        for emergency in (False, True):
            yield explain.place(0, t, space, emergency)
    for t in (0, 1):
        for g in (1, 2, 7):
            yield explain.farm(2, t, g)
    yield explain.offshore(1, space)
    yield explain.port(3, space)
    yield explain.small_district(0, by_size[1], 4)
    for size in (2, 3, 4):
        yield explain.district_alone(1, by_size[size], 13)
    for final in (False, True):
        for tied in (False, True):
            for cw in (False, True):
                yield explain.district_rank(2, by_size[3], 1, 8, 3, tied=tied, completer_wins=cw,
                                            final=final)
    yield explain.incomplete_as_small(0, by_size[3], 2)
    yield explain.castle_claim(1, castle)
    for rule, take, mine, theirs, mf, tf in (("C-2", True, 2, 1, 0, 0), ("C-2", False, 1, 2, 0, 0),
                                             ("C-3", True, 1, 1, 1, 0), ("C-3", True, 1, 1, 1, 1),
                                             ("C-3", False, 1, 1, 0, 1), ("C-3", False, 1, 1, 1, 1)):
        yield explain.castle_contest(0, 1, castle, take=take, rule=rule, mine=mine, theirs=theirs,
                                     my_farms=mf, their_farms=tf)
    yield explain.final_castle(2, castle)
    yield explain.cathedral(1, cath, card_s)
    yield explain.cathedral(1, cath, None)
    for ok in (False, True):
        for ruling in (False, True):
            yield explain.mission_reveal(0, card_s, ok, 4 if ok else 0, ireland=False, ruling=ruling)
        yield explain.mission_reveal(0, card_i, ok, 8 if ok else 0, ireland=True)
    for tok in {t.kind: t for t in builtin_tokens()}.values():
        yield explain.tower(3, tower, tok, card_i if tok.kind == "mission" else None)
        if tok.kind == "mission":
            yield explain.tower(3, tower, tok, None)
    yield explain.extra_lost(1)
    yield explain.double_marker(2, card_i)
    yield explain.double_lost(2)
    for first in (False, True):
        for doubled in (False, True):
            yield explain.public_mission(0, card_i, first=first, pts=12, doubled=doubled)
    for k in range(1, 5):
        yield explain.game_end(list(range(k)), [10, 10, 10, 10], ireland=k % 2 == 0)


def keys_in(args: Any) -> Iterator[str]:
    """The catalog keys of nested messages inside an argument value."""
    if isinstance(args, dict):
        if "msg" in args:
            yield args["msg"]
        for v in args.values():
            yield from keys_in(v)
    elif isinstance(args, list):
        for v in args:
            yield from keys_in(v)


def used_keys(events: list[Event]) -> set[str]:
    out: set[str] = set()
    for e in events:
        out.add(e.key)
        out.update(keys_in(e.args))
        if e.private_key is not None:
            out.add(e.private_key)
            out.update(keys_in(e.private_args))
    return out


def played_events(board: str, players: int, seed: int) -> list[Event]:
    """All events of one random game, setup and end included."""
    state = Game.builtin(board, players).new_state(seed)
    rng = random.Random(seed)
    events = list(state.initial_events)
    while not state.is_terminal():
        events += state.apply(state.action_from_id(rng.choice(state.legal_action_ids())))
    return events


def test_builders_all_covered() -> None:
    # A new builder must be added to builder_events, or the key checks below miss it.
    # tiebreak_message makes a message value, not an event: test_tiebreak_message covers it.
    builders = {n for n, f in inspect.getmembers(explain, inspect.isfunction)
                if f.__module__ == explain.__name__ and not n.startswith("_") and n != "tiebreak_message"}
    assert len(builders) >= 20
    src = inspect.getsource(builder_events)
    assert {n for n in builders if f"explain.{n}(" not in src} == set()


def test_every_used_key_is_in_every_catalog_and_every_key_is_used() -> None:
    used = used_keys(list(builder_events()))
    # The analysis report's sentences (rebirth.analysis) are catalog messages too.
    from rebirth.analysis.core import MESSAGE_KEYS

    used |= set(MESSAGE_KEYS)
    for lang in messages.languages():
        cat = messages.catalog(lang)
        assert cat is not None
        assert used - set(cat) == set(), lang
        # No dead sentences: a catalog holds only what the builders use (event keys:
        # the other namespaces are checked by tests/test_text_system.py).
        events = {k for k in cat if not k.startswith(messages.NAMESPACES)}
        assert events - used == set(), lang
    for board, players in (("scotland", 4), ("ireland", 3)):
        assert used_keys(played_events(board, players, 11)) <= used


def test_catalogs_have_the_same_keys_and_placeholders() -> None:
    langs = messages.languages()
    assert {"en", "de"} <= set(langs)
    assert sorted(p.parent.name for p in CATALOG_DIR.glob("*/messages.json")) == sorted(langs)
    en = messages.catalog("en")
    assert en is not None
    for lang in langs:
        cat = messages.catalog(lang)
        assert cat is not None and set(cat) == set(en), lang
        for key, tpl in cat.items():
            assert messages.placeholders(tpl) == messages.placeholders(en[key]), (lang, key)
            # Plain names only: the browser's renderer knows no format specs or indexing.
            assert all(re.fullmatch(r"[a-z_]+", f) for f in messages.placeholders(tpl)), (lang, key)


@pytest.mark.parametrize("lang", messages.languages())
def test_every_event_renders_cleanly(lang: str) -> None:
    events = list(builder_events()) + played_events("scotland", 3, 5) + played_events("ireland", 4, 6)
    for e in events:
        for seat in (None, e.seat):
            text = e.render(lang, NAMES, seat=seat)
            assert "{" not in text and "}" not in text, text
            assert "None" not in text, text
            # Faults found in issue 7: joined punctuation, plural of one, doubled stops.
            assert not re.search(r"[.;:,]\s*[.;]|\b1 (spaces|tiles|points|Felder|Punkte)\b"
                                 r"|group of 1\b|1er-Gruppe", text), text
            assert text.endswith((".", ")")), text
        json.dumps(e.to_json(e.seat))


def test_german_wording() -> None:
    sco = builtin_board("scotland")
    medium = next(d for d in sco.districts if len(d.spaces) == 2)
    text = explain.district_alone(0, medium, 8).render("de", NAMES)
    assert "das mittlere Gebiet" in text and "mittleres" not in text
    # One word for the extra tile everywhere (I-7), data included.
    de = messages.catalog("de")
    assert de is not None
    # (Event sentences: the rulebook's "Bonus" is a tower's bonus, not the extra tile.)
    events = {k: v for k, v in de.items() if not k.startswith(messages.NAMESPACES)}
    assert not any("Zusatz" in v or "Bonus" in v for v in events.values())
    assert all(t.name["de"] == "Extra-Plättchen" for t in builtin_tokens() if t.kind == "extra_tile")
    assert sum("Extra-Plättchen" in v for v in de.values()) >= 4


def test_K3_K7_ruling_said_once_per_game() -> None:
    events = played_events("scotland", 4, 2)
    reveals = [e for e in events if e.kind == "mission"]
    assert len(reveals) > 1
    texts = [e.render("en", NAMES) for e in events]
    assert sum("(K-3, K-7)" in t for t in texts) == 1
    assert "(K-3, K-7)" in reveals[0].render("en", NAMES)
    assert all("(K-3, K-7)" not in e.render("de", NAMES) for e in reveals[1:])
    ire = played_events("ireland", 3, 2)
    assert not any("K-3" in e.render("en", NAMES) for e in ire)


def test_text_property_keeps_seat_placeholders() -> None:
    e = explain.castle_contest(0, 2, builtin_board("scotland").castles[0], take=True, rule="C-2",
                               mine=2, theirs=1, my_farms=0, their_farms=0)
    assert set(e.text) == set(messages.languages())
    assert e.text["en"].startswith("{s0} now has more spaces") and "from {s2}" in e.text["en"]
    assert e.text["de"].format(s0="A", s2="C") == e.render("de", ["A", "B", "C"])


def _secret_events() -> list[Event]:
    sco, ire = builtin_board("scotland"), builtin_board("ireland")
    mission_token = next(t for t in builtin_tokens() if t.kind == "mission")
    return [explain.cathedral(1, sco.cathedrals[0], builtin_cards(sco)[5]),
            explain.tower(1, ire.towers[0], mission_token, builtin_cards(ire)[3])]


def test_K1_I9_drawn_card_serialised_only_for_its_owner() -> None:
    for e in _secret_events():
        card = e.private["mission"] if e.private else ""
        assert card
        owner = e.to_json(1)
        assert owner["private"] == {"mission": card} and owner["private_args"]["card"] == card
        assert card in json.dumps(owner)
        assert card in e.render("en", NAMES, seat=1)
        for seat in (None, 0, 2, 3):
            out = e.to_json(seat)
            assert card not in json.dumps(out), seat
            assert not {"private", "private_key", "private_args"} & set(out)
            assert card not in e.render("de", NAMES, seat=seat)
            assert e.for_seat(seat).private is None and e.for_seat(seat).private_args is None
        assert set(owner) - {"private", "private_key", "private_args"} == {
            "kind", "rule", "seat", "points", "data", "key", "args"}
        # The seat is required: there is no default that would leak.
        with pytest.raises(TypeError):
            e.to_json()  # type: ignore[call-arg]
        # The JSON is a copy: editing it does not change the event.
        owner["private_args"]["card"] = "X"
        assert e.to_json(1)["private_args"]["card"] == card


def test_renderer_conventions_and_errors() -> None:
    assert render_message("join.3", {"a": {"seat": 2}, "b": "x", "c": 7}, "en", NAMES) == "Cy, x and 7"
    assert render_message("join.1", {"a": {"en": "Isles", "de": "Inseln"}}, "de", NAMES) == "Inseln"
    assert render_message("join.1", {"a": {"en": "Isles", "de": "Inseln"}}, "xx", NAMES) == "Isles"
    nested = {"a": {"msg": "tile.E.a", "args": {}}, "b": {"msg": "tile.S2.a"}}
    assert render_message("join.2", nested, "de", NAMES) == "eine Energie-Farm und eine Siedlung 2"
    # An unknown language falls back to English; a path is never opened as a language.
    assert render_message("tile.F.a", {}, "../../etc/passwd", NAMES) == "a Food Farm"
    assert messages.catalog("../en") is None
    with pytest.raises(MessageError, match="unknown message key 'nope'"):
        render_message("nope", {}, "en", NAMES)
    with pytest.raises(MessageError, match=r"join\.2"):
        render_message("join.2", {"a": 1}, "en", NAMES)
    with pytest.raises(MessageError, match="no name for that seat"):
        render_message("join.1", {"a": {"seat": 4}}, "en", NAMES)
    for bad in (True, None, 1.5, {"x": 1}):
        with pytest.raises(MessageError):
            render_message("join.1", {"a": bad}, "en", NAMES)


def test_new_language_is_only_a_new_catalog_folder_and_one_line(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from rebirth.engine import i18n

    for lang in ("en", "de"):
        shutil.copytree(CATALOG_DIR / lang, tmp_path / lang)
    (tmp_path / "xq").mkdir()
    (tmp_path / "xq" / "messages.json").write_text(json.dumps({
        "place": "{player} pose {tile} sur {hex}.",
        "tile.E.a": "une ferme d'énergie",
    }), encoding="utf-8")
    (tmp_path / "xq" / "page.json").write_text("{}", encoding="utf-8")
    (tmp_path / "languages.json").write_text(json.dumps({"catalogs": ["messages", "page"], "languages": [
        {"code": "en", "name": "English"}, {"code": "de", "name": "Deutsch"},
        {"code": "xq", "name": "Essai"}]}), encoding="utf-8")
    monkeypatch.setattr(i18n, "root", lambda: tmp_path)
    monkeypatch.setattr(messages, "_cache", {})
    i18n.registry.cache_clear()
    try:
        assert messages.languages() == ["en", "de", "xq"]
        space = builtin_board("scotland").spaces[0]
        e = explain.place(1, 0, space, False)
        assert e.render("xq", NAMES) == f"Ben pose une ferme d'énergie sur {space.label}."
        # A sentence the catalog lacks falls back to English, arguments still in the language.
        assert explain.discard(1, 0).render("xq", NAMES).startswith(
            "Ben has no legal space for une ferme d'énergie")
        # A data-driven name without that language falls back to English.
        cathedral = builtin_board("scotland").cathedrals[0]
        assert cathedral.name["en"] in explain.cathedral(0, cathedral, None).render("xq", NAMES)
    finally:
        i18n.registry.cache_clear()


def test_tiebreak_message() -> None:
    """E-3/E-4: the one tiebreak sentence (terminal, calculator, pages) for every outcome."""
    sco, ire = builtin_board("scotland"), builtin_board("ireland")
    edinburgh = next(c for c in sco.castles if c.id == "edinburgh")
    tara = ire.towers[0]
    cases: list[tuple[Any, dict[str, Any] | None, list[int]]] = [
        (sco, None, [2]),
        (sco, {"rule": "E-3", "points": 30, "tied": [0, 2], "by": "castle", "id": edinburgh.id,
               "literal": False}, [2]),
        (sco, {"rule": "E-3", "points": 30, "tied": [0, 2], "by": "castle", "id": edinburgh.id,
               "literal": True}, [1]),
        (ire, {"rule": "E-4", "points": 30, "tied": [0, 1], "by": "tower", "id": tara.id,
               "counts": [3, 2, -1]}, [0]),
        (ire, {"rule": "E-4", "points": 30, "tied": [0, 1], "by": "shared"}, [0, 1]),
    ]
    seen = set()
    for board, how, winners in cases:
        m = explain.tiebreak_message(board, how, 30, winners)
        seen.add(m["msg"])
        for lang in messages.languages():
            text = messages.render_value(m, lang, NAMES)
            assert "30" in text and "{" not in text, text
            if how is not None:
                assert NAMES[how["tied"][0]] in text and how["rule"] in text, text
    sentences = {k for k in messages.catalog("en") or {}
                 if k.startswith("tiebreak.") and not k.startswith(("tiebreak.count", "tiebreak.list."))}
    assert seen == sentences
    tower = explain.tiebreak_message(ire, cases[3][1], 30, [0])
    assert messages.render_value(tower, "en", NAMES).count("Ann 3") == 1
