"""The MaskablePPO report: a checkpoint's evaluation, the CSV log, the table and the curves."""

from __future__ import annotations

from pathlib import Path

from cardsuite.train.core.evaluate import EvalRow, evaluate_specs
from cardsuite.train.core.log import EVAL_FIELDS, append_rows, format_report
from cardsuite.train.core.log import read_rows as read_csv
from cardsuite.train.sb3.config import TrainConfig

__all__ = ["EvalRow", "append_csv", "evaluate", "format_report", "plot_curves", "read_csv"]


def evaluate(
    model_path: str | Path,
    config: TrainConfig,
    *,
    step: int,
    games: int,
    seed: int = 0,
    baselines: list[str] | None = None,
) -> list[EvalRow]:
    """``games`` duplicate deals (of ``seed``) of the checkpoint, run or agent directory at
    ``model_path`` against each of ``baselines`` (default ``config``'s), rows at ``step``."""
    return evaluate_specs(
        f"ppo:{model_path}", baselines or config.baselines(), game=config.game,
        config=dict(config.game_config().to_dict()), deals=games, seed=seed, step=step,
    )  # fmt: skip


def append_csv(path: str | Path, rows: list[EvalRow]) -> None:
    """Append evaluation rows to a CSV file (writing the header when new)."""
    append_rows(Path(path), EVAL_FIELDS, (row.to_dict() for row in rows))


def plot_curves(run_dir: str | Path, out_png: str | Path, title: str | None = None) -> Path:
    """Draw a run's learning curve into ``out_png`` (its path): the mean episode reward in
    training (``curve.csv``) and the deals won per opponent at each evaluation (``eval.csv``)."""
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
    ax1.set(xlabel="learner steps", ylabel="mean episode reward (training, vs pool)")
    for baseline in sorted({r["against"] for r in evals}):
        rows = [r for r in evals if r["against"] == baseline]
        x = [int(r["step"]) for r in rows]
        y = [float(r["beats"]) for r in rows]
        err = [float(r["beats_ci"]) for r in rows]
        ax2.errorbar(x, y, yerr=err, marker="o", capsize=3, label=f"vs {baseline}")
    ax2.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax2.set(ylim=(-0.02, 1.02), xlabel="learner steps", ylabel="fraction of duplicate deals won")
    if evals:
        ax2.legend(loc="lower right")
    thousands = FuncFormatter(lambda x, _pos: f"{x / 1000:g}k" if x else "0")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.xaxis.set_major_formatter(thousands)
    fig.suptitle(title or run.name)
    fig.tight_layout()
    out = Path(out_png)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
