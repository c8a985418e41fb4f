"""Evaluation of a checkpoint against baselines through the arena, and curves.

Each evaluation is one duplicate tournament per baseline,
``run_tournament(game, ["ppo:<checkpoint>", baseline], duplicate=True)``:
every deal is played in every rotation of the two agents over the seats, so
the luck of the cards cancels. For each baseline the report gives

* ``beats``: the fraction of deals (duplicate comparisons) where the learner's
  mean score beat the baseline's, ties counting one half (the arena's
  head-to-head), with a 95% normal-approximation interval;
* ``win``: the fraction of the learner's seat results that finished first
  (a Wilson 95% interval);
* ``score``: the learner's and the baseline's mean episode reward, with the
  arena's 95% half-widths.

:func:`plot_curves` draws a run's learning curve (mean episode reward of the
learner during training, and ``beats`` per baseline at each evaluation).
"""

from __future__ import annotations

import csv
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cardsuite.train.config import TrainConfig

EVAL_FIELDS = (
    "step",
    "baseline",
    "deals",
    "beats",
    "beats_ci",
    "win_rate",
    "win_lo",
    "win_hi",
    "mean_score",
    "score_ci",
    "baseline_score",
    "baseline_score_ci",
)


@dataclass(frozen=True)
class EvalRow:
    """The learner against one baseline at one step (see the module doc)."""

    step: int
    baseline: str
    deals: int
    beats: float
    beats_ci: float
    win_rate: float
    win_lo: float
    win_hi: float
    mean_score: float
    score_ci: float
    baseline_score: float
    baseline_score_ci: float

    def to_dict(self) -> dict[str, Any]:
        """The row as a plain dict (a CSV row, a JSON entry)."""
        return asdict(self)


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion (``(0, 1)`` when ``n`` is 0)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def evaluate(
    model_path: str | Path,
    config: TrainConfig,
    *,
    step: int,
    games: int,
    seed: int = 0,
    baselines: list[str] | None = None,
) -> list[EvalRow]:
    """Duplicate tournaments of the checkpoint at ``model_path`` against each baseline.

    Args:
        model_path: a checkpoint directory, run directory or ``model.zip``.
        config: the run's config (game, rule options, baselines).
        step: the training step the checkpoint was taken at (recorded in the rows).
        games: deals per baseline (each played in every seat rotation).
        seed: the tournaments' master seed.
        baselines: agent specs; default: the config's ``eval_baselines``.
    """
    from cardsuite.agents.arena import run_tournament

    rows = []
    for baseline in baselines or config.baselines():
        result = run_tournament(
            config.game,
            [f"ppo:{model_path}", baseline],
            games=games,
            options=dict(config.options),
            duplicate=True,
            seed=seed,
        ).to_dict()
        me, other = result["agents"]
        mine, theirs = result["per_agent"][me], result["per_agent"][other]
        beats = float(result["head_to_head"][me][other])
        deals = int(result["deals"])
        beats_ci = 1.96 * math.sqrt(max(beats * (1 - beats), 0.0) / max(deals, 1))
        seat_games = int(mine["seat_games"])
        lo, hi = wilson(mine["win_rate"] * seat_games, seat_games)
        rows.append(
            EvalRow(
                step=step,
                baseline=baseline,
                deals=deals,
                beats=beats,
                beats_ci=beats_ci,
                win_rate=float(mine["win_rate"]),
                win_lo=lo,
                win_hi=hi,
                mean_score=float(mine["mean_score"]),
                score_ci=float(mine["score_ci"] or 0.0),
                baseline_score=float(theirs["mean_score"]),
                baseline_score_ci=float(theirs["score_ci"] or 0.0),
            )
        )
    return rows


def append_csv(path: str | Path, rows: list[EvalRow]) -> None:
    """Append evaluation rows to a CSV file (writing the header when new)."""
    p = Path(path)
    new = not p.exists()
    with open(p, "a", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=EVAL_FIELDS)
        if new:
            writer.writeheader()
        for row in rows:
            writer.writerow(row.to_dict())


def format_report(rows: list[EvalRow], *, markdown: bool = False) -> str:
    """The final report: one line per baseline, with 95% intervals."""
    header = (
        "| vs | deals | beats baseline (duplicate) | learner win rate | learner mean score "
        "| baseline mean score |"
    )
    lines = [header, "|---|---|---|---|---|---|"] if markdown else []
    if not markdown:
        lines.append(
            f"{'vs':<14} {'deals':>5}  {'beats (dup.)':>15}  {'win rate [95% CI]':>20}  "
            f"{'score':>14}  {'baseline score':>14}"
        )
    for r in rows:
        beats = f"{100 * r.beats:.1f}% ± {100 * r.beats_ci:.1f}"
        win = f"{100 * r.win_rate:.1f}% [{100 * r.win_lo:.1f}, {100 * r.win_hi:.1f}]"
        score = f"{r.mean_score:+.3f} ± {r.score_ci:.3f}"
        base = f"{r.baseline_score:+.3f} ± {r.baseline_score_ci:.3f}"
        if markdown:
            lines.append(f"| {r.baseline} | {r.deals} | {beats} | {win} | {score} | {base} |")
        else:
            lines.append(
                f"{r.baseline:<14} {r.deals:>5}  {beats:>15}  {win:>20}  {score:>14}  {base:>14}"
            )
    return "\n".join(lines)


def read_csv(path: str | Path) -> list[dict[str, str]]:
    """The rows of a CSV file (empty when it does not exist)."""
    p = Path(path)
    if not p.exists():
        return []
    with open(p, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def plot_curves(run_dir: str | Path, out_png: str | Path, title: str | None = None) -> Path:
    """Draw a run's learning curve into ``out_png`` and return its path.

    Left: the learner's mean episode reward in training (``curve.csv``).
    Right: the fraction of duplicate deals won against each baseline at each
    evaluation (``eval.csv``), with 95% intervals.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    run = Path(run_dir)
    # One point per step: should a log hold a step twice, the last row wins.
    curve = list({int(r["step"]): r for r in read_csv(run / "curve.csv")}.values())
    evals = read_csv(run / "eval.csv")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    if curve:
        ax1.plot([int(r["step"]) for r in curve], [float(r["ep_rew_mean"]) for r in curve])
    ax1.set_xlabel("learner steps")
    ax1.set_ylabel("mean episode reward (training, vs pool)")
    ax1.grid(alpha=0.3)
    for baseline in sorted({r["baseline"] for r in evals}):
        rows = [r for r in evals if r["baseline"] == baseline]
        x = [int(r["step"]) for r in rows]
        y = [float(r["beats"]) for r in rows]
        err = [float(r["beats_ci"]) for r in rows]
        ax2.errorbar(x, y, yerr=err, marker="o", capsize=3, label=f"vs {baseline}")
    ax2.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax2.set_ylim(-0.02, 1.02)
    ax2.set_xlabel("learner steps")
    ax2.set_ylabel("fraction of duplicate deals won")
    ax2.grid(alpha=0.3)
    if evals:
        ax2.legend(loc="lower right")
    thousands = FuncFormatter(lambda x, _pos: f"{x / 1000:g}k" if x else "0")
    for ax in (ax1, ax2):
        ax.xaxis.set_major_formatter(thousands)
    fig.suptitle(title or run.name)
    fig.tight_layout()
    out = Path(out_png)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
