"""S-5 over the bot API (issue 27): every line of every remote seat's stream and every answer of
the move endpoint is filed under its seat, and none holds a card hidden from that seat at that
version (canary ids), another seat's or the admin's token, or the seed (a canary). Planted
controls — another seat's line, the seed, a token — are caught, so the check can fail."""

from __future__ import annotations

import json
import types
from pathlib import Path
from typing import Any

import httpx
import pytest

from canaries import SEED_CANARY, canary_game, hidden_card_ids
from rebirth.client.policy import FunctionPolicy
from rebirth.engine.game import Game, Setup
from rebirth.engine.replay import entry_from_json, replay_log
from server import botkit, livekit

SEED_TEXTS = (str(SEED_CANARY), hex(SEED_CANARY)[2:], hex(SEED_CANARY))


def canary_factory(board: str, players: int, variants: list[str]) -> Game:
    return canary_game(board, players, variants)


def hidden_by_version(rec: dict[str, Any]) -> dict[int, dict[int, set[str]]]:
    """Per version, per seat: the card ids that seat may not know then (the record replayed)."""
    game = canary_game(rec["board"], len(rec["players"]), rec.get("variants", []))
    st = game.from_setup(Setup.from_json(rec["setup"]), seed=rec.get("seed"))
    m = types.SimpleNamespace(state=st, game=game)
    out: dict[int, dict[int, set[str]]] = {}

    def take(v: int) -> None:
        if st.is_terminal():
            # The end shows every seat's missions; the deck's unseen cards stay hidden.
            every = hidden_card_ids(m, None)  # type: ignore[arg-type]
            held = {c for q in range(game.players) for c in every - hidden_card_ids(m, q)}  # type: ignore[arg-type]
            deck = every - held
            out[v] = dict.fromkeys(range(game.players), deck)
            return
        out[v] = {s: hidden_card_ids(m, s) for s in range(game.players)}  # type: ignore[arg-type]

    take(0)
    replay_log(st, [entry_from_json(x) for x in rec["actions"]], on_step=lambda step: take(step.index + 1))
    return out


def leaks(filed: dict[int, list[tuple[int, str]]], hidden: dict[int, dict[int, set[str]]],
          secrets: list[str]) -> list[str]:
    """What reached a seat that it may not see: ``filed`` is per seat (version, text)."""
    found = []
    for seat, texts in filed.items():
        for version, text in texts:
            found += [f"seat {seat} v{version}: a secret" for s in (*secrets, *SEED_TEXTS) if s in text]
            found += [f"seat {seat} v{version}: card {c}" for c in hidden[version][seat] if c in text]
            for line in text.splitlines():
                msg = json.loads(line) if line.strip() else {}
                if "view" in msg and msg["view"]["seat"] != seat:
                    found.append(f"seat {seat} v{version}: another seat's view")
    return found


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_no_stream_line_or_move_answer_holds_another_seats_secrets(tmp_path: Path, board: str) -> None:
    with livekit.live(tmp_path, game_factory=canary_factory, seed_factory=lambda: SEED_CANARY) as (url, app):
        g = botkit.create(url, board, ["remote", "remote", "easy"])
        assert app.state.registry.hubs[g["game"]].match.seed == SEED_CANARY
        # Policies of (observation, mask): the client's own bots know only the shipped cards.
        p = botkit.Played(g, {0: FunctionPolicy(botkit.first_legal), 1: FunctionPolicy(botkit.last_legal)})
        p.start()
        filed: dict[int, list[tuple[int, str]]] = {0: [], 1: []}
        p.join()
        tokens = [s.token for s in p.seats.values()] + [g["links"][k].split("#t=", 1)[1]
                                                         for k in ("spectator", "admin")]
        rec = botkit.record(url, g)
        last = len(rec["actions"])
        for s, lines in p.lines.items():
            filed[s] = [(int(x.get("version", last)), json.dumps(x)) for x in lines]
        # The refusals a seat gets name only its own legal ids and the version.
        for s, seat in p.seats.items():
            r = httpx.post(f"{url}/api/bot/games/{g['game']}/move", json={"action": 10**6, "version": 0},
                           headers={"Authorization": f"Bearer {seat.token}"}, timeout=10)
            assert r.status_code in (400, 409)
            filed[s].append((last, r.text))
    hidden = hidden_by_version(rec)
    assert sum(len(v) for v in filed.values()) > 50
    assert leaks(filed, hidden, tokens) == []
    assert any("CANARY" in t for ts in filed.values() for _, t in ts)  # the canaries were there
    # Planted controls: another seat's line, the seed, a token: each is caught.
    v1, other = next((v, t) for v, t in filed[1] if '"view"' in t and hidden[v][0] - hidden[v][1])
    assert any("card" in f or "view" in f for f in leaks({0: [(v1, other)]}, hidden, tokens))
    assert leaks({0: [(0, json.dumps({"seed": SEED_CANARY}))]}, hidden, tokens)
    assert leaks({0: [(0, f'{{"x": "{tokens[1]}"}}')]}, hidden, tokens)
