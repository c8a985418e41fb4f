"""Logging of the batched PPO trainer: CSV files, TensorBoard and short log lines.

``RUN/progress.csv`` gets one row per iteration (steps, trained steps/s,
rollout and update seconds, losses, entropy, KL, clip fraction, explained
variance, the learner's score in league games); ``RUN/eval.csv`` one row
per duplicate evaluation. TensorBoard events go to ``RUN/tb`` when
``tensorboard`` is installed (``tensorboard --logdir runs``).
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

PROGRESS_FIELDS = ("step", "iteration", "sps", "rollout_s", "update_s", "lr", "league_games",
                   "league_win", "pg_loss", "v_loss", "entropy", "approx_kl", "clipfrac",
                   "explained_var")  # fmt: skip
EVAL_FIELDS = ("step", "against", "deals", "beats", "beats_ci", "mean_a", "mean_b", "margin",
               "margin_ci")  # fmt: skip


class RunLog:
    """Appends to ``progress.csv`` / ``eval.csv`` and TensorBoard under ``run_dir``."""

    def __init__(self, run_dir: Path, tensorboard: bool, quiet: bool) -> None:
        """Create the folder; open TensorBoard if asked and available."""
        self.dir = run_dir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.quiet = quiet
        self.tb: Any = None
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter

                self.tb = SummaryWriter(str(self.dir / "tb"))
            except ImportError:
                self.tb = None
        self._last_print = -1

    def _append(self, name: str, header: tuple[str, ...], row: dict[str, Any]) -> None:
        path = self.dir / name
        new = not path.exists()
        with open(path, "a", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=header, extrasaction="ignore")
            if new:
                w.writeheader()
            w.writerow({k: _fmt(row.get(k)) for k in header})

    def progress(self, row: dict[str, Any]) -> None:
        """One iteration's statistics."""
        self._append("progress.csv", PROGRESS_FIELDS, row)
        step = int(row["step"])
        if self.tb is not None:
            for k, v in row.items():
                if k not in ("step", "iteration") and isinstance(v, float) and math.isfinite(v):
                    self.tb.add_scalar(f"train/{k}", v, step)
        it = int(row["iteration"])
        if not self.quiet and (it <= 3 or it % 10 == 0):
            print(f"step {step:>10,}  {row['sps']:>9,.0f} steps/s  entropy {row.get('entropy', 0):.3f}"
                  f"  kl {row.get('approx_kl', 0):.4f}  league win {row.get('league_win', 0):.3f}",
                  flush=True)  # fmt: skip

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


def _fmt(v: Any) -> Any:
    if isinstance(v, float):
        return f"{v:.6g}"
    return v
