"""Curves, TensorBoard and progress lines of every trainer (`RunLog`): ``RUN/progress.csv``,
``RUN/eval.csv`` and ``RUN/tb``; a resume drops what follows the checkpoint (`open_log`).
`plot_seeds` draws the curves of one run, or of runs that differ by seed (PNG)."""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.errors import ConfigError
from cardsuite.train.core.rundir import RunPlan, start_logs

EVAL_FIELDS = ("step", "against", "deals", "beats", "beats_ci", "mean_a", "mean_b", "margin",
               "margin_ci")  # fmt: skip


def append_rows(path: Path, fields: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> None:
    """Append ``rows`` to the CSV log at ``path`` (its header first when new; other keys ignored)."""
    new = not path.exists()
    with open(path, "a", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(fields), extrasaction="ignore")
        if new:
            writer.writeheader()
        writer.writerows(rows)


def read_rows(path: str | Path) -> list[dict[str, str]]:
    """The rows of a CSV log (empty when it does not exist)."""
    p = Path(path)
    if not p.exists():
        return []
    with open(p, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def summary_writer(folder: Path, purge_step: int | None = None) -> Any:
    """A TensorBoard ``SummaryWriter`` on ``folder`` (None without tensorboard); with
    ``purge_step`` (a resume) it discards older events from that step on."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    return SummaryWriter(log_dir=str(folder), purge_step=purge_step)


class RunLog:
    """Appends to ``progress.csv`` (columns ``progress_fields``), ``eval.csv`` and TensorBoard in
    ``run_dir``, and prints progress lines showing the ``headline`` keys unless ``quiet``."""

    def __init__(
        self, run_dir: Path, progress_fields: Sequence[str], *, tensorboard: bool, quiet: bool,
        purge_step: int | None = None, headline: Sequence[str] = (),
    ) -> None:  # fmt: skip
        self.dir = run_dir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.fields = tuple(progress_fields)
        self.headline = tuple(headline)
        self.quiet = quiet
        self.tb: Any = summary_writer(self.dir / "tb", purge_step) if tensorboard else None

    def _append(self, name: str, header: tuple[str, ...], row: dict[str, Any]) -> None:
        fmt = {k: f"{v:.6g}" if isinstance(v := row.get(k), float) else v for k in header}
        append_rows(self.dir / name, header, [fmt])

    def progress(self, row: dict[str, Any]) -> None:
        """One iteration's statistics."""
        self._append("progress.csv", self.fields, row)
        step = int(row["step"])
        if self.tb is not None:
            for k, v in row.items():
                if k not in ("step", "iteration") and isinstance(v, float) and math.isfinite(v):
                    self.tb.add_scalar(f"train/{k}", v, step)
        it = int(row["iteration"])
        if not self.quiet and (it <= 3 or it % 10 == 0):
            # A statistic with no value yet (no league game ended) is left out, not shown as nan.
            shown = "  ".join(f"{k} {row[k]:.4g}" for k in self.headline
                              if k in row and math.isfinite(row[k]))  # fmt: skip
            print(f"step {step:>10,}  {row.get('sps', 0.0):>9,.0f} steps/s  {shown}", flush=True)

    def evals(self, rows: list[dict[str, Any]]) -> None:
        """Duplicate evaluation rows."""
        for row in rows:
            self._append("eval.csv", EVAL_FIELDS, row)
            if self.tb is not None:
                self.tb.add_scalar(f"eval/beats_{row['against']}", row["beats"], int(row["step"]))
            if not self.quiet:
                print(f"eval step {int(row['step']):,}: beats {row['against']} on "
                      f"{100 * row['beats']:.1f}% ± {100 * row['beats_ci']:.1f} of "
                      f"{int(row['deals'])} duplicate deals", flush=True)  # fmt: skip

    def note(self, text: str) -> None:
        """A free-form log line (not in quiet mode)."""
        if not self.quiet:
            print(text, flush=True)

    def close(self) -> None:
        """Flush TensorBoard."""
        if self.tb is not None:
            self.tb.close()


def print_eval(rows: list[dict[str, Any]]) -> None:
    """A final evaluation on stdout, one line per opponent."""
    for row in rows:
        print(f"vs {row['against']}: beats {100 * row['beats']:.1f}% ± "
              f"{100 * row['beats_ci']:.1f} of {row['deals']:.0f} duplicate deals, "
              f"margin {row['margin']:+.3f} ± {row['margin_ci']:.3f}")  # fmt: skip


def format_report(rows: Sequence[Any], *, markdown: bool = False) -> str:
    """A final report of `EvalRow` rows: one line per opponent, with 95% intervals."""
    table: list[tuple[Any, ...]] = [
        ("vs", "deals", "beats baseline (duplicate)", "margin", "learner score", "baseline score")
        if markdown
        else ("vs", "deals", "beats (dup.)", "margin", "score", "baseline score")
    ]
    for r in rows:
        beats = f"{100 * r.beats:.1f}% ± {100 * r.beats_ci:.1f}"
        margin = f"{r.margin:+.3f} ± {r.margin_ci:.3f}"
        table.append((r.against, r.deals, beats, margin, f"{r.mean_a:+.3f}", f"{r.mean_b:+.3f}"))
    if markdown:
        lines = ["| " + " | ".join(map(str, cells)) + " |" for cells in table]
        return "\n".join([lines[0], "|---|---|---|---|---|---|", *lines[1:]])
    widths = (15, 16, 8, 14)
    return "\n".join(
        f"{c[0]:<14} {c[1]:>5}  " + "  ".join(f"{v:>{w}}" for v, w in zip(c[2:], widths))
        for c in table
    )


def open_log(
    plan: RunPlan, step: int, progress_fields: Sequence[str], *, tensorboard: bool, quiet: bool,
    headline: Sequence[str] = (),
) -> RunLog:  # fmt: skip
    """The run's `RunLog`; on resume, after dropping the logs past the checkpoint's ``step``."""
    purge = None
    if plan.checkpoint is not None:
        start_logs(plan.run_dir, plan.checkpoint, step, plan.in_place)
        purge = step + 1
    return RunLog(plan.run_dir, progress_fields, tensorboard=tensorboard, quiet=quiet,
                  purge_step=purge, headline=headline)  # fmt: skip


#: (file, [(column, title), ...]): each panel draws the first column the runs have (PPO logs
#: ``league_win`` and ``entropy``; Deep Monte-Carlo ``league_score`` and ``loss``; MaskablePPO
#: ``ep_rew_mean`` in ``curve.csv``); a panel no run has rows for is left out.
PANELS = (("progress.csv", [("league_win", "learner's score in league games"),
                            ("league_score", "learner's score in league games")]),
          ("progress.csv", [("entropy", "policy entropy"), ("loss", "Q-regression loss")]),
          ("curve.csv", [("ep_rew_mean", "mean episode reward (training, vs pool)")]),
          ("eval.csv", [("beats", "share of duplicate deals won")]))  # fmt: skip


def _column(path: Path, name: str, against: str | None) -> tuple[np.ndarray, np.ndarray]:
    rows = [r for r in read_rows(path) if against is None or r.get("against") == against]
    # One point per step: should a log hold a step twice (a resumed run), the last row wins.
    pts = {float(r["step"]): float(r[name]) for r in rows if r.get(name) not in (None, "", "nan")}
    x = np.array(sorted(pts), dtype=np.float64)
    return x, np.array([pts[s] for s in x], dtype=np.float64)


def band(
    runs: Sequence[Path], file: str, name: str, against: str | None = None, points: int = 60
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Common step grid, mean over runs and the 95% half-width; runs that had the column.

    One run keeps its own steps, with the interval its log gives (``NAME_ci``) if any."""
    logs = [Path(r) / file for r in runs]
    series = [(x, y, log) for log in logs for x, y in [_column(log, name, against)] if x.size]
    if len(series) == 1:
        grid, mean, log = series[0]
        cx, ci = _column(log, f"{name}_ci", against)
        return grid, mean, ci if np.array_equal(cx, grid) else np.zeros_like(mean), 1
    if not series:
        return np.zeros(0), np.zeros(0), np.zeros(0), 0
    lo = max(x.min() for x, _, _ in series)
    hi = min(x.max() for x, _, _ in series)
    grid = np.linspace(lo, hi, points) if hi > lo else np.array([lo])
    ys = np.array([np.interp(grid, x, y) for x, y, _ in series])
    from cardsuite.agents.arena.stats import mean_ci  # scipy, on first use only

    half = np.array([mean_ci(column)[1] for column in ys.T])  # Student t over the seeds
    return grid, ys.mean(axis=0), half, len(ys)


def eval_opponents(runs: Sequence[Path], base: str = "heuristic") -> list[str]:
    """The opponents of the runs' ``eval.csv``: ``base@Np`` by player count (one per table size
    of a size-generic run), then the others by name; ``[base]`` if there are none."""
    names: set[str] = set()
    for r in runs:
        path = Path(r) / "eval.csv"
        if path.is_file():
            names.update(str(row.get("against", "")) for row in read_rows(path))
    sized = {n for n in names if n.startswith(f"{base}@") and n.endswith("p")}
    ordered = sorted(sized, key=lambda n: int(n[len(base) + 1 : -1] or 0))
    return ordered + sorted(names - sized) or [base]


def panel_column(
    runs: Sequence[Path], file: str, choices: Sequence[tuple[str, str]]
) -> tuple[str, str]:
    """The first ``(column, title)`` of ``choices`` that some run's ``file`` has rows of."""
    for name, label in choices:
        if any(_column(Path(r) / file, name, None)[0].size for r in runs):
            return name, label
    return choices[0]


def plot_seeds(runs: Sequence[Path], out_png: Path, title: str = "") -> Path:
    """Draw the panels of `PANELS` that ``runs`` have rows for into ``out_png``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not runs:
        raise ConfigError("curves: give at least one run directory")
    chosen = [(file, *panel_column(runs, file, choices)) for file, choices in PANELS]
    shown = [p for p in chosen if band(runs, p[0], p[1])[3]] or chosen[:1]
    fig, axes = plt.subplots(1, len(shown), figsize=(4.2 * len(shown), 3.4), squeeze=False)
    for ax, (file, name, label) in zip(axes[0], shown):
        against: list[str | None] = list(eval_opponents(runs)) if file == "eval.csv" else [None]
        n = 0
        for who in against:
            grid, mean, half, n = band(runs, file, name, who)
            tag = None if who is None else who.split("@", 1)[1] if "@" in who else f"vs {who}"
            if n and grid.size < 5:
                ax.errorbar(grid, mean, yerr=half, marker="o", capsize=3, label=tag)
            elif n:
                ax.plot(grid, mean, label=tag)
                ax.fill_between(grid, mean - half, mean + half, alpha=0.25)
        if file == "eval.csv" and n:
            ax.legend(fontsize=7)
        ax.xaxis.set_major_formatter(
            lambda x, _p: f"{x / 1e6:g}M" if x >= 1e6 else f"{x / 1e3:g}k" if x else "0"
        )
        ax.set_title(label + (f" ({n} seeds)" if n > 1 else ""), fontsize=9)
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
