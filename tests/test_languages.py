"""One language registry (issue 24, item 5): the languages are declared once, in
``data/i18n/languages.json``, read by :mod:`rebirth.engine.i18n`; every surface takes its list
from it and refuses an unknown language the same way (``unknown_lang`` naming the supported
ones); a malformed registry or a catalog folder nobody declared is caught; and no module writes
a second list of languages (a planted one is found)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from httpx import Response

from rebirth.cli.main import main
from rebirth.engine import i18n, messages
from rebirth.engine.i18n import RegistryError, codes, parse_registry
from server import kit

SRC = Path(i18n.__file__).resolve().parent.parent
I18N = SRC / "data" / "i18n"
WANT = ["en", "de", "fr"]


def test_the_registry_declares_english_german_and_french_in_menu_order() -> None:
    assert list(codes()) == WANT
    assert [lang.name for lang in i18n.registry().languages] == ["English", "Deutsch", "Français"]
    assert messages.languages() == WANT


@pytest.mark.parametrize("name", ["messages", "page"])
def test_every_language_has_exactly_the_english_keys_and_placeholders(name: str) -> None:
    en = messages.load_catalog("en", name)
    for lang in codes():
        cat = messages.load_catalog(lang, name)
        assert set(cat) == set(en), (lang, sorted(set(cat) ^ set(en))[:5])
        bad = [k for k in en if messages.placeholders(cat[k]) != messages.placeholders(en[k])]
        assert bad == [], (lang, bad[:5])


def test_french_is_french() -> None:
    fr = messages.load_catalog("fr", "page")
    assert fr["lobby.new"] == "Nouvelle partie" and fr["end.title"] == "Scores finaux"
    assert messages.text("tile.name.E", "fr") == "Ferme d'énergie"
    # Not a copy of the English catalog: most sentences differ.
    en = messages.load_catalog("en", "messages")
    same = [k for k, v in messages.load_catalog("fr", "messages").items() if v == en[k] and " " in v]
    assert len(same) < 20, same  # ids and numbers ("{a} points") read the same


def _tree(tmp_path: Path, langs: list[dict[str, str]],
          folders: list[str]) -> Path:
    for code in folders:
        (tmp_path / code).mkdir(exist_ok=True)
        for cat in ("messages", "page"):
            (tmp_path / code / f"{cat}.json").write_text("{}")
    reg = {"catalogs": ["messages", "page"], "languages": langs}
    (tmp_path / "languages.json").write_text(json.dumps(reg))
    return tmp_path


EN = {"code": "en", "name": "English"}


@pytest.mark.parametrize(("langs", "folders", "fault"), [
    ([EN, {"code": "fr", "name": "Français"}], ["en"], "data/i18n/fr/messages.json is missing"),
    ([EN], ["en", "fr"], "catalog folder(s) fr not declared"),
    ([EN, EN], ["en"], "declared twice"),
    ([{"code": "de", "name": "Deutsch"}], ["de"], "'en' (the language every other falls back to)"),
    ([EN, {"code": "../x", "name": "X"}], ["en"], "is not a language tag"),
    ([EN, {"code": "fr", "name": " "}], ["en", "fr"], "name in itself"),
    ([EN, {"code": "fr", "name": "F", "rtl": "no"}], ["en", "fr"], 'exactly "code" and "name"'),
])
def test_a_bad_registry_is_refused_with_a_clear_error(tmp_path: Path, langs: list[dict[str, str]],
                                                       folders: list[str], fault: str) -> None:
    folder = _tree(tmp_path, langs, folders)
    with pytest.raises(RegistryError, match=re.escape(fault)):
        parse_registry(json.loads((folder / "languages.json").read_text()), folder)


def test_the_shipped_registry_parses() -> None:
    reg = parse_registry(json.loads((I18N / "languages.json").read_text("utf-8")), i18n.root())
    assert reg.codes == tuple(WANT) and reg.catalogs == ("messages", "page")


def test_unknown_language_is_one_user_error_listing_the_supported() -> None:
    with pytest.raises(messages.UnknownLanguage) as err:
        messages.require_lang("xx")
    assert err.value.text("en") == "unknown language 'xx'; supported: en, de, fr"
    assert "unterstützt: en, de, fr" in err.value.text("de")
    assert "prises en charge : en, de, fr" in err.value.text("fr")
    for bad in ("../en", "EN", "", "en\n", 3):
        with pytest.raises(messages.UnknownLanguage):
            messages.require_lang(bad)


# --- every surface answers an unknown language the same way -------------------------------

def _assert_unknown_lang(r: Response, status: int = 400) -> None:
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["code"] == "unknown_lang", err
    assert err["details"] == {"supported": WANT}
    assert set(err["message"]) == set(WANT)
    assert err["message"]["en"] == "unknown language 'xx'; supported: en, de, fr"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with kit.client(tmp_path) as c:
        yield c


def test_lobby_calculator_table_and_catalog_refuse_an_unknown_language(client: TestClient) -> None:
    c = client
    _assert_unknown_lang(c.post("/api/games", json={"board": "scotland", "players": 2, "lang": "xx"}))
    _assert_unknown_lang(c.post("/api/score", json={
        "position": {"format": "rebirth-position", "version": 1, "board": "scotland", "players": 2},
        "lang": "xx"}))
    _assert_unknown_lang(c.post("/api/tables", json={"board": "scotland", "players": 2, "lang": "xx"}))
    _assert_unknown_lang(c.get("/api/i18n/xx"), 404)
    # Nothing was made: no game, no table.
    assert c.get("/api/languages").json() == {"languages": [
        {"code": "en", "name": "English"}, {"code": "de", "name": "Deutsch"},
        {"code": "fr", "name": "Français"}]}


def test_french_works_on_every_surface(client: TestClient) -> None:
    c = client
    g = c.post("/api/games", json={"board": "scotland", "players": 2, "lang": "fr",
                                   "seats": [{"kind": "human"}, {"kind": "easy"}]})
    assert g.status_code == 201, g.text
    assert c.get(f"/api/games/{g.json()['game']}").json()["lang"] == "fr"
    t = c.post("/api/tables", json={"board": "scotland", "players": 2, "lang": "fr"})
    assert t.status_code == 201, t.text
    s = c.post("/api/score", json={"lang": "fr", "position": {
        "format": "rebirth-position", "version": 1, "board": "scotland", "players": 3}})
    assert s.status_code == 200, s.text
    cat = c.get("/api/i18n/fr").json()
    assert cat["page"]["lobby.new"] == "Nouvelle partie" and cat["events"]["tile.name.F"] == "Ferme vivrière"
    # Every refusal carries its French text.
    bad = c.post("/api/games", json={"board": "atlantis", "lang": "fr"}).json()["error"]
    assert bad["message"]["fr"] == "plateau inconnu 'atlantis'"


@pytest.mark.parametrize("cmd", [["rules"], ["score", "x.json"], ["replay", "x.json"], ["play"],
                                 ["analyse", "x.json"]])
def test_the_cli_refuses_an_unknown_language_listing_the_supported(
        cmd: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*cmd, "--lang", "xx"]) == 2
    assert "argument --lang: unknown language 'xx'; supported: en, de, fr" in capsys.readouterr().err


def test_the_cli_speaks_french(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--lang", "fr"]) == 0
    assert "Les règles en bref" in capsys.readouterr().out


# --- no second list of languages -----------------------------------------------------------

# A list of two or more language codes written out: ("en", "de"), ["en", "de", "fr"],
# Literal["en", "de"], `l === "en" || l === "de"`, an <option value="de">, "^(en|de)$".
_CODE = r"""["'](?:en|de|fr)["']"""
SECOND_LIST = re.compile(
    rf"""{_CODE}\s*[,|)]\s*(?:\|\|\s*\w+\s*===\s*)?{_CODE}"""
    r"""|<option value=["'](?:en|de|fr)["']"""
    r"""|\((?:en|de|fr)\|(?:en|de|fr)"""
    r"""|lang\s*(?:===?|in)\s*\(?\s*["'](?:de|fr)["']"""
    r"""|===\s*["'](?:de|fr)["']""")


def second_lists(text: str) -> list[str]:
    """The lines of ``text`` that write out languages of their own."""
    return [line.strip() for line in text.splitlines() if SECOND_LIST.search(line)]


def test_no_module_writes_its_own_list_of_languages() -> None:
    found = []
    for p in sorted(SRC.rglob("*")):
        if p.suffix in (".py", ".js", ".html") and "data" not in p.relative_to(SRC).parts:
            found += [f"{p.relative_to(SRC)}: {line}" for line in second_lists(p.read_text("utf-8"))]
    assert found == []


@pytest.mark.parametrize("planted", [
    'LANGS = ("en", "de")',
    'lang: Literal["en", "de", "fr"] = "en"',
    'p.add_argument("--lang", choices=["en", "fr"])',
    '  for (const l of [q, stored]) if (l === "en" || l === "de") return l;',
    '<select id="lang"><option value="en">English</option></select>',
    'lang: str = Field(default="en", pattern="^(en|de)$")',
    'lang = body.lang if body.lang in ("en", "de") else "en"',
    'if lang == "de": return german',
])
def test_a_planted_second_list_is_found(planted: str) -> None:
    assert second_lists(f"x = 1\n{planted}\ny = 2\n") == [planted.strip()]


def test_a_new_language_needs_one_folder_and_one_line(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    for code in codes():
        shutil.copytree(I18N / code, tmp_path / code)
    shutil.copytree(I18N / "en", tmp_path / "xq")
    reg = json.loads((I18N / "languages.json").read_text("utf-8"))
    reg["languages"].append({"code": "xq", "name": "Test"})
    (tmp_path / "languages.json").write_text(json.dumps(reg))
    monkeypatch.setattr(i18n, "root", lambda: tmp_path)
    monkeypatch.setattr(messages, "_cache", {})
    i18n.registry.cache_clear()
    try:
        assert codes()[-1] == "xq"
        assert messages.text("tile.name.E", "xq") == "Energy Farm"
        assert main(["rules", "--lang", "xq"]) == 0
    finally:
        i18n.registry.cache_clear()
