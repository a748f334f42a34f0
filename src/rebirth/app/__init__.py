"""The application layer: what the front ends (``cli/``, ``server/``) call, on top of the rules
(``engine/``) and the bots (``bots/``).

``match`` is the authority of a running game (secrets, versions, chance, per-seat views);
``scoring`` the calculator and ``rebirth score``; ``hint`` a seat's best move; ``arena``,
``distributed`` (Ray) and ``bench`` bots at scale and speed; ``rulebook`` the rules in brief;
``fileio`` atomic writes and bounded reads.
"""
