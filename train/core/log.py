"""Curves, TensorBoard and progress lines of every trainer (`RunLog`): ``RUN/progress.csv``,
``RUN/eval.csv`` and ``RUN/tb``; a resume drops what follows the checkpoint (`open_log`)."""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

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
            shown = "  ".join(f"{k} {row[k]:.4g}" for k in self.headline if k in row)
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
