"""Run folders: a run is never overwritten, and a resume keeps each step once (`plan_run`,
the rule every trainer checks before any work)."""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

from cardsuite.agents.learned.files import find_checkpoint
from cardsuite.errors import ConfigError

CHECKPOINT_NAMES = ("checkpoint", "checkpoint.prev")
LOG_FILES = ("curve.csv", "eval.csv", "progress.csv")


@dataclass(frozen=True)
class RunPlan:
    """Where a run writes (``run_dir``), the ``checkpoint`` it resumes (or None) and whether
    into the checkpoint's own run folder (``in_place``)."""

    run_dir: Path
    checkpoint: Path | None
    in_place: bool


def plan_run(run_dir: str | Path | None, resume: str | Path | None, default: Path) -> RunPlan:
    """The one resume rule of every trainer (module doc), checked before any work: ``run_dir``
    (None: the resumed run's folder, else ``default``), ``resume`` (or None). ConfigError when
    the folder would overwrite another run or a bare checkpoint has no ``--run-dir``,
    CheckpointError when ``resume`` holds no checkpoint."""
    checkpoint = find_checkpoint(resume) if resume else None
    if run_dir:
        out = Path(run_dir)
    elif checkpoint is not None:
        home = home_of(checkpoint)
        if home is None:
            raise ConfigError(
                f"--resume {resume} is a checkpoint outside a run folder; "
                "give --run-dir NEW_DIR for the continued run"
            )
        out = home
    else:
        out = default
    in_place = check_run_dir(out, checkpoint)
    return RunPlan(out, checkpoint, in_place)


def check_new_run_dir(path: str | Path, flag: str = "--run-dir") -> None:
    """ConfigError when ``path`` is a file or a directory with anything inside."""
    p = Path(path)
    if not p.exists() and not p.is_symlink():
        return
    if not p.is_dir():
        raise ConfigError(f"{flag} {str(p)!r} is an existing file; choose a new run directory")
    held = sorted(child.name for child in p.iterdir())
    if held:
        shown = ", ".join(held[:5]) + (", ..." if len(held) > 5 else "")
        hint = (
            f"; continue it with --resume {p}"
            if any(name in CHECKPOINT_NAMES for name in held)
            else ""
        )
        raise ConfigError(
            f"{flag} {str(p)!r} already holds files ({shown}); a run never overwrites "
            f"another: choose a new directory{hint}"
        )


def home_of(checkpoint: Path) -> Path | None:
    """The run directory holding ``checkpoint`` (None for a bare checkpoint folder)."""
    return checkpoint.parent if checkpoint.name in CHECKPOINT_NAMES else None


def check_run_dir(run_dir: str | Path, checkpoint: Path | None) -> bool:
    """Check (and make, empty) the run directory before any work (ConfigError if it would
    overwrite another run); True when resuming the ``checkpoint`` in place."""
    out = Path(run_dir)
    home = home_of(checkpoint) if checkpoint is not None else None
    if home is not None and out.exists() and os.path.samefile(out, home):
        return True
    check_new_run_dir(out)
    try:  # made now (empty), so an unwritable place fails before any work
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError(
            f"--run-dir {str(out)!r}: cannot create the run directory: {err.strerror}"
        ) from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise ConfigError(f"--run-dir {str(out)!r}: the run directory is not writable")
    return False


def start_logs(run_dir: Path, checkpoint: Path, step: int, in_place: bool) -> None:
    """Before a resume: drop the logs after ``step`` in place, or seed a branch's logs."""
    if in_place:
        truncate_logs(run_dir, step)
        return
    home = home_of(checkpoint)
    run_dir.mkdir(parents=True, exist_ok=True)
    if home is not None:
        _keep_rows(home, run_dir, step)


def truncate_logs(run_dir: Path, step: int) -> None:
    """Drop the rows of the CSV logs after ``step`` (atomically)."""
    _keep_rows(run_dir, run_dir, step)


def _keep_rows(source: Path, target: Path, step: int) -> None:
    """Write ``source``'s CSV logs into ``target`` with their rows up to ``step``."""
    for name in LOG_FILES:
        if not (source / name).is_file():
            continue
        with open(source / name, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            rows = [row for row in reader if _until(row, step)]
            fields = list(reader.fieldnames or [])
        if not fields:
            continue
        tmp = target / f".{name}.tmp"
        with open(tmp, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
        os.replace(tmp, target / name)


def _until(row: dict[str, str], step: int) -> bool:
    try:
        return int(row.get("step") or 0) <= step
    except ValueError:
        return False  # a torn last line of a killed run
