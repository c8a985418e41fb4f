"""Learning curves averaged over seeds, with 95% Student t bands (PNG).

Runs of one preset that differ by seed, averaged on a common step grid::

    python -m cardsuite.train.tools.curves runs/ppo4-s0 runs/ppo4-s1 --out curves.png
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from cardsuite.errors import ConfigError
from cardsuite.train.core.log import read_rows

#: (file, [(column, title), ...]): each panel draws the first column the runs have
#: (PPO logs ``league_win`` and ``entropy``; Deep Monte-Carlo ``league_score`` and ``loss``).
PANELS = (("progress.csv", [("league_win", "learner's score in league games"),
                            ("league_score", "learner's score in league games")]),
          ("progress.csv", [("entropy", "policy entropy"), ("loss", "Q-regression loss")]),
          ("eval.csv", [("beats", "beats the heuristic (duplicate deals)")]))  # fmt: skip


def _column(path: Path, name: str, against: str | None) -> tuple[np.ndarray, np.ndarray]:
    rows = [r for r in read_rows(path) if against is None or r.get("against") == against]
    pts = [(float(r["step"]), float(r[name])) for r in rows if r.get(name) not in (None, "", "nan")]
    x, y = np.array(pts, dtype=np.float64).reshape(-1, 2).T
    return x, y


def band(
    runs: Sequence[Path], file: str, name: str, against: str | None = None, points: int = 60
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Common step grid, mean over runs and the 95% half-width; runs that had the column."""
    series = [(x, y) for x, y in (_column(Path(r) / file, name, against) for r in runs) if x.size]
    if not series:
        return np.zeros(0), np.zeros(0), np.zeros(0), 0
    lo = max(x.min() for x, _ in series)
    hi = min(x.max() for x, _ in series)
    grid = np.linspace(lo, hi, points) if hi > lo else np.array([lo])
    ys = np.array([np.interp(grid, x, y) for x, y in series])
    mean = ys.mean(axis=0)
    half = np.zeros_like(mean)
    if len(ys) > 1:  # Student t over seeds: with 3 seeds the quantile is 4.30, not 1.96
        from scipy.stats import t

        half = float(t.ppf(0.975, len(ys) - 1)) * ys.std(axis=0, ddof=1) / np.sqrt(len(ys))
    return grid, mean, half, len(ys)


def eval_opponents(runs: Sequence[Path], base: str = "heuristic") -> list[str]:
    """The evaluation rows' opponents named ``base`` or ``base@Np`` in the runs' ``eval.csv``,
    by player count (one per table size of a size-generic run)."""
    names: set[str] = set()
    for r in runs:
        path = Path(r) / "eval.csv"
        if path.is_file():
            names.update(str(row.get("against", "")) for row in read_rows(path))
    sized = [n for n in names if n.startswith(f"{base}@") and n.endswith("p")]
    if not sized:
        return [base]
    return sorted(sized, key=lambda n: int(n[len(base) + 1 : -1] or 0))


def panel_column(
    runs: Sequence[Path], file: str, choices: Sequence[tuple[str, str]]
) -> tuple[str, str]:
    """The first ``(column, title)`` of ``choices`` that some run's ``file`` has rows of."""
    for name, label in choices:
        if any(_column(Path(r) / file, name, None)[0].size for r in runs):
            return name, label
    return choices[0]


def plot_seeds(runs: Sequence[Path], out_png: Path, title: str = "") -> Path:
    """Draw the panels of `PANELS` for ``runs`` into ``out_png``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    if not runs:
        raise ConfigError("curves: give at least one run directory")
    fig, axes = plt.subplots(1, len(PANELS), figsize=(4.2 * len(PANELS), 3.4))
    for ax, (file, choices) in zip(axes, PANELS):
        name, label = panel_column(runs, file, choices)
        against: list[str | None] = list(eval_opponents(runs)) if file == "eval.csv" else [None]
        n = 0
        for who in against:
            grid, mean, half, n = band(runs, file, name, who)
            tag = who.split("@", 1)[1] if who and "@" in who else None
            if n and grid.size < 5:
                ax.errorbar(grid, mean, yerr=half, marker="o", capsize=3, label=tag)
            elif n:
                ax.plot(grid, mean, label=tag)
                ax.fill_between(grid, mean - half, mean + half, alpha=0.25)
        if len(against) > 1:
            ax.legend(fontsize=7)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _p: f"{x / 1e6:g}M" if x else "0"))
        ax.set_title(f"{label} ({n} seed{'s' if n != 1 else ''})", fontsize=9)
        ax.set_xlabel("learner decisions")
        ax.grid(alpha=0.3)
        if not n:
            ax.text(0.5, 0.5, f"no {name} in these runs", ha="center", va="center",
                    transform=ax.transAxes, fontsize=8)  # fmt: skip
        if name in ("league_win", "league_score", "beats"):
            ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    fig.suptitle(title or ", ".join(Path(r).name for r in runs), fontsize=10)
    fig.tight_layout()
    out_png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_png, dpi=100)
    plt.close(fig)
    return out_png


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cardsuite.train.tools.curves RUN... --out PNG``."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", help="run directories of one preset, one per seed")
    p.add_argument("--out", required=True, help="PNG to write")
    p.add_argument("--title", default="", help="figure title")
    a = p.parse_args(argv)
    print(plot_seeds([Path(r) for r in a.runs], Path(a.out), a.title))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
