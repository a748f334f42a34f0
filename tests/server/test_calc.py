"""``POST /api/score`` and ``GET /calculator`` (the score calculator, issue 9): the answer for a
valid position equals ``rebirth score --json`` on the same Position (E-2, E-3/E-4, T-1…T-7,
C-1…C-5, K-2/I-9); a broken hex or malformed JSON gives a clear 400 in English and German; no
mutated position gives a 500."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from rebirth.app.match import Match
from rebirth.app.scoring import from_position_json
from rebirth.cli.main import main
from rebirth.engine.game import Game
from rebirth.engine.position import Position, PositionError, preview
from server.kit import client

CASES = [("scotland", 3, 5), ("ireland", 4, 6), ("scotland", 2, 7), ("ireland", 2, 8)]


@cache
def position(board: str, n: int, seed: int, moves: int = 30, secrets: bool = True) -> dict[str, Any]:
    """A mid-game Position JSON from a bot game (secret cards included)."""
    m = Match.start(Game.create(board, n), ["greedy"] * n, seed)
    for _ in range(moves):
        m.step_bot()
    if m.state.is_chance_node():
        m.step_bot()
    return Position.from_state(m.state, secrets=secrets).to_json()


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("calc")
    web = Path(__file__).resolve().parents[2] / "src" / "rebirth" / "web"
    with client(tmp, web_dir=str(web)) as c:
        yield c


def cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: dict[str, Any]) -> dict[str, Any]:
    p = tmp_path / "pos.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    assert main(["score", str(p), "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize(("board", "n", "seed"), CASES)
def test_equals_rebirth_score(api: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                              board: str, n: int, seed: int) -> None:
    """Every figure ``rebirth score --json`` prints, the endpoint answers the same (one code path)."""
    pos = position(board, n, seed)
    r = api.post("/api/score", json={"position": pos, "seat": 1, "lang": "en"})
    assert r.status_code == 200, r.text
    got = r.json()
    want = cli_json(tmp_path, capsys, pos)
    for key, value in want.items():
        assert got[key] == value, key
    assert got["missions_scored"] is True and got["position"] == pos
    # Regions count every tile of a seat once (what the region missions count).
    tiles_of = [sum(1 for t in pos["tiles"] if t.get("seat") == q) for q in range(n)]
    assert [sum(r["tiles"][q] for r in got["regions"]) for q in range(n)] == tiles_of
    # Farm clusters cover every farm tile exactly once.
    farms = sorted(t["hex"] for t in pos["tiles"] if t.get("tile") in ("E", "F"))
    assert sorted(h for c in got["clusters"] for h in c["hexes"]) == farms
    assert all(c["size"] == len(c["hexes"]) for c in got["clusters"])


@pytest.mark.parametrize(("board", "n", "seed"), CASES[:2])
def test_heat_map_equals_preview(api: TestClient, board: str, n: int, seed: int) -> None:
    """The heat map is P-5 as ``position.preview`` computes it, for a sample of its cells."""
    pos = position(board, n, seed)
    got = api.post("/api/score", json={"position": pos, "seat": 0}).json()
    cells = got["heat"]["cells"]
    assert cells and got["heat"]["seat"] == 0
    game = Game.create(board, n)
    p = Position.from_json(pos)
    rng = random.Random(seed)
    for c in rng.sample(cells, 12):
        pv = preview(game, p, 0, c["tile"], c["hex"])
        assert list(pv.points) == c["points"], c
        assert (pv.extra_tiles, pv.x2_markers) == (c["extra_tiles"], c["x2_markers"])
    occupied = {t["hex"] for t in pos["tiles"]}
    assert not occupied & {c["hex"] for c in cells}


def test_page_is_served(api: TestClient) -> None:
    r = api.get("/calculator")
    assert r.status_code == 200 and 'src="/static/calculator.js"' in r.text


def test_completion_fills_what_the_board_decides(api: TestClient) -> None:
    """Cathedral pieces (K-1) and a castle's majority holder (C-2) come from the tiles alone."""
    pos = {"format": "rebirth-position", "version": 1, "board": "scotland", "players": 3,
           "tiles": [{"hex": "M2", "seat": 0, "tile": "S3"}, {"hex": "J8", "seat": 1, "tile": "F"}]}
    got = api.post("/api/score", json={"position": pos}).json()
    assert got["position"]["cathedrals"] == {"st_magnus": [0]}
    assert got["position"]["castles"] == {"dunrobin": 1}


def test_full_castle_tie_asks(api: TestClient) -> None:
    """Two seats with one food farm each next to Dunrobin: only history decides (C-4): ask."""
    pos = {"format": "rebirth-position", "version": 1, "board": "scotland", "players": 3,
           "tiles": [{"hex": "J8", "seat": 0, "tile": "F"}, {"hex": "I9", "seat": 1, "tile": "F"}]}
    r = api.post("/api/score", json={"position": pos})
    err = r.json()["error"]
    assert r.status_code == 400 and err["code"] == "ask"
    asks = err["details"]["ask"]
    assert asks[0]["kind"] == "castle" and asks[0]["seats"] == [0, 1]
    pos["castles"] = {"dunrobin": 1}
    r = api.post("/api/score", json={"position": pos})
    assert r.status_code == 200 and r.json()["castles"][0]["holder"] == 1


@pytest.mark.parametrize(("tiles", "words"), [
    ([{"hex": "C7", "seat": 0, "tile": "F"}], ["C7", "P-3"]),               # a farm on a settlement space
    ([{"hex": "J8", "seat": 0, "tile": "S1"}], ["J8", "P-4"]),              # a settlement on a farm space
    ([{"hex": "I8", "seat": 0, "tile": "E"}], ["I8", "Dunrobin"]),          # a tile on a castle
    ([{"hex": "Z99", "seat": 0, "tile": "E"}], ["Z99"]),                    # no such hex
    ([{"hex": "J8", "seat": 7, "tile": "E"}], ["J8"]),                      # no such seat
])
def test_bad_hex_is_a_clear_400(api: TestClient, tiles: list[dict[str, Any]], words: list[str]) -> None:
    pos = {"format": "rebirth-position", "version": 1, "board": "scotland", "players": 3, "tiles": tiles}
    r = api.post("/api/score", json={"position": pos})
    assert r.status_code == 400, r.text
    msg = r.json()["error"]["message"]
    assert msg["en"] != msg["de"] and all(w in msg["en"] and w in msg["de"] for w in words), msg


def test_thirteenth_energy_tile_is_refused(api: TestClient) -> None:
    """S-1: a colour owns 12 energy tiles; the 13th is refused naming the count."""
    game = Game.create("scotland", 3)
    free = [s.label for s in game.board.spaces if s.kind == 0 and not s.blocker][:13]
    pos: dict[str, Any] = {"format": "rebirth-position", "version": 1, "board": "scotland", "players": 3,
           "tiles": [{"hex": h, "seat": 0, "tile": "E"} for h in free]}
    r = api.post("/api/score", json={"position": pos})
    assert r.status_code == 400 and "S-1" in r.json()["error"]["message"]["en"], r.text
    pos["tiles"] = pos["tiles"][:12]
    r = api.post("/api/score", json={"position": pos})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("body", [
    b"{", b"[]", b'{"seat": 0}', b'{"position": 3}', b'{"position": {}, "seat": 9}',
    b'{"position": {"format": "rebirth-position"}}', '{"position": "\u00e9"}'.encode()])
def test_malformed_is_a_clear_400(api: TestClient, body: bytes) -> None:
    r = api.post("/api/score", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    msg = r.json()["error"]["message"]
    assert msg["en"] and msg["de"]


def _mutate(pos: dict[str, Any], rng: random.Random) -> Any:
    p = copy.deepcopy(pos)
    junk: list[Any] = [None, -1, 0, 5, 2**70, "", "ZZ", "C7", [], {}, True, 1.5, "S9", {"x": 1}]
    what = rng.randrange(9)
    if what == 0 and p["tiles"]:
        t = rng.choice(p["tiles"])
        t[rng.choice(["hex", "seat", "tile", "neutral", "x"])] = rng.choice(junk)
    elif what == 1 and p["tiles"]:
        p["tiles"].append(copy.deepcopy(rng.choice(p["tiles"])))
    elif what == 2:
        p[rng.choice(list(p))] = rng.choice(junk)
    elif what == 3:
        p["castles"] = {rng.choice(["dunrobin", "blarney", "x"]): rng.choice(junk)}
    elif what == 4 and p["tiles"]:
        del p["tiles"][rng.randrange(len(p["tiles"]))]
    elif what == 5:
        p["players"] = rng.choice([1, 2, 3, 4, 5])
    elif what == 6:
        p["board"] = rng.choice(["scotland", "ireland", "mars", "../x"])
    elif what == 7:
        p.pop(rng.choice(list(p)))
    else:
        p["secrets"] = rng.choice([None, [], [["S01"]] * p.get("players", 2), [["nope"]], 3])
    return p


def test_fuzz_never_500(api: TestClient) -> None:
    """A few hundred mutated positions: each gets a 200 or a 400 with a message, never a 500."""
    rng = random.Random(99)
    bases = [position(*c) for c in CASES]
    seen = set()
    for i in range(300):
        p = _mutate(rng.choice(bases), rng)
        r = api.post("/api/score", json={"position": p, "seat": rng.randrange(4)})
        assert r.status_code in (200, 400), (i, r.status_code, r.text[:300], p)
        seen.add(r.status_code)
        if r.status_code == 400:
            assert r.json()["error"]["message"]["en"]
    assert seen == {200, 400}


def test_public_missions_fulfilled_follow_the_tiles(api: TestClient) -> None:
    """Ireland I-10: farms on 2 offshore spaces meet I12, so that seat has fulfilled it; nobody
    holds 2 castles (I09). The answer lists who has fulfilled each card on display."""
    game = Game.create("ireland", 3)
    off = [s.label for s in game.board.spaces if s.offshore and not s.blocker][:2]
    pos = json.loads(json.dumps(position("ireland", 3, 11, moves=0, secrets=False)))
    pos["tiles"] = [{"hex": h, "seat": 2, "tile": "F"} for h in off]
    pos["display"] = ["I12", "I09", "I01", "I02", "I03", "I04", "I05", "I07"]
    pos["tower_visits"] = {}
    pos["fulfilled"] = {}
    r = api.post("/api/score", json={"position": pos})
    assert r.status_code == 200, r.text
    got = {p["card"]: p["fulfilled"] for p in r.json()["public"]}
    assert got == {"I12": [2], "I09": [], **{m: [] for m in pos["display"][2:]}}
    assert r.json()["position"]["fulfilled"] == {"I12": [2]}


def _contradictions(pos: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Complete positions with one fact changed: a castle's holder, a district's last placer,
    a cathedral's pieces or a tower's visitors, a fulfilled public mission, the display."""
    n = pos["players"]
    for key in ("castles", "district_last"):
        for k, q in pos[key].items():
            for other in range(n):
                if other != q:
                    yield {**pos, key: {**pos[key], k: other}}
    for key in ("cathedrals", "tower_visits"):
        for k, seats in pos[key].items():
            yield {**pos, key: {**pos[key], k: seats[1:]}}
            yield {**pos, key: {**pos[key], k: sorted(set(seats) ^ set(range(n)))}}
    for m in pos.get("fulfilled", {}):
        yield {**pos, "fulfilled": {**pos["fulfilled"], m: []}}
    if pos["board"] == "ireland":
        yield {**pos, "display": pos["display"][:7]}
        yield {**pos, "display": []}


@pytest.mark.parametrize(("board", "n", "seed"), CASES)
def test_refuses_exactly_what_rebirth_score_refuses(api: TestClient, board: str, n: int, seed: int) -> None:
    """Issue 14 item 7: a contradictory castle holder (C-1…C-3), last placer (T-3), cathedral
    pieces (K-1), tower visits (I-6), fulfilled mission (I-10) or a display of 7 or 0 public
    missions (S-8): the endpoint answers 400 with the message ``rebirth score`` prints, and
    accepts what it accepts."""
    refused = 0
    for p in _contradictions(position(board, n, seed)):
        try:
            from_position_json(p, "en")
            want = None
        except PositionError as exc:
            want = exc.texts()
        r = api.post("/api/score", json={"position": p})
        if want is None:
            assert r.status_code == 200, r.text
        else:
            refused += 1
            assert r.status_code == 400, (p, r.text)
            assert r.json()["error"]["message"] == want
    assert refused >= 3
    if board == "ireland":  # S-8: eight public missions lie on display, not 7 or 0
        shown: list[str]
        for shown in (position(board, n, seed)["display"][:7], []):
            r = api.post("/api/score", json={"position": {**position(board, n, seed), "display": shown}})
            assert r.status_code == 400 and "(S-8)" in r.json()["error"]["message"]["en"], r.text


def test_refresh_derives_stale_facts_again(api: TestClient) -> None:
    """The page after an edit (``refresh``): a castle holder the tiles no longer support is
    derived again (C-2); without ``refresh`` the same position is refused as ``rebirth score``
    refuses it."""
    pos = {"format": "rebirth-position", "version": 1, "board": "scotland", "players": 3,
           "tiles": [{"hex": "J8", "seat": 1, "tile": "F"}, {"hex": "I9", "seat": 0, "tile": "F"},
                     {"hex": "J7", "seat": 0, "tile": "F"}], "castles": {"dunrobin": 1}}
    r = api.post("/api/score", json={"position": pos})
    assert r.status_code == 400 and "C-2" in r.json()["error"]["message"]["en"], r.text
    r = api.post("/api/score", json={"position": pos, "refresh": True})
    assert r.status_code == 200, r.text
    assert r.json()["position"]["castles"] == {"dunrobin": 0}


IRELAND_DISPLAY = ["I09", "I01", "I03", "I04", "I05", "I06", "I07", "I08"]


def _ireland(tiles: list[dict[str, Any]], fulfilled: dict[str, list[int]] | None) -> dict[str, Any]:
    game = Game.create("ireland", 3)
    pos: dict[str, Any] = {
        "format": "rebirth-position", "version": 1, "board": "ireland", "players": 3, "tiles": tiles,
        "tower_tokens": dict(zip([t.id for t in game.board.towers], [t.id for t in game.tokens],
                                 strict=False)),
        "display": IRELAND_DISPLAY}
    if fulfilled is not None:
        pos["fulfilled"] = fulfilled
    return pos


def test_heat_pays_a_castle_mission_once(api: TestClient) -> None:
    """I-10 (each player at most once per mission), I09 (2 castles at once, a condition that can
    be lost again): Player 1 holds Bunratty, Player 2 took Blarney from them. A tiles-only
    position cannot say that Player 1 fulfilled I09 before, and the heat map pays it for
    retaking a second castle (Ross, via C18); with ``fulfilled`` it does not pay it twice."""
    tiles = [{"hex": "E15", "seat": 0, "tile": "E"}, {"hex": "E18", "seat": 1, "tile": "E"},
             {"hex": "F18", "seat": 1, "tile": "E"}]

    def at_c18(fulfilled: dict[str, list[int]] | None) -> dict[str, Any]:
        r = api.post("/api/score", json={"position": _ireland(tiles, fulfilled), "seat": 0})
        assert r.status_code == 200, r.text
        cells = r.json()["heat"]["cells"]
        cell: dict[str, Any] = next(c for c in cells if c["hex"] == "C18" and c["tile"] == "E")
        return cell

    unknown = at_c18(None)
    assert any("I09" in w for w in unknown["why"]) and unknown["points"][0] == 7
    told = at_c18({"I09": [0]})
    assert not any("I09" in w for w in told["why"]) and told["points"][0] == 1
    # Only a castle mission can be listed without being met now; any other is refused (I-10).
    r = api.post("/api/score", json={"position": _ireland(tiles, {"I01": [0]})})
    assert r.status_code == 400 and "I-10" in r.json()["error"]["message"]["en"], r.text


def _scotland(tiles: list[dict[str, Any]], variants: list[str]) -> dict[str, Any]:
    return {"format": "rebirth-position", "version": 1, "board": "scotland", "players": 3,
            "variants": variants, "tiles": tiles}


@pytest.mark.parametrize("variant", [False, True])
def test_c3_castle_tie_follows_castle_tie_to_active(api: TestClient, variant: bool) -> None:
    """C-3 with and without ``castle_tie_to_active``, through the calculator: Player 1 holds
    Dunrobin with a food farm (J8); Player 2's food farm on I9 would make a full tie, which the
    heat map scores as the engine plays it (the holder keeps it, or the placer takes it). On
    the board after it, who holds the castle is history under either rule: both ask, for the
    same two seats (the engine's ``castle_contenders``)."""
    vs = ["castle_tie_to_active"] if variant else []
    pos = _scotland([{"hex": "J8", "seat": 0, "tile": "F"}], vs)
    r = api.post("/api/score", json={"position": pos, "seat": 1, "refresh": True})
    assert r.status_code == 200, r.text
    assert r.json()["position"]["castles"] == {"dunrobin": 0}
    cell = next(c for c in r.json()["heat"]["cells"] if (c["hex"], c["tile"]) == ("I9", "F"))
    c3 = [w for w in cell["why"] if w.startswith("[C-3]")]
    assert len(c3) == 1, cell["why"]
    assert ("takes it from" in c3[0]) is variant and ("keeps it" in c3[0]) is not variant, c3
    after = _scotland([{"hex": "J8", "seat": 0, "tile": "F"}, {"hex": "I9", "seat": 1, "tile": "F"}], vs)
    r = api.post("/api/score", json={"position": after, "refresh": True})
    assert r.status_code == 400 and r.json()["error"]["code"] == "ask", r.text
    assert r.json()["error"]["details"]["ask"][0] == {
        "kind": "castle", "id": "dunrobin", "hex": "I8", "seats": [0, 1],
        "name": r.json()["error"]["details"]["ask"][0]["name"]}
    # The page's answer (the placer took it) is then scored as given: C-5 pays Player 2.
    r = api.post("/api/score", json={"position": {**after, "castles": {"dunrobin": 1}}})
    assert r.status_code == 200 and r.json()["castles"][0]["holder"] == 1, r.text


@pytest.mark.parametrize("variant", [False, True])
def test_t7_incomplete_as_small_tie_needs_no_last_placer(api: TestClient, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         variant: bool) -> None:
    """T-7 with and without ``incomplete_as_small``: Players 1 and 2 tie on influence 2 in Perth
    (I16, I17, J17; incomplete). Under the ranks (T-4/T-7) the last placer decides the tie and
    the calculator asks; under the variant each seat would score its own influence and the
    next settlement there makes its placer the last one, so nothing depends on it: no ask, and
    ``rebirth score`` accepts the same position (one derivation, the engine's)."""
    vs = ["incomplete_as_small"] if variant else []
    pos = _scotland([{"hex": "I16", "seat": 0, "tile": "S2"}, {"hex": "I17", "seat": 1, "tile": "S2"}], vs)
    r = api.post("/api/score", json={"position": pos, "refresh": True})
    if not variant:
        assert r.status_code == 400 and r.json()["error"]["code"] == "ask", r.text
        assert r.json()["error"]["details"]["ask"][0]["id"] == "perth"
        return
    assert r.status_code == 200, r.text
    got = r.json()
    perth = next(d for d in got["settlements"] if d["district"] == "perth")
    assert (perth["tied"], perth["last_matters"], perth["points"]) == (True, False, [2, 2, 0])
    assert not got["choices"] and "perth" not in got["position"]["district_last"]
    # The completed position (its cathedral piece, K-1) still names no last placer there.
    assert cli_json(tmp_path, capsys, got["position"])["settlements"] == got["settlements"]
