"""Build a full state from one seat's view, sampling what the seat cannot see.

This is how bots get a position to search without ever touching the real
state (information-set determinization): every hidden item (other players'
hands, supply orders and set-aside tiles, their secret missions, the mission
deck, and on Ireland even the seat's own face-down tiles) is drawn at random
from what the view leaves possible.
"""

from __future__ import annotations

import random
from collections import Counter

from rebirth.engine.actions import Place, parse_action
from rebirth.engine.codec import unknown_action
from rebirth.engine.events import Event
from rebirth.engine.game import Game, Setup
from rebirth.engine.infoset import Visibility
from rebirth.engine.position import Position
from rebirth.engine.state import PHASE_EXTRA, PHASE_MARK, PHASE_PLACE, State
from rebirth.engine.tiles import parse_tile, starting_tiles
from rebirth.engine.views import PHASES, View


class ViewError(ValueError):
    """A view that does not fit the game (wrong board, player count or contents)."""


def _remaining(pool: Counter[int], used: list[int], who: str) -> list[int]:
    c = Counter(pool)
    c.subtract(Counter(used))
    if any(v < 0 for v in c.values()):
        raise ViewError(f"{who}: more tiles accounted for than the player owns")
    out: list[int] = []
    for t in sorted(c):
        out.extend([t] * c[t])
    return out


def determinize(game: Game, view: View, rng: random.Random) -> State:
    """A state consistent with ``view``, hidden information sampled with ``rng``."""
    b = game.board
    n = game.players
    if view.board != b.id or view.players != n or len(view.spaces) != len(b.spaces):
        raise ViewError("the view is of another game")
    if view.phase == "end":
        raise ViewError("the game is over: nothing to determinize")
    if view.phase not in ("place", "extra", "mark"):
        # At a chance node nobody acts: determinize once the outcome is applied.
        raise ViewError(f"no seat acts in phase {view.phase!r}: nothing to determinize")
    me = view.seat
    vis = Visibility.of(game)
    tiles, _ = starting_tiles(n)
    full = Counter(tiles)

    placed_by: list[list[int]] = [[] for _ in range(n)]
    for (owner, code) in view.spaces:
        if 0 <= owner < n and code is not None:
            placed_by[owner].append(parse_tile(code))
    extra = parse_tile(view.extra_tile) if view.extra_tile else -1

    kept = [[parse_tile(c) for c in k] for k in view.known_set_aside]
    hands: list[int] = [-1] * n
    supplies: list[list[int]] = []
    asides: list[list[int]] = []
    for q in range(n):
        used = placed_by[q] + [parse_tile(c) for c in view.discarded[q]]
        if extra >= 0 and q == view.current_player:
            used.append(extra)
        known_aside: list[int] | None = None
        if vis.sees_set_aside(me, q):
            # The one visibility rule set (infoset): the view then lists these tiles.
            codes = view.set_aside if q == me else view.public_set_aside[q]
            known_aside = [parse_tile(c) for c in codes]
        if q == me and view.hand is not None:
            used.append(parse_tile(view.hand))
            hands[q] = parse_tile(view.hand)
        if known_aside is not None:
            used += known_aside
        else:
            used += kept[q]
        rest = _remaining(full, used, f"seat {q}")
        rng.shuffle(rest)
        if hands[q] < 0 and view.hand_counts[q]:
            hands[q] = rest.pop()
        ns = view.supply_counts[q]
        if known_aside is None:
            k = view.set_aside_counts[q] - len(kept[q])
            aside, rest = kept[q] + rest[:k], rest[k:]
        else:
            aside = known_aside
        if len(rest) != ns:
            raise ViewError(f"seat {q}: {len(rest)} unseen tiles for a supply of {ns}")
        supplies.append(([hands[q]] if hands[q] >= 0 else []) + rest)
        asides.append(aside)

    # Mission cards: the display is public; the seat's own cards are known.
    own = set(view.missions)
    unseen = [c.id for c in game.cards if c.id not in own and c.id not in view.display]
    rng.shuffle(unseen)
    secret: list[list[str]] = []
    for q in range(n):
        if q == me:
            secret.append(list(view.missions))
        else:
            k = view.mission_counts[q]
            secret.append(unseen[:k])
            unseen = unseen[k:]
    if len(unseen) < view.deck_count:
        raise ViewError("not enough unseen mission cards for the deck")
    deck = unseen[: view.deck_count]

    setup = Setup(
        supplies=tuple(tuple(s) for s in supplies),
        set_aside=tuple(tuple(a) for a in asides),
        mission_deck=tuple(deck),
        start_player=view.current_player,
        display=tuple(view.display),
        tower_tokens=tuple(view.tower_tokens),
    )
    st = State(game, setup, seed=rng.getrandbits(64))
    card_ix = {c.id: c.index for c in game.cards}
    st.tiles.hand = hands
    st.tiles.drawn = [1 if hands[q] >= 0 else 0 for q in range(n)]
    if vis.ireland:
        st.cards.tower_cards = [[card_ix[c] for c in s] for s in secret]
    else:
        st.cards.cathedral_cards = [[card_ix[c] for c in s] for s in secret]

    # The public board, and every table derived from it, as positions are loaded.
    st.load_facts(Position.from_view(view, b))
    st.tiles.discarded = [[parse_tile(c) for c in d] for d in view.discarded]
    st.pending_extra = view.pending_extra
    st.pending_double = view.pending_double
    st.extra_tile = extra
    st.turn = view.turn
    st.phase = {"place": PHASE_PLACE, "extra": PHASE_EXTRA, "mark": PHASE_MARK}[view.phase]
    assert PHASES[st.phase] == view.phase
    st.cur = view.current_player
    st.done = False
    st.winners_ = []
    hist: list[tuple[int, int]] = []
    codec = game.codec
    for entry in view.history:
        if "chance" in entry:
            hist.append((-1, codec.parse_chance(str(entry["chance"]))))
            continue
        text = str(entry["action"])
        if text.startswith("mark "):
            hist.append((int(entry["seat"]), codec.mark_id(card_ix[text[5:]])))
        else:
            hist.append((int(entry["seat"]), codec.place_id(b.by_label[text])))
    st.history = hist
    st.tiles.known_set_aside = [list(k) for k in kept]
    return st


# Events of a preview that come from sampled hidden information (a revealed
# set-aside tile, other players' missions, the winner) or merely restate the move.
PREVIEW_SKIP = frozenset({"place", "extra_tile", "extra_lost", "discard", "game_end"})


def preview(game: Game, view: View, seat: int, action: str,
            rng: random.Random) -> tuple[int, list[Event]]:
    """Points ``action`` would give ``seat`` now, and the events explaining them (what the
    terminal and the WebSocket show before a move).

    Computed on a determinization of the seat's own view, so even a preview cannot peek
    at hidden tiles or cards; a placement is scored by :meth:`State.score_placement` to
    the turn's end. Raises ActionError with the engine's reason when the action is not
    legal.
    """
    det = determinize(game, view, rng)
    act = parse_action(action)
    if isinstance(act, Place) and det.phase in (PHASE_PLACE, PHASE_EXTRA):
        aid = det.action_id(act)
        if aid is None:
            raise unknown_action(act)
        sc = det.score_placement(aid, to_turn_end=True)
        gain, events = sc.points[seat], list(sc.events)
    else:
        # Not a placement (an x2 marker pays nothing by itself): the engine's apply decides.
        child = det.clone()
        events = child.apply(act)
        gain = child.score[seat] - det.score[seat]
    # What the determinization drew in the seat's place — a card from the deck, and that
    # card's reveal when the move ends the game — is a guess, not a fact: such a card is
    # neither named (private parts go) nor counted (its reveal goes with its points).
    known = set(view.missions) | set(view.display)
    shown = []
    for e in events:
        if e.kind in PREVIEW_SKIP or (e.kind == "mission" and e.seat != seat):
            continue
        if e.kind == "mission" and e.data.get("mission") not in known:
            gain -= e.points
            continue
        shown.append(e.for_seat(None))  # its private part is the determinization's draw
    return gain, shown
