"""The MaskablePPO report: a checkpoint's evaluation, the CSV log, the table and the curves."""

from __future__ import annotations

from pathlib import Path

from cardsuite.train.core.evaluate import EvalRow, evaluate_specs
from cardsuite.train.core.log import EVAL_FIELDS, append_rows, format_report, plot_seeds
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
    return plot_seeds([Path(run_dir)], Path(out_png), title or Path(run_dir).name)
