"""Sharing a game (issue 26 item 5): the public board as a PNG, the finished game as a GIF,
the public position some moves behind, the embeddable view (the only frameable page) and the
game page's Open Graph tags. What they hold is checked against the spectator's view; the
canaries of hidden information are in tests/server/test_leak.py."""

from __future__ import annotations

import io
import os
import re
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from PIL import Image

from rebirth.app.match import Match
from rebirth.engine.game import Game
from rebirth.server.pages import picture
from rebirth.server.pages.share import positions
from server import kit

WEB = Path(__file__).resolve().parents[2] / "src" / "rebirth" / "web"


def _finished(c: TestClient, board: str = "scotland") -> str:
    """A game of two bots, played to its end."""
    g = kit.new_game(c, board=board, players=2, seats=[{"kind": "easy", "name": "Ailsa"},
                                                       {"kind": "easy", "name": "Brodie"}])
    deadline = time.monotonic() + 120
    while c.get(f"/api/games/{g['game']}").json()["status"] != "over":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.05)
    return str(g["game"])


def _playing(c: TestClient, moves: int) -> tuple[str, dict[str, Any]]:
    """A game of a human and a bot where the human made ``moves`` moves."""
    g = kit.new_game(c, players=2, seats=[{"kind": "human", "name": "Ailsa"}, {"kind": "easy"}])
    tok = kit.seat_tokens(c, g, 1)[0]
    with c.websocket_connect(f"/ws/games/{g['game']}") as ws:
        msg = kit.hello(ws, tok)
        made = 0
        while True:
            view = msg.get("view") or {}
            if view.get("phase") == "end" or (made == moves and view.get("current_player") == 0):
                break
            if msg["type"] in ("sync", "update") and view["current_player"] == 0 and view["legal_actions"]:
                ws.send_json({"type": "act", "action": view["legal_actions"][0], "version": msg["version"]})
                made += 1
            msg = ws.receive_json()
            assert msg["type"] != "error", msg
    return str(g["game"]), g


def test_positions_are_the_spectators_views_move_by_move() -> None:
    game = Game.builtin("ireland", 2)
    m = Match.start(game, ["easy", "easy"], seed=5)
    seen = [m.view(None).to_json()]
    moves = 0
    while not m.state.is_terminal():
        m.step_bot()
        moves += 1
        seen.append(m.view(None).to_json())
    pos = positions(m)
    assert pos.over and pos.moves == moves == len(pos.views) - 1
    # The views after each move (and its chance outcomes) are exactly what a spectator was shown.
    assert pos.views[0] == seen[0] and pos.views[-1] == seen[-1]
    assert all(v["seat"] is None and v["hand"] is None and v["missions"] == [] for v in pos.views)


def test_board_png_is_wide_enough_and_public(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        gid, _ = _playing(c, 2)
        r = c.get(f"/api/games/{gid}/board.png")
        assert r.status_code == 200 and r.headers["content-type"] == "image/png"
        img = Image.open(io.BytesIO(r.content))
        assert img.format == "PNG" and img.size[0] >= 800
        # Kept for a person to look at (the browser tests' git-ignored screenshot folder).
        shots = Path(os.environ.get("REBIRTH_SHOTS", Path(__file__).resolve().parents[2]
                                    / "test-output" / "screenshots"))
        shots.mkdir(parents=True, exist_ok=True)
        (shots / "shared-board.tmp.png").write_bytes(r.content)
        os.replace(shots / "shared-board.tmp.png", shots / "shared-board.png")
        assert r.headers["cache-control"].startswith("public")
        # Cached per version: the same bytes again, without a token.
        assert c.get(f"/api/games/{gid}/board.png").content == r.content
        missing = c.get("/api/games/nope/board.png")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "unknown_game"


def test_game_gif_after_the_end_only(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        gid, _ = _playing(c, 1)
        early = c.get(f"/api/games/{gid}/game.gif")
        assert early.status_code == 409 and early.json()["error"]["code"] == "not_over"
        done = _finished(c, "ireland")
        pos = c.get(f"/api/games/{done}/public").json()
        r = c.get(f"/api/games/{done}/game.gif")
        assert r.status_code == 200 and r.headers["content-type"] == "image/gif"
        img: Any = Image.open(io.BytesIO(r.content))
        # A frame per move (and the deal), looping; bounded in size.
        assert img.n_frames == pos["moves"] + 1 <= picture.MAX_FRAMES
        assert img.info.get("loop") == 0 and img.size[0] == picture.GIF_WIDTH
        assert len(r.content) < 3_000_000


def test_public_position_some_moves_behind(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        gid, _ = _playing(c, 3)
        now = c.get(f"/api/games/{gid}/public").json()
        assert now["behind"] == 0 and now["move"] == now["moves"] >= 5
        back = c.get(f"/api/games/{gid}/public", params={"behind": 2}).json()
        assert back["move"] == now["moves"] - 2 and back["behind"] == 2
        placed = [o for o, _ in now["view"]["spaces"] if o in (0, 1)]
        placed_back = [o for o, _ in back["view"]["spaces"] if o in (0, 1)]
        assert len(placed_back) == len(placed) - 2
        far = c.get(f"/api/games/{gid}/public", params={"behind": 1000}).json()
        assert far["move"] == 0 and far["version"] == 0
        for v in (now, back, far):
            view = v["view"]
            assert view["seat"] is None and view["hand"] is None and view["legal_actions"] == []
        bad = c.get(f"/api/games/{gid}/public", params={"behind": -1})
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_message"


def test_only_the_embed_may_be_framed(tmp_path: Path) -> None:
    with kit.client(tmp_path, web_dir="") as c:
        gid, _ = _playing(c, 1)
        embed = c.get(f"/embed/game/{gid}", params={"behind": 3})
        assert embed.status_code == 200
        assert "frame-ancestors *" in embed.headers["content-security-policy"]
        assert "x-frame-options" not in embed.headers
        assert "/static/embed.js" in embed.text
        for path in ("/", f"/game/{gid}", f"/api/games/{gid}", f"/api/games/{gid}/board.png",
                     "/static/embed.js", f"/api/games/{gid}/public", "/embedded"):
            r = c.get(path)
            assert "frame-ancestors 'none'" in r.headers["content-security-policy"], path
            assert r.headers["x-frame-options"] == "DENY", path


def test_game_page_carries_open_graph_tags(tmp_path: Path) -> None:
    with kit.client(tmp_path, web_dir="", public_url="https://rebirth.example") as c:
        gid, _ = _playing(c, 1)
        html = c.get(f"/game/{gid}").text
        tags = dict(re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)">', html))
        version = c.get(f"/api/games/{gid}").json()["version"]
        assert tags["og:image"] == f"https://rebirth.example/api/games/{gid}/board.png?v={version}"
        assert tags["og:url"] == f"https://rebirth.example/game/{gid}"
        assert tags["twitter:card"] == "summary_large_image" and tags["twitter:image"] == tags["og:image"]
        assert "Scotland" in tags["og:title"] and "Ailsa" in tags["og:description"]
        # An unknown game's page is the plain page (no tags, no error).
        assert "og:image" not in c.get("/game/nope").text


def test_the_server_draws_what_board_js_draws() -> None:
    """The two drawings share their constants: board.js's hex size, region tints and glyph
    paths are the server's (picture.py), so a shared PNG looks like the page."""
    js = (WEB / "board.js").read_text(encoding="utf-8")
    assert re.search(r"const SIZE = (\d+);", js)[1] == str(int(picture.SIZE))  # type: ignore[index]
    tints = re.search(r"const REGION_TINTS = \[([^\]]+)\]", js)[1]  # type: ignore[index]
    assert tuple(re.findall(r'"(#[0-9a-f]{6})"', tints)) == picture.REGION_TINTS

    def points(d: str) -> list[tuple[float, float]]:
        """The corners a path visits (absolute and relative M/L/H/V commands)."""
        out: list[tuple[float, float]] = []
        x = y = 0.0
        for cmd, args in re.findall(r"([MLHVZmlhvz])([^MLHVZmlhvz]*)", d):
            nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", args)]
            rel = cmd.islower()
            c = cmd.upper()
            if c in "ML":
                x, y = (x + nums[0], y + nums[1]) if rel else (nums[0], nums[1])
            elif c == "H":
                x = x + nums[0] if rel else nums[0]
            elif c == "V":
                y = y + nums[0] if rel else nums[0]
            else:
                continue
            out.append((round(x, 2), round(y, 2)))
        return out

    def at_origin(template: str) -> str:
        # board.js writes `M${x + 2},${y - 8} ...`: the same path around the centre (0, 0).
        return re.sub(r"\$\{([^}]+)\}", lambda m: str(eval(m[1], {"x": 0, "y": 0})), template)

    for kind, glyphs, cls in [(k, picture.KIND_GLYPHS, "glyph") for k in picture.KIND_GLYPHS] + \
            [(k, picture.STRUCTURE_GLYPHS, "sglyph") for k in ("castle", "cathedral")]:
        m = re.search(rf'"{kind}"\)? *(?:\{{\s*)?return sv\("path", \{{ class: "{cls}", d: `([^`]+)`', js)
        assert m, kind
        ours = points("M0,0 " + glyphs[kind])[1:]
        assert points(at_origin(m[1])) == ours, kind
    tower = re.search(r'return sv\("path", \{ class: "sglyph", d: `([^`]+)` \}\);\n  \}', js)
    assert tower and points(at_origin(tower[1])) == points("M0,0 " + picture.STRUCTURE_GLYPHS["tower"])[1:]
