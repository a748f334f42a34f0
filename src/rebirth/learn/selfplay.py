"""Self-play data for the value network: seeded bot games, one row per decision.

Every row is what the *acting* seat saw when it had to decide — the
:class:`~rebirth.engine.observer.Observer` vector of ``state.view(seat)``, never the
full state — and how that game ended for it. Seats are relative as in the observer:
slot 0 of every per-seat array is the acting seat, slot 1 the next seat in seat order.

Files (``docs/ai.md``): ``DIR/batch-00000.npz``... each hold up to ``batch_games`` games:

* ``indptr`` (P+1), ``indices``, ``values``: the observations as a CSR matrix (most of a
  vector is zero; P rows of :attr:`Observer.size` columns);
* ``game`` (P): game index; ``seat`` (P): absolute acting seat; ``ply`` (P): decision
  number within the game; ``legal`` (P): number of legal actions (1: a forced move);
* ``scores`` (P, N): final score of each relative seat; ``win_share`` (P, N): 1/k for each
  of k winners, else 0; ``margin`` (P): own final score minus the best rival's;
* ``heuristic`` (P, N): :func:`rebirth.bots.evaluate.projected` of one determinization of
  the acting seat's view (a baseline to compare the network with; from the view only).

``DIR/manifest.json`` is written last: board, players, variants, the observer's size and
fingerprint, seats, seed, exploration rate, and per game its deal seed and bots.

Each game is a pure function of (configuration, seed, game index) —
:func:`play_selfplay_game` takes only picklable arguments — so worker processes (or a
distributed backend) change how fast the data comes, never the data.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from rebirth.app.arena import ArenaError, _game, deal_seed, normalize_seats, seat_kinds
from rebirth.app.distributed import BACKENDS, BackendError, run_tasks
from rebirth.app.fileio import write_atomic
from rebirth.app.match import Match
from rebirth.bots.evaluate import projected
from rebirth.bots.value import observer_fingerprint
from rebirth.engine.determinize import determinize
from rebirth.engine.game import Game
from rebirth.engine.messages import UserError
from rebirth.engine.observer import Observer

FORMAT = "rebirth-selfplay/1"
MANIFEST = "manifest.json"
DEFAULT_SEATS = "heuristic"
DEFAULT_EPSILON = 0.05
"""Share of decisions played uniformly at random (from the view's legal actions): with
identical bots at every seat, games from different deals still run along similar lines;
one random move in twenty spreads the positions without making the outcomes meaningless."""
BATCH_GAMES = 50


class SelfPlayError(UserError):
    """A self-play configuration or output folder that is refused: a catalog key plus arguments."""


@dataclass(frozen=True)
class SelfPlayConfig:
    """What to play: ``seats`` holds one bot name per seat list entry (rotated per game)."""

    board: str
    players: int
    seats: tuple[str, ...]
    games: int
    seed: int = 0
    variants: tuple[str, ...] = ()
    epsilon: float = DEFAULT_EPSILON


@dataclass(frozen=True)
class GameRows:
    """The rows of one game (see the module doc for the fields)."""

    index: int
    deal_seed: int
    kinds: tuple[str, ...]
    final_scores: tuple[int, ...]
    winners: tuple[int, ...]
    indptr: npt.NDArray[np.int64]
    indices: npt.NDArray[np.int32]
    values: npt.NDArray[np.float32]
    seat: npt.NDArray[np.int8]
    ply: npt.NDArray[np.int16]
    legal: npt.NDArray[np.int16]
    heuristic: npt.NDArray[np.float32]

    @property
    def positions(self) -> int:
        return len(self.seat)


def game_seed(seed: int, index: int) -> int:
    """The deal of self-play game ``index``: every game its own deal (a rotation group of one).
    The arena's duplicate deals would replay one game N times with identical bots."""
    return deal_seed(seed, index, 1)


def play_selfplay_game(board: str, players: int, variants: tuple[str, ...], seats: tuple[str, ...],
                       seed: int, index: int, epsilon: float) -> GameRows:
    """Play self-play game ``index`` to the end, recording every decision (the worker)."""
    game = _game(board, players, variants)
    obs = _observer(game)
    kinds = seat_kinds(seats, index)
    dseed = game_seed(seed, index)
    match = Match.start(game, list(kinds), seed=dseed)
    # Exploration and the baseline's determinization draw from their own stream, keyed by
    # (seed, index): they never touch the deal's or the bots' randomness.
    rng = random.Random(f"rebirth-selfplay/{seed}/{index}")
    st = match.state
    n = players
    indptr = [0]
    indices: list[int] = []
    values: list[float] = []
    seat_l: list[int] = []
    legal_l: list[int] = []
    heur: list[list[float]] = []
    while not st.is_terminal():
        p = st.current_player
        view = st.view(p)  # the acting seat's view: all that is recorded comes from it
        sp = obs.sparse(view)
        for i in sorted(sp):
            v = sp[i]
            if v != 0.0:
                indices.append(i)
                values.append(v)
        indptr.append(len(indices))
        seat_l.append(p)
        legal_l.append(len(view.legal_actions))
        proj = projected(determinize(game, view, rng))
        heur.append([proj[(p + r) % n] for r in range(n)])
        if rng.random() < epsilon:
            acts = list(view.legal_actions)
            action = acts[int(rng.random() * len(acts))]
        else:
            action = match.bots[p].act(view)
        match.submit(p, action)
        st = match.state
    return GameRows(
        index=index, deal_seed=dseed, kinds=kinds, final_scores=tuple(st.score),
        winners=tuple(st.winners), indptr=np.asarray(indptr, dtype=np.int64),
        indices=np.asarray(indices, dtype=np.int32), values=np.asarray(values, dtype=np.float32),
        seat=np.asarray(seat_l, dtype=np.int8), ply=np.arange(len(seat_l), dtype=np.int16),
        legal=np.asarray(legal_l, dtype=np.int16),
        heuristic=np.asarray(heur, dtype=np.float32).reshape(len(seat_l), n),
    )


_OBSERVERS: dict[int, Observer] = {}


def _observer(game: Game) -> Observer:
    o = _OBSERVERS.get(id(game))
    if o is None:
        o = _OBSERVERS[id(game)] = Observer(game)
    return o


def _play_star(args: tuple[str, int, tuple[str, ...], tuple[str, ...], int, int, float]) -> GameRows:
    return play_selfplay_game(*args)


def tasks(config: SelfPlayConfig) -> list[tuple[str, int, tuple[str, ...], tuple[str, ...], int, int,
                                                float]]:
    """The picklable arguments of every game, in index order."""
    return [(config.board, config.players, tuple(config.variants), config.seats, config.seed, i,
             config.epsilon) for i in range(config.games)]


def iter_games(config: SelfPlayConfig, jobs: int = 1, *, backend: str = "local",
               address: str | None = None) -> Iterator[GameRows]:
    """Every game's rows in index order; ``jobs`` > 1 plays them in worker processes, and
    ``backend="ray"`` as Ray tasks (a local instance of ``jobs`` CPUs, or the cluster at
    ``address``): the same rows for the same seeds on every backend."""
    try:
        yield from run_tasks(_play_star, tasks(config), jobs=jobs, backend=backend, address=address)
    except BackendError as exc:
        raise SelfPlayError.like(exc) from exc


def batch_arrays(games: Sequence[GameRows], players: int) -> dict[str, npt.NDArray[Any]]:
    """The arrays of one batch file (see the module doc)."""
    n = players
    offsets = [0]
    for g in games:
        offsets.append(offsets[-1] + len(g.indices))
    indptr = np.concatenate([np.zeros(1, dtype=np.int64)]
                            + [g.indptr[1:] + off for g, off in zip(games, offsets, strict=False)])
    rows_game, rows_scores, rows_share, rows_margin = [], [], [], []
    for g in games:
        k = len(g.winners)
        share = [1.0 / k if q in g.winners else 0.0 for q in range(n)]
        for p in g.seat.tolist():
            rel = [(p + r) % n for r in range(n)]
            sc = [g.final_scores[q] for q in rel]
            rows_game.append(g.index)
            rows_scores.append(sc)
            rows_share.append([share[q] for q in rel])
            rows_margin.append(sc[0] - max(sc[1:]))
    return {
        "indptr": indptr,
        "indices": np.concatenate([g.indices for g in games]),
        "values": np.concatenate([g.values for g in games]),
        "game": np.asarray(rows_game, dtype=np.int32),
        "seat": np.concatenate([g.seat for g in games]),
        "ply": np.concatenate([g.ply for g in games]),
        "legal": np.concatenate([g.legal for g in games]),
        "scores": np.asarray(rows_scores, dtype=np.int16).reshape(-1, n),
        "win_share": np.asarray(rows_share, dtype=np.float32).reshape(-1, n),
        "margin": np.asarray(rows_margin, dtype=np.float32),
        "heuristic": np.concatenate([g.heuristic for g in games]),
    }


def check_out_dir(out: Path) -> None:
    """Refuse a folder that cannot be written or already holds self-play data (nothing is
    overwritten: a second run would mix two configurations)."""
    from rebirth.app.fileio import check_writable_dir

    why = check_writable_dir(out)
    if why is not None:
        raise SelfPlayError("error.arena.out", path=str(out), why=why)
    if out.is_dir() and ((out / MANIFEST).exists() or any(out.glob("batch-*.npz"))):
        raise SelfPlayError("error.selfplay.out_used", path=str(out))


def validate(config: SelfPlayConfig, jobs: int = 1) -> SelfPlayConfig:
    """The configuration with checked seats; SelfPlayError (or the engine's setup errors) else."""
    if config.games < 1:
        raise SelfPlayError("error.arena.games", games=config.games)
    if jobs < 1:
        raise SelfPlayError("error.arena.jobs", jobs=jobs)
    if not 0.0 <= config.epsilon <= 1.0:
        raise SelfPlayError("error.selfplay.epsilon", epsilon=str(config.epsilon))
    try:
        seats = normalize_seats(config.seats, config.players)
    except ArenaError as exc:
        raise SelfPlayError.like(exc) from None
    Game.create(config.board, config.players, config.variants)  # a bad board fails here
    return SelfPlayConfig(config.board, config.players, seats, config.games, config.seed,
                          tuple(config.variants), config.epsilon)


def run_selfplay(config: SelfPlayConfig, out: Path | str, jobs: int = 1,
                 progress: Callable[[int, int], None] | None = None,
                 batch_games: int = BATCH_GAMES, *, backend: str = "local",
                 address: str | None = None) -> dict[str, Any]:
    """Play every game and write the batches, then the manifest (returned).

    ``progress(games done, positions so far)`` after each game; ``backend`` and
    ``address`` as for :func:`iter_games`.
    """
    config = validate(config, jobs)
    if backend not in BACKENDS:
        raise SelfPlayError("error.arena.backend", backend=repr(backend), known=", ".join(BACKENDS))
    if address is not None and backend != "ray":
        raise SelfPlayError("error.arena.address")
    out = Path(out)
    check_out_dir(out)
    out.mkdir(parents=True, exist_ok=True)
    game = _game(config.board, config.players, config.variants)
    obs = _observer(game)
    batches: list[dict[str, Any]] = []
    per_game: list[dict[str, Any]] = []
    pending: list[GameRows] = []
    positions = 0

    def flush() -> None:
        name = f"batch-{len(batches):05d}.npz"
        arrays = batch_arrays(pending, config.players)
        buf = io.BytesIO()
        np.savez_compressed(buf, **arrays)  # type: ignore[arg-type]
        write_atomic(out / name, buf.getvalue())
        batches.append({"file": name, "games": [pending[0].index, pending[-1].index + 1],
                        "positions": len(arrays["seat"])})
        pending.clear()

    for done, g in enumerate(iter_games(config, jobs, backend=backend, address=address), start=1):
        pending.append(g)
        positions += g.positions
        per_game.append({"index": g.index, "deal_seed": g.deal_seed, "seats": list(g.kinds),
                         "scores": list(g.final_scores), "winners": list(g.winners),
                         "positions": g.positions})
        if len(pending) >= batch_games:
            flush()
        if progress is not None:
            progress(done, positions)
    if pending:
        flush()
    manifest = {
        "format": FORMAT,
        "board": game.board.id,
        "players": config.players,
        "variants": sorted(config.variants),
        "observer_size": obs.size,
        "observer_fingerprint": observer_fingerprint(obs),
        "seats": list(config.seats),
        "seed": config.seed,
        "epsilon": config.epsilon,
        "games": config.games,
        "positions": positions,
        "batches": batches,
        "per_game": per_game,
    }
    write_atomic(out / MANIFEST, json.dumps(manifest, indent=1) + "\n")
    return manifest


@dataclass(frozen=True)
class Dataset:
    """All rows of a self-play folder, observations dense (float32)."""

    manifest: dict[str, Any]
    x: npt.NDArray[np.float32]
    game: npt.NDArray[np.int32]
    win_share: npt.NDArray[np.float32]
    margin: npt.NDArray[np.float32]
    scores: npt.NDArray[np.int16]
    heuristic: npt.NDArray[np.float32]
    legal: npt.NDArray[np.int16]


def load_dataset(folder: Path | str) -> Dataset:
    """Read a self-play folder (SelfPlayError for a missing or foreign manifest)."""
    folder = Path(folder)
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SelfPlayError("error.selfplay.no_manifest", folder=str(folder), manifest=MANIFEST) from None
    except (OSError, ValueError) as exc:
        raise SelfPlayError("error.selfplay.unreadable", path=str(folder / MANIFEST),
                            reason=str(exc)) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise SelfPlayError("error.selfplay.format", path=str(folder / MANIFEST), format=FORMAT)
    size = int(manifest["observer_size"])
    parts: dict[str, list[npt.NDArray[Any]]] = {}
    xs: list[npt.NDArray[np.float32]] = []
    for b in manifest["batches"]:
        with np.load(folder / b["file"]) as z:
            rows = len(z["seat"])
            x = np.zeros((rows, size), dtype=np.float32)
            indptr = z["indptr"]
            row_of = np.repeat(np.arange(rows), np.diff(indptr))
            x[row_of, z["indices"]] = z["values"]
            xs.append(x)
            for k in ("game", "win_share", "margin", "scores", "heuristic", "legal"):
                parts.setdefault(k, []).append(z[k])
    cat = {k: np.concatenate(v) for k, v in parts.items()}
    return Dataset(manifest, np.concatenate(xs), cat["game"], cat["win_share"], cat["margin"],
                   cat["scores"], cat["heuristic"], cat["legal"])
