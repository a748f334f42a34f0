"""The bot arena: many games between seats of bots, with seat rotation and duplicate deals.

Games come in groups of N (the player count). Rotation ``r`` of a group puts seat list
entry ``k`` at seat ``(k + r) mod N``, and all N games of a group share one deal, so each
bot entry meets the same tiles and missions from every seat (duplicate style). Every
game is a pure function of (configuration, seed, game index); the worker pool only
changes how fast the figures come, never the figures.

This module computes; it does not print (the CLI in :mod:`rebirth.cli.arena` does).
"""

from __future__ import annotations

import io
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rebirth.app.distributed import BackendError, run_tasks
from rebirth.app.fileio import write_atomic
from rebirth.app.match import HUMAN, Match
from rebirth.bots.registry import BOT_KINDS
from rebirth.engine.game import Game
from rebirth.engine.messages import UserError

ELO_BASE = 1500.0
Z95 = 1.959963984540054


class ArenaError(UserError):
    """A configuration the arena refuses (bad seats, game or job counts): a catalog key plus
    arguments."""


@dataclass(frozen=True)
class ArenaConfig:
    """What to play. ``seats`` holds one bot name per seat list entry."""

    board: str
    players: int
    seats: tuple[str, ...]
    games: int
    seed: int = 0
    variants: tuple[str, ...] = ()

    @property
    def rounded_games(self) -> int:
        """``games`` rounded up to whole rotation groups."""
        n = self.players
        return -(-self.games // n) * n


@dataclass(frozen=True)
class GameOutcome:
    """The result of one game. ``kinds[s]`` is the bot at seat s."""

    index: int
    kinds: tuple[str, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    categories: tuple[tuple[tuple[str, int], ...], ...]


@dataclass(frozen=True)
class BotStats:
    """Pooled figures of all seats played by one bot name."""

    name: str
    games: int
    wins: float
    win_share: float
    ci95: tuple[float, float]
    mean_score: float
    mean_margin: float
    elo: float
    categories: dict[str, float]

    def to_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "wins": self.wins,
            "win_share": self.win_share,
            "ci95": list(self.ci95),
            "mean_score": self.mean_score,
            "mean_margin": self.mean_margin,
            "elo": self.elo,
            "categories": dict(self.categories),
        }


@dataclass(frozen=True)
class ArenaResult:
    """All outcomes in index order and the per-bot figures."""

    config: ArenaConfig
    board: str
    outcomes: tuple[GameOutcome, ...]
    bots: dict[str, BotStats] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return len(self.outcomes)

    def to_json(self) -> dict[str, Any]:
        c = self.config
        return {
            "board": self.board,
            "players": c.players,
            "games": self.games,
            "games_requested": c.games,
            "seed": c.seed,
            "variants": sorted(c.variants),
            "seats": list(c.seats),
            "bots": {name: s.to_json() for name, s in self.bots.items()},
        }

    def scores_by_bot(self) -> dict[str, list[int]]:
        """Every seat's final score, grouped by bot name (for plots)."""
        out: dict[str, list[int]] = {name: [] for name in self.bots}
        for o in self.outcomes:
            for kind, sc in zip(o.kinds, o.scores, strict=True):
                out.setdefault(kind, []).append(sc)
        return out


# ------------------------------------------------------------------ configuration


def normalize_seats(seats: Sequence[str] | str, players: int) -> tuple[str, ...]:
    """Bot names, one per seat, checked against the registry; ArenaError otherwise."""
    items = seats.split(",") if isinstance(seats, str) else list(seats)
    names = tuple(s.strip().lower() for s in items)
    if len(names) != players:
        raise ArenaError("error.arena.seats", players=players, n=len(names), names=",".join(names))
    known = BOT_KINDS()
    for n in names:
        if n == HUMAN:
            raise ArenaError("error.arena.human")
        if n not in known:
            raise ArenaError("error.arena.unknown_bot", name=repr(n), known=", ".join(known))
    return names


def rotation(index: int, players: int) -> tuple[int, int]:
    """(group, rotation) of game ``index``."""
    return divmod(index, players)


def seat_kinds(seats: Sequence[str], index: int) -> tuple[str, ...]:
    """The bot at each seat in game ``index``: entry k sits at seat (k + r) mod N."""
    n = len(seats)
    r = index % n
    out = [""] * n
    for k, name in enumerate(seats):
        out[(k + r) % n] = name
    return tuple(out)


def deal_seed(seed: int, index: int, players: int) -> int:
    """The deal of game ``index``: shared by its rotation group, independent of process state.

    ``random.Random`` seeds a string through SHA-512, so this is the same in every
    process and under any ``PYTHONHASHSEED``.
    """
    group = index // players
    return random.Random(f"rebirth-arena/{seed}/{group}").getrandbits(63)


# ------------------------------------------------------------------ playing

_GAMES: dict[tuple[str, int, tuple[str, ...]], Game] = {}


def _game(board: str, players: int, variants: tuple[str, ...]) -> Game:
    # Loading a board and its cards costs more than a fast game; do it once per process.
    key = (board, players, variants)
    g = _GAMES.get(key)
    if g is None:
        g = _GAMES[key] = Game.create(board, players, variants)
    return g


def play_game(board: str, players: int, variants: tuple[str, ...], seats: tuple[str, ...],
              seed: int, index: int) -> GameOutcome:
    """Play game ``index`` of an arena to the end (the worker; picklable arguments only).

    Match derives each bot's seed from the deal seed and the seat, so the whole game
    depends on (configuration, seed, index) alone.
    """
    game = _game(board, players, variants)
    kinds = seat_kinds(seats, index)
    match = Match.start(game, list(kinds), seed=deal_seed(seed, index, players))
    match.run_bots()
    st = match.state
    if not st.is_terminal():  # pragma: no cover - a bot registry only yields bots
        raise RuntimeError(f"arena game {index} stopped before the end")
    cats = tuple(tuple(st.breakdown(q).items()) for q in range(players))
    return GameOutcome(index, kinds, tuple(st.score), tuple(st.winners), cats)


def _play_star(args: tuple[str, int, tuple[str, ...], tuple[str, ...], int, int]) -> GameOutcome:
    return play_game(*args)


def iter_outcomes(config: ArenaConfig, jobs: int = 1, *, backend: str = "local",
                  address: str | None = None) -> Iterator[GameOutcome]:
    """Outcomes of all games in index order; ``jobs`` > 1 plays them in worker processes.

    ``backend="ray"`` plays them as Ray tasks instead (:mod:`rebirth.app.distributed`): on a
    local Ray instance of ``jobs`` CPUs, or on the cluster at ``address``. The outcomes
    are the same as the local backend's for the same configuration.
    """
    if jobs < 1:
        raise ArenaError("error.arena.jobs", jobs=jobs)
    tasks = [(config.board, config.players, tuple(config.variants), config.seats, config.seed, i)
             for i in range(config.rounded_games)]
    try:
        yield from run_tasks(_play_star, tasks, jobs=jobs, backend=backend, address=address)
    except BackendError as exc:
        raise ArenaError.like(exc) from exc


def run_arena(config: ArenaConfig, jobs: int = 1,
              progress: Callable[[int], None] | None = None, *, backend: str = "local",
              address: str | None = None) -> ArenaResult:
    """Play every game of ``config`` and aggregate; ``progress(done)`` after each game.

    ``backend`` and ``address``: see :func:`iter_outcomes`."""
    if config.games < 1:
        raise ArenaError("error.arena.games", games=config.games)
    seats = normalize_seats(config.seats, config.players)
    config = ArenaConfig(config.board, config.players, seats, config.games, config.seed,
                         tuple(config.variants))
    game = _game(config.board, config.players, config.variants)  # fail early on a bad board
    outcomes: list[GameOutcome] = []
    for o in iter_outcomes(config, jobs, backend=backend, address=address):
        outcomes.append(o)
        if progress is not None:
            progress(len(outcomes))
    return ArenaResult(config, game.board.id, tuple(outcomes), aggregate(outcomes))


# ------------------------------------------------------------------ statistics


def win_shares(o: GameOutcome) -> list[float]:
    """1/k for each of k winners, 0 for the others."""
    k = len(o.winners)
    return [1.0 / k if s in o.winners else 0.0 for s in range(len(o.kinds))]


def mean_ci95(values: Sequence[float]) -> tuple[float, float]:
    """A 95% Wilson score interval for the mean win share of ``values`` (each in [0, 1]).

    Wilson's interval stays honest at the edges: 200 wins in 200 games give
    (0.981, 1.0), where the normal approximation would claim (1.0, 1.0). The bounds
    are clamped to [0, 1] and always contain the mean itself.
    """
    n = len(values)
    if n == 0:
        return (0.0, 1.0)
    p = min(1.0, max(0.0, math.fsum(values) / n))
    z2 = Z95 * Z95
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # At p = 0 (or 1) centre - half is 0 (or centre + half is 1) only up to rounding:
    # with no wins the lower bound came out near 2.8e-17, above the win share of 0.
    return (min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))


def aggregate(outcomes: Sequence[GameOutcome]) -> dict[str, BotStats]:
    """Pool every seat of a bot name across games.

    ``win_share`` is the bot's total win share over its seats played. ``ci95``: each
    game where the bot sits is one observation, its total share in that game divided
    by its number of seats there (two greedy seats sharing a win 1/2 each give 1/2;
    one of them winning alone gives 1/2 too). The interval is Wilson's score interval
    for the mean of those observations (see :func:`mean_ci95`). It treats games as
    independent, although the games of one rotation group share a deal, so read it as
    approximate. With a fixed seat list the bot has the same number of seats in every
    game, so the observations' mean is ``win_share``.
    """
    names: list[str] = []
    for o in outcomes:
        for kind in o.kinds:
            if kind not in names:
                names.append(kind)
    seats_played = dict.fromkeys(names, 0)
    wins = dict.fromkeys(names, 0.0)
    score_sum = dict.fromkeys(names, 0)
    margin_sum = dict.fromkeys(names, 0)
    cat_sum: dict[str, dict[str, int]] = {n: {} for n in names}
    per_game: dict[str, list[float]] = {n: [] for n in names}
    for o in outcomes:
        shares = win_shares(o)
        top = o.scores[o.winners[0]] if o.winners else max(o.scores)
        here: dict[str, list[float]] = {}
        for s, kind in enumerate(o.kinds):
            seats_played[kind] += 1
            wins[kind] += shares[s]
            score_sum[kind] += o.scores[s]
            margin_sum[kind] += 0 if s in o.winners else o.scores[s] - top
            for c, pts in o.categories[s]:
                cat_sum[kind][c] = cat_sum[kind].get(c, 0) + pts
            here.setdefault(kind, []).append(shares[s])
        for kind, sh in here.items():
            per_game[kind].append(math.fsum(sh) / len(sh))
    elo = elo_ratings(pairwise(outcomes), names)
    out: dict[str, BotStats] = {}
    for n in names:
        played = seats_played[n]
        out[n] = BotStats(
            name=n,
            games=played,
            wins=wins[n],
            win_share=wins[n] / played,
            ci95=mean_ci95(per_game[n]),
            mean_score=score_sum[n] / played,
            mean_margin=margin_sum[n] / played,
            elo=elo[n],
            categories={c: v / played for c, v in cat_sum[n].items()},
        )
    return out


def pairwise(outcomes: Sequence[GameOutcome]) -> dict[tuple[str, str], float]:
    """Points ``(a, b) -> a's points against b`` over all seat pairs of different bots.

    The higher ranked seat of a pair scores 1: a winner ranks above a non-winner, then
    the higher score; same rank (equal scores, or both winners) is a draw, ½ each.
    """
    pts: dict[tuple[str, str], float] = {}
    for o in outcomes:
        key = [(1 if s in o.winners else 0, o.scores[s]) for s in range(len(o.kinds))]
        for i in range(len(o.kinds)):
            for j in range(i + 1, len(o.kinds)):
                a, b = o.kinds[i], o.kinds[j]
                if a == b:
                    continue
                ra = 1.0 if key[i] > key[j] else 0.0 if key[i] < key[j] else 0.5
                pts[(a, b)] = pts.get((a, b), 0.0) + ra
                pts[(b, a)] = pts.get((b, a), 0.0) + 1.0 - ra
    return pts


def elo_ratings(points: dict[tuple[str, str], float], names: Sequence[str],
                *, iterations: int = 100_000, tol: float = 1e-12) -> dict[str, float]:
    """Bradley–Terry strengths by Hunter's MM iteration, as Elo with mean 1500.

    A tiny prior keeps every strength finite: each bot also draws one virtual game
    against a fixed anchor of strength 1, so a bot that always wins gets a large but
    finite rating. Elo is 400·log10(strength), shifted so the bots' mean is 1500.
    """
    if not names:
        return {}
    wins = {n: 0.5 for n in names}  # the virtual draw
    played: dict[tuple[str, str], float] = {}
    for (a, b), p in points.items():
        wins[a] += p
        played[(a, b)] = played.get((a, b), 0.0) + p
        played[(b, a)] = played.get((b, a), 0.0) + p
    # played[(a, b)] now counts a's and b's points, i.e. each pairing once per direction.
    opponents: dict[str, list[tuple[str, float]]] = {n: [] for n in names}
    for (a, b), m in played.items():
        if a != b:
            opponents[a].append((b, m))
    strength = dict.fromkeys(names, 1.0)
    for _ in range(iterations):
        new: dict[str, float] = {}
        for n in names:
            denom = 1.0 / (strength[n] + 1.0)  # the anchor game
            for o, m in opponents[n]:
                denom += m / (strength[n] + strength[o])
            new[n] = wins[n] / denom
        delta = max(abs(math.log(new[n] / strength[n])) for n in names)
        strength = new
        if delta < tol:
            break
    ratings = {n: 400.0 * math.log10(strength[n]) for n in names}
    shift = ELO_BASE - math.fsum(ratings.values()) / len(ratings)
    return {n: r + shift for n, r in ratings.items()}


# ------------------------------------------------------------------ plot


def plot_scores(result: ArenaResult, path: Path | str) -> None:
    """Write a PNG of the score distribution per bot (box plots with the games as dots).

    Raises OSError when the file cannot be written.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    data = result.scores_by_bot()
    names = list(data)
    fig, (ax_box, ax_hist) = plt.subplots(1, 2, figsize=(11, 5),
                                          gridspec_kw={"width_ratios": [1, 1.3]})
    try:
        values = [data[n] for n in names]
        ax_box.boxplot(values, showmeans=True)
        ax_box.set_xticks(range(1, len(names) + 1), names)
        jitter = random.Random(0)  # the dots' spread only; fixed so the picture is stable
        for i, v in enumerate(values, start=1):
            xs = [i + jitter.uniform(-0.12, 0.12) for _ in v]
            ax_box.scatter(xs, v, s=8, alpha=0.35, color=f"C{i - 1}")
        ax_box.set_xlabel("bot")
        ax_box.set_ylabel("final score")
        ax_box.set_title("per bot (box: quartiles, triangle: mean)")
        ax_box.grid(axis="y", alpha=0.3)

        lo = min(min(v) for v in values if v)
        hi = max(max(v) for v in values if v)
        width = max(1, math.ceil((hi - lo + 1) / 25))
        bins = list(range(lo, hi + width + 1, width))
        for i, (n, v) in enumerate(zip(names, values, strict=True)):
            bs = result.bots.get(n)
            label = n if bs is None else f"{n} (mean {bs.mean_score:.1f}, n={bs.games})"
            ax_hist.hist(v, bins=bins, histtype="step", linewidth=2, label=label, color=f"C{i}")
        ax_hist.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax_hist.set_xlabel("final score")
        ax_hist.set_ylabel("seats")
        ax_hist.set_title("distribution")
        ax_hist.legend()
        ax_hist.grid(alpha=0.3)

        c = result.config
        fig.suptitle(f"Scores per bot — {result.board}, {c.players} players, "
                     f"{result.games} games (seats {','.join(c.seats)})")
        fig.tight_layout()
        # Rendered in memory, then written atomically: no half PNG is ever left behind.
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110)
        write_atomic(path, buf.getvalue())
    finally:
        plt.close(fig)
