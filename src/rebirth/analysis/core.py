"""Post-game analysis: every decision of every seat judged from that seat's view only.

For each decision with more than one legal option, the seat's information set is
sampled into worlds (:mod:`rebirth.analysis.estimate`), the heuristic bot's best
``top_k`` actions plus the move played are each played out to the end on the same
worlds, and the move played is compared with the best one found: its loss in expected
outcome (final margin plus win chance weighed in points, :data:`WIN_POINTS`) with its
standard error, the loss's two parts, a label and an accuracy from that same loss. The luck of
each draw (the tile drawn after a turn, an extra tile's reveal, I-7) is the value
after the draw minus the value expected before it, kept apart from skill as GNU
Backgammon does. Thresholds and definitions: ``docs/analysis.md``.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rebirth.analysis import DEFAULT_TOP_K, DEFAULT_WORLDS
from rebirth.analysis.estimate import (
    WIN_POINTS,
    Estimate,
    Outcome,
    Worlds,
    evaluate_position,
    final_outcome,
    paired_difference,
    paired_value_difference,
    summarise,
)
from rebirth.bots.heuristic import score_actions
from rebirth.engine.actions import parse_action
from rebirth.engine.board import Board
from rebirth.engine.determinize import determinize
from rebirth.engine.game import Game, Setup
from rebirth.engine.infoset import Visibility
from rebirth.engine.messages import UserError, render_message
from rebirth.engine.records import replay
from rebirth.engine.replay import ChanceEntry, LogEntry, ReplayedStep, entry_from_json, replay_log
from rebirth.engine.state import State
from rebirth.engine.tiles import tile_code
from rebirth.engine.views import View

LABELS = ("good", "inaccuracy", "mistake", "blunder")
LOSS_THRESHOLDS = (4.0, 8.0, 12.0)
"""Loss in expected outcome (points, :data:`WIN_POINTS`) from which a move is an inaccuracy,
a mistake, a blunder: a move that throws 10 points away is a mistake even when the win
chance stays at 100 %."""
WIN_THRESHOLDS = tuple(t / WIN_POINTS for t in LOSS_THRESHOLDS)
"""The same thresholds for a loss in win chance alone (0..1; the margin unchanged)."""
MARGIN_THRESHOLDS = LOSS_THRESHOLDS
"""The same thresholds for a loss in final margin alone (points; the win chance unchanged)."""
Z_MIN = 2.0
"""A loss counts only when it is at least this many standard errors (paired) above zero."""
ACCURACY_SCALE = 5.0
"""Loss in expected outcome (points) that takes a move's accuracy from 100 to 100/e."""

MESSAGE_KEYS = (
    "analysis.header", "analysis.noise", "analysis.seat", "analysis.decision",
    "analysis.forced", "analysis.luck.draw", "analysis.luck.reveal", "analysis.costliest",
    "analysis.instead", "analysis.would", "analysis.did", "analysis.nothing_now",
    "analysis.label.good", "analysis.label.inaccuracy", "analysis.label.mistake",
    "analysis.label.blunder", "analysis.none", "analysis.plot.x", "analysis.plot.y",
    "analysis.plot.title", "analysis.not_over",
)
"""The catalog keys this package renders (data/i18n)."""


class AnalysisError(UserError):
    """A record or seat that cannot be analysed: a catalog key plus arguments saying why."""


@dataclass(frozen=True)
class Explanation:
    """Why the better move was better, in the engine's own events (public parts only) of
    the better move and of the move played, applied to one world of the seat's view."""

    best_events: tuple[dict[str, Any], ...]
    played_events: tuple[dict[str, Any], ...]
    text: str

    def to_json(self) -> dict[str, Any]:
        """Events as ``{"key", "args", "rule"}`` (renderable by any client) and the text."""
        return {"best_events": list(self.best_events), "played_events": list(self.played_events),
                "text": self.text}


@dataclass(frozen=True)
class Decision:
    """One decision of ``seat`` at record entry ``index`` (0-based). Losses are best minus
    played (win chance 0..1, margin in points), each with its paired standard error."""

    index: int
    turn: int
    seat: int
    phase: str
    tile: str | None
    options: int
    played: Estimate
    best: Estimate
    loss_win: float
    loss_win_se: float
    loss_margin: float
    loss_margin_se: float
    label: str
    accuracy: float
    candidates: tuple[Estimate, ...]
    explanation: Explanation | None = None
    loss: float = 0.0
    """Loss in expected outcome (points): ``loss_margin + WIN_POINTS * loss_win``."""
    loss_se: float = 0.0
    """Its paired standard error (per world, so with the covariance of the two parts)."""

    def to_json(self) -> dict[str, Any]:
        """The decision as JSON (seats numbered from 1, win figures in percent)."""
        return {
            "index": self.index, "turn": self.turn, "seat": self.seat + 1, "phase": self.phase,
            "tile": self.tile, "options": self.options,
            "played": self.played.to_json(), "best": self.best.to_json(),
            "loss_win_pct": round(100 * self.loss_win, 1),
            "loss_win_se_pct": round(100 * self.loss_win_se, 1),
            "loss_margin": round(self.loss_margin, 2),
            "loss_margin_se": round(self.loss_margin_se, 2),
            "loss": round(self.loss, 2), "loss_se": round(self.loss_se, 2),
            "label": self.label, "accuracy": round(self.accuracy, 1),
            "candidates": [c.to_json() for c in self.candidates],
            "explanation": self.explanation.to_json() if self.explanation else None,
        }


@dataclass(frozen=True)
class Luck:
    """A draw for ``seat`` after record entry ``index``: ``kind`` is ``draw`` (the tile drawn
    into the hand, P-6) or ``reveal`` (an extra tile revealed, I-7). ``before`` is the value
    expected before the draw (the move played, as estimated then), ``after`` the value once
    the tile is known; luck is after minus before, with the standard error of the difference."""

    index: int
    seat: int
    kind: str
    tile: str
    before: Estimate
    after: Estimate
    luck_win: float
    luck_win_se: float
    luck_margin: float
    luck_margin_se: float

    def to_json(self) -> dict[str, Any]:
        """The draw as JSON (seat from 1, win figures in percent)."""
        return {
            "index": self.index, "seat": self.seat + 1, "kind": self.kind, "tile": self.tile,
            "before": self.before.to_json(), "after": self.after.to_json(),
            "luck_win_pct": round(100 * self.luck_win, 1),
            "luck_win_se_pct": round(100 * self.luck_win_se, 1),
            "luck_margin": round(self.luck_margin, 2),
            "luck_margin_se": round(self.luck_margin_se, 2),
        }


@dataclass(frozen=True)
class SeatSummary:
    """Per seat: accuracy (mean per-move accuracy, docs/analysis.md), label counts, total
    luck and the costliest decisions (indices into :attr:`Analysis.decisions`)."""

    seat: int
    name: str
    decisions: int
    forced: int
    labels: dict[str, int]
    accuracy: float
    luck_win: float
    luck_win_se: float
    luck_margin: float
    luck_margin_se: float
    final_score: int
    won: bool
    costliest: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON (seat from 1)."""
        return {
            "seat": self.seat + 1, "name": self.name, "decisions": self.decisions,
            "forced": self.forced, "labels": dict(self.labels),
            "accuracy": round(self.accuracy, 1),
            "luck_win_pct": round(100 * self.luck_win, 1),
            "luck_win_se_pct": round(100 * self.luck_win_se, 1),
            "luck_margin": round(self.luck_margin, 2),
            "luck_margin_se": round(self.luck_margin_se, 2),
            "final_score": self.final_score, "won": self.won,
            "costliest": list(self.costliest),
        }


@dataclass(frozen=True)
class Noise:
    """The measured noise: medians over the decisions of the standard errors."""

    value_win_se: float
    value_margin_se: float
    loss_win_se: float
    loss_margin_se: float

    def to_json(self) -> dict[str, Any]:
        """Win figures in percentage points, margins in points."""
        return {"value_win_se_pct": round(100 * self.value_win_se, 2),
                "value_margin_se": round(self.value_margin_se, 2),
                "loss_win_se_pct": round(100 * self.loss_win_se, 2),
                "loss_margin_se": round(self.loss_margin_se, 2)}


@dataclass(frozen=True)
class Analysis:
    """The analysis of one record (see :func:`analyse`)."""

    board: str
    players: int
    names: tuple[str, ...]
    seats: tuple[int, ...]
    seed: int
    worlds: int
    top_k: int
    decisions: tuple[Decision, ...]
    luck: tuple[Luck, ...]
    summaries: tuple[SeatSummary, ...]
    noise: Noise
    lang: str = "en"
    thresholds: dict[str, Any] = field(default_factory=lambda: {
        "labels": list(LABELS), "loss": list(LOSS_THRESHOLDS), "win_points": WIN_POINTS,
        "win_pct": [round(100 * t, 1) for t in WIN_THRESHOLDS],
        "margin": list(MARGIN_THRESHOLDS), "z_min": Z_MIN, "accuracy_scale": ACCURACY_SCALE})

    def to_json(self) -> dict[str, Any]:
        """The whole analysis as JSON (``docs/analysis.md`` describes the fields)."""
        return {
            "format": "rebirth-analysis", "version": 1,
            "board": self.board, "players": self.players, "names": list(self.names),
            "seats": [s + 1 for s in self.seats], "seed": self.seed, "worlds": self.worlds,
            "top_k": self.top_k, "lang": self.lang, "thresholds": self.thresholds,
            "noise": self.noise.to_json(),
            "summaries": [s.to_json() for s in self.summaries],
            "decisions": [d.to_json() for d in self.decisions],
            "luck": [x.to_json() for x in self.luck],
        }


def outcome_loss(loss_win: float, loss_margin: float) -> float:
    """A loss in expected outcome (points) from its parts: win chance (0..1) and margin."""
    return loss_margin + WIN_POINTS * loss_win


def loss_accuracy(loss: float) -> float:
    """A move's accuracy from its loss in expected outcome (points): 100 for no loss, falling
    by a factor e every :data:`ACCURACY_SCALE` points (about 82 for 1 point, 45 for 4, 20
    for 8). Exponential like lichess's curve on win chance, which it replaces: win chance
    alone gives a seat that is hopelessly behind (or far ahead) 100 on every move."""
    return 100.0 * math.exp(-max(0.0, loss) / ACCURACY_SCALE)


MIN_MOVE_ACCURACY = 1.0
"""The least a move counts with in a seat's accuracy (a loss of ACCURACY_SCALE · ln 100, about
23 points, or more): one hopeless move does not sink a whole game's figure."""


def seat_accuracy(accuracies: Sequence[float]) -> float:
    """A seat's accuracy from its moves' (100 with none): their geometric mean, each at least
    :data:`MIN_MOVE_ACCURACY`, which is :func:`loss_accuracy` of the seat's mean loss per move
    (each loss capped there), so seats are ordered as their mean losses are. The plain mean of
    the convex per-move curve rewarded erratic play: a random player's occasional near-best
    move outweighed its larger losses, and it came out above ``easy`` on Scotland with 2
    players although its mean loss per move was larger (docs/analysis.md)."""
    if not accuracies:
        return 100.0
    return math.exp(statistics.fmean(math.log(max(MIN_MOVE_ACCURACY, a)) for a in accuracies))


def move_accuracy(loss_win: float, loss_margin: float = 0.0) -> float:
    """A move's accuracy from a drop in win chance (0..1) and in final margin (points), the
    two parts of its loss in expected outcome (:func:`loss_accuracy`)."""
    return loss_accuracy(outcome_loss(loss_win, loss_margin))


def loss_label(loss: float, loss_se: float) -> str:
    """The label of a loss in expected outcome (points, :data:`LOSS_THRESHOLDS`), counted only
    when it is at least :data:`Z_MIN` standard errors above zero: no loss is always good."""
    if loss <= 0 or loss < Z_MIN * loss_se:
        return LABELS[0]
    return LABELS[sum(1 for t in LOSS_THRESHOLDS if loss >= t)]


def label_for(loss_win: float, loss_win_se: float, loss_margin: float,
              loss_margin_se: float) -> str:
    """The label of a loss given by its two parts (:func:`loss_label` of their weighed sum).
    Without the per-world outcomes the covariance is unknown, so the error is the sum of the
    parts' errors (the largest it can be): :func:`analyse_decision` uses the paired one."""
    return loss_label(outcome_loss(loss_win, loss_margin),
                      loss_margin_se + WIN_POINTS * loss_win_se)


def analyse_decision(game: Game, view: View, played: int, *, worlds: int = DEFAULT_WORLDS,
                     top_k: int = DEFAULT_TOP_K, rng: random.Random,
                     index: int = 0) -> tuple[Decision, State]:
    """Judge ``played`` (an action id) for ``view.seat`` from that view alone; also returns
    the first world (for explanations). Same view and rng state: same result."""
    seat = view.seat
    if seat is None or view.current_player != seat:
        raise AnalysisError("error.analysis.not_to_act")
    legal = list(view.legal_action_ids)
    if played not in legal:
        raise AnalysisError("error.analysis.not_legal", action=game.codec.text(played))
    ws = Worlds(game, view, worlds, rng)
    ranked = sorted(score_actions(ws.base, seat), key=lambda x: (-x[0], x[1]))
    cands = [a for _, a in ranked[:top_k]]
    if played not in cands:
        cands.append(played)
    raw = {a: ws.outcomes(a) for a in cands}
    est = {a: summarise(game.codec.text(a), raw[a]) for a in cands}
    # The best move is the one with the highest expected outcome (the quantity labels and
    # accuracy weigh), so the loss is never negative; ties go to the move played.
    best = max(cands, key=lambda a: (est[a].value, a == played, -a))
    dw, dwse, dm, dmse = paired_difference(raw[best], raw[played])
    loss, loss_se = paired_value_difference(raw[best], raw[played])
    ordered = tuple(est[a] for a in sorted(cands, key=lambda a: (-est[a].value, -est[a].win, a)))
    tile = view.hand if view.phase == "place" else view.extra_tile if view.phase == "extra" else None
    dec = Decision(index=index, turn=view.turn, seat=seat, phase=view.phase, tile=tile,
                   options=len(legal), played=est[played], best=est[best], loss_win=dw,
                   loss_win_se=dwse, loss_margin=dm, loss_margin_se=dmse,
                   label=loss_label(loss, loss_se), accuracy=loss_accuracy(loss),
                   candidates=ordered, loss=loss, loss_se=loss_se)
    return dec, ws.base


def _public_events(state: State, text: str) -> tuple[dict[str, Any], ...]:
    """The public events of ``text`` applied to a copy of ``state`` (no private parts: a
    world's hidden cards are sampled, not known)."""
    child = state.clone()
    out = []
    for ev in child.apply(text):
        if ev.kind in ("place", "returned"):
            continue  # "X places a tile on H7" says nothing the move's name does not
        j = ev.to_json(None)
        out.append({"key": j["key"], "args": j["args"], "rule": j["rule"], "points": j["points"]})
    return tuple(out)


def _render_events(events: Sequence[dict[str, Any]], lang: str, names: Sequence[str]) -> str:
    if not events:
        return render_message("analysis.nothing_now", {}, lang, names)
    return " ".join(render_message(e["key"], e["args"], lang, names) for e in events)


def explain(dec: Decision, world: State, lang: str, names: Sequence[str]) -> Explanation:
    """The move played against the better one, in words from the engine's events: the move
    played is named first ("Played G17 ...; J13 was better"), so it cannot be misread."""
    best = dec.best.action or ""
    played = dec.played.action or ""
    be = _public_events(world, best)
    pe = _public_events(world, played)
    args = {"best": best, "played": played,
            "best_win": f"{100 * dec.best.win:.0f}", "played_win": f"{100 * dec.played.win:.0f}",
            "best_margin": f"{dec.best.margin:+.1f}", "played_margin": f"{dec.played.margin:+.1f}",
            "loss": f"{dec.loss:.1f}"}
    text = " ".join((
        render_message("analysis.instead", args, lang, names),
        render_message("analysis.would", {"best": best, "effects": _render_events(be, lang, names)},
                       lang, names),
        render_message("analysis.did", {"played": played, "effects": _render_events(pe, lang, names)},
                       lang, names),
    ))
    return Explanation(be, pe, text)


def _seed_rng(seed: int, *parts: object) -> random.Random:
    # A string seed is hashed (SHA-512) by random.Random: stable across runs and platforms,
    # and each decision's stream is independent of which other seats are analysed.
    return random.Random("rebirth-analysis:" + ":".join(str(p) for p in (seed, *parts)))


def _diff(a: Estimate, b: Estimate) -> tuple[float, float, float, float]:
    """after - before for two independent estimates."""
    return (a.win - b.win, math.hypot(a.win_se, b.win_se),
            a.margin - b.margin, math.hypot(a.margin_se, b.margin_se))


def analyse(record: Any, seat: int | None = None, *, worlds: int = DEFAULT_WORLDS,
            top_k: int = DEFAULT_TOP_K, seed: int = 0, lang: str = "en",
            board: Board | None = None,
            progress: Callable[[int, int], None] | None = None) -> Analysis:
    """Analyse a complete record for ``seat`` (0-based; None: every seat).

    ``progress(done, total)`` is told after each record entry (for a progress bar).

    Raises :class:`~rebirth.engine.records.RecordError` for a record that does not replay
    (a redacted one included) and :class:`AnalysisError` for a bad seat or budget.
    """
    if worlds < 2:
        raise AnalysisError("error.analysis.worlds", worlds=worlds)
    if top_k < 1:
        raise AnalysisError("error.analysis.top_k", top_k=top_k)
    final = replay(record, board=board)
    if record.get("table") is True:
        raise AnalysisError("error.analysis.table")
    game = final.game
    n = game.players
    if seat is not None and not 0 <= seat < n:
        raise AnalysisError("error.analysis.no_seat", seat=seat + 1, n=n)
    names = tuple(str(p.get("name") or f"Player {i + 1}") for i, p in enumerate(record["players"]))
    seats = tuple(range(n)) if seat is None else (seat,)
    sd = record.get("seed")
    state = game.from_setup(Setup.from_json(record["setup"]), seed=sd if isinstance(sd, int) else None)

    decisions: list[Decision] = []
    worlds_of: dict[int, State] = {}
    forced = dict.fromkeys(seats, 0)
    luck: list[Luck] = []
    # Per seat, what its last move was expected to be worth (for the luck of the next draw).
    expected: dict[int, Estimate] = {}
    last_seat = -1
    before: View | None = None
    total = len(record["actions"])

    # The engine's one replay walks the record (engine/replay.py); the analysis looks at
    # each decision just before it is applied and at the draw just after.
    def look_before(i: int, entry: LogEntry) -> None:
        nonlocal last_seat, before
        if progress is not None and i:
            progress(i, total)
        if isinstance(entry, ChanceEntry):
            return
        p = entry.seat
        text = entry.text
        last_seat = p
        before = state.view(p) if p in seats else None
        if before is None:
            return
        aid = state.action_id(parse_action(text))
        assert aid is not None  # the record replayed: every action is legal
        rng = _seed_rng(seed, i, p)
        if len(before.legal_action_ids) > 1:
            dec, world = analyse_decision(game, before, aid, worlds=worlds, top_k=top_k,
                                          rng=rng, index=i)
            worlds_of[len(decisions)] = world
            decisions.append(dec)
            expected[p] = dec.played
        else:
            forced[p] += 1
            ws = Worlds(game, before, worlds, rng)
            expected[p] = summarise(text, ws.outcomes(aid))

    def look_after(step: ReplayedStep) -> None:
        i = step.index
        entry = step.entry
        if isinstance(entry, ChanceEntry):
            owner = last_seat
            if owner in seats and owner in expected and not state.is_terminal():
                v = state.view(owner)
                after = evaluate_position(game, v, worlds=worlds, rng=_seed_rng(seed, i, owner, "v"))
                luck.append(_luck(i, owner, "reveal", entry.text.split()[-1],
                                  expected.pop(owner), after))
            return
        p = entry.seat
        if before is None:
            return
        if state.is_terminal():
            expected.pop(p, None)
            return
        if state.is_chance_node():
            return
        after_view = state.view(p)
        drew = after_view.supply_counts[p] < before.supply_counts[p] and after_view.hand is not None
        if drew and p in expected:
            rng = _seed_rng(seed, i, p, "v")
            if after_view.current_player == p:
                # The seat moves again at once: the other tiles could not all be placed
                # (P-7), so no like-for-like swap exists; compare with the move's value.
                after = evaluate_position(game, after_view, worlds=worlds, rng=rng)
                luck.append(_luck(i, p, "draw", str(after_view.hand), expected.pop(p), after))
            else:
                expected.pop(p)
                luck.append(draw_luck(game, after_view, worlds=worlds, rng=rng, index=i))
        elif after_view.current_player != p:
            expected.pop(p, None)

    replay_log(state, [entry_from_json(e) for e in record["actions"]], before_step=look_before,
               on_step=look_after)

    if progress is not None:
        progress(total, total)
    # Explanations for each seat's three costliest moves.
    summaries = []
    dec_list = list(decisions)
    for q in seats:
        mine = [k for k, d in enumerate(dec_list) if d.seat == q]
        costly = sorted((k for k in mine if dec_list[k].label != "good"
                         or dec_list[k].best.action != dec_list[k].played.action),
                        key=lambda k: (-LABELS.index(dec_list[k].label), -dec_list[k].loss,
                                       -dec_list[k].loss_win, k))[:3]
        costly = [k for k in costly if dec_list[k].best.action != dec_list[k].played.action]
        for k in costly:
            d = dec_list[k]
            dec_list[k] = _with_explanation(d, explain(d, worlds_of[k], lang, names))
        counts = {lab: sum(1 for k in mine if dec_list[k].label == lab) for lab in LABELS}
        acc = seat_accuracy([dec_list[k].accuracy for k in mine])
        ql = [x for x in luck if x.seat == q]
        res = final_outcome(final, q)
        summaries.append(SeatSummary(
            seat=q, name=names[q], decisions=len(mine), forced=forced[q], labels=counts,
            accuracy=acc, luck_win=sum(x.luck_win for x in ql),
            luck_win_se=math.sqrt(sum(x.luck_win_se ** 2 for x in ql)),
            luck_margin=sum(x.luck_margin for x in ql),
            luck_margin_se=math.sqrt(sum(x.luck_margin_se ** 2 for x in ql)),
            final_score=int(res.score), won=q in final.winners, costliest=tuple(costly)))
    noise = Noise(
        value_win_se=_median([d.played.win_se for d in dec_list]),
        value_margin_se=_median([d.played.margin_se for d in dec_list]),
        loss_win_se=_median([d.loss_win_se for d in dec_list if d.best.action != d.played.action]),
        loss_margin_se=_median([d.loss_margin_se for d in dec_list
                                if d.best.action != d.played.action]))
    return Analysis(board=game.board.id, players=n, names=names, seats=seats, seed=seed,
                    worlds=worlds, top_k=top_k, decisions=tuple(dec_list), luck=tuple(luck),
                    summaries=tuple(summaries), noise=noise, lang=lang)


def draw_luck(game: Game, view: View, *, worlds: int, rng: random.Random, index: int = 0) -> Luck:
    """The luck of the tile ``view.seat`` has just drawn into its hand (P-6), GNU Backgammon's
    way: the value with the tile drawn minus the mean over every tile it could have drawn
    (weighted by its chance from the seat's view). Every alternative is valued on the same
    worlds and playout streams (the view with only the hand changed), so the difference is
    far less noisy than two separate estimates."""
    seat = view.seat
    if seat is None or view.hand is None:
        raise AnalysisError("error.analysis.no_hand")
    seed = rng.getrandbits(64)
    probe = determinize(game, view, random.Random(seed))
    unseen = probe.tiles_of(seat)["supply"] + probe.tiles_of(seat)["hand"]
    if not Visibility.of(game).sees_set_aside(seat, seat):
        # Unseen set-aside tiles (Ireland, S-4) could as well have been the one drawn.
        unseen += probe.face_down(seat)
    chance = {tile_code(t): c / len(unseen) for t, c in Counter(unseen).items()}
    raw = {code: Worlds(game, replace(view, hand=code), worlds, random.Random(seed)).outcomes(None)
           for code in sorted(chance)}
    drawn = raw[view.hand]
    mix = [Outcome(sum(chance[c] * raw[c][w].win for c in raw),
                   sum(chance[c] * raw[c][w].margin for c in raw),
                   sum(chance[c] * raw[c][w].score for c in raw)) for w in range(worlds)]
    dw, dwse, dm, dmse = paired_difference(drawn, mix)
    return Luck(index, seat, "draw", view.hand, summarise(None, mix), summarise(None, drawn),
                dw, dwse, dm, dmse)


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else 0.0


def _luck(index: int, seat: int, kind: str, tile: str, before: Estimate, after: Estimate) -> Luck:
    dw, dwse, dm, dmse = _diff(after, before)
    return Luck(index, seat, kind, tile, before, after, dw, dwse, dm, dmse)


def _with_explanation(d: Decision, e: Explanation) -> Decision:
    return replace(d, explanation=e)
