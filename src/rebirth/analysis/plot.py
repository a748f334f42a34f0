"""The win-chance chart of an analysis as a PNG (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path

from rebirth.analysis.core import Analysis
from rebirth.engine.messages import render_message


def win_series(analysis: Analysis) -> dict[int, list[tuple[int, float]]]:
    """Per analysed seat: (record entry, estimated win chance 0..1) after each of its moves
    (as played) and after each of its draws, in record order."""
    out: dict[int, list[tuple[int, float]]] = {q: [] for q in analysis.seats}
    points = [(d.index, 0, d.seat, d.played.win) for d in analysis.decisions]
    points += [(x.index, 1, x.seat, x.after.win) for x in analysis.luck]
    for index, _, seat, win in sorted(points):
        out[seat].append((index, win))
    return out


def plot_win_chance(analysis: Analysis, path: str | Path) -> None:
    """Write the chart of each seat's estimated win chance over the game to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=100)
    try:
        for seat, pts in win_series(analysis).items():
            if pts:
                ax.plot([p[0] + 1 for p in pts], [100 * p[1] for p in pts], marker=".",
                        label=analysis.names[seat])
        for d in analysis.decisions:
            if d.label in ("mistake", "blunder"):
                ax.annotate(d.played.action or "", (d.index + 1, 100 * d.played.win),
                            fontsize=7, color="crimson")
        ax.set_ylim(-2, 102)
        lang, names = analysis.lang, analysis.names
        ax.set_xlabel(render_message("analysis.plot.x", {}, lang, names))
        ax.set_ylabel(render_message("analysis.plot.y", {}, lang, names))
        blunder = render_message("analysis.label.blunder", {}, lang, names)
        ax.set_title(render_message("analysis.plot.title", {"blunder": blunder}, lang, names))
        ax.grid(alpha=0.3)
        ax.legend(loc="best", fontsize=8)
        fig.tight_layout()
        fig.savefig(str(path), format="png")
    finally:
        plt.close(fig)
