"""Canaries for the hidden-information tests: distinctive ids that must never reach a seat
that may not see them (docs/security.md)."""

from __future__ import annotations

import dataclasses

from rebirth.app.match import Match
from rebirth.engine.game import Game

SEED_CANARY = 0xC0FFEE_5EED_CA7A_5EED_C0FFEE_1234
"""A distinctive 120-bit seed: its digits must never reach a seat before the game ends."""


def canary_game(board: str, players: int, variants: list[str] | tuple[str, ...] = ()) -> Game:
    """The shipped game with every mission card renamed to a canary id (``QZ07CANARY``)."""
    base = Game.create(board, players, variants)
    cards = tuple(dataclasses.replace(c, id=f"QZ{c.index:02d}CANARY") for c in base.cards)
    return Game.create(board, players, variants, cards=cards)


def hidden_card_ids(m: Match, seat: int | None) -> set[str]:
    """Card ids ``seat`` must not know now: the deck and the other seats' secret cards."""
    st = m.state
    cards = m.game.cards
    held = st.cards.tower_cards if m.game.board.is_ireland else st.cards.cathedral_cards
    out = {cards[c].id for c in st.cards.deck[st.cards.next_card:]}
    for q in range(m.game.players):
        if q != seat:
            out |= {cards[c].id for c in held[q]}
    return out
