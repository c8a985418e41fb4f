"""Run folders: a run is never overwritten, and a resume keeps each step once (`plan_run`,
the rule every trainer checks before any work). A run folder records its full config
(``run.json``) when it is made, so a run stopped before its first checkpoint starts again
from that config on ``--resume``; one process writes a run folder at a time (its lock)."""

from __future__ import annotations

import atexit
import csv
import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardsuite import safe_json
from cardsuite.agents.learned.files import STATE_FILE, find_checkpoint, write_json_atomic
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.runlock import LOCK_FILE, RunLock

CHECKPOINT_NAMES = ("checkpoint", "checkpoint.prev")
LOG_FILES = ("curve.csv", "eval.csv", "progress.csv")
RUN_RECORD = "run.json"


@dataclass(frozen=True)
class RunPlan:
    """Where a run writes (``run_dir``), the ``checkpoint`` it resumes (or None) and whether
    into the checkpoint's own run folder (``in_place``)."""

    run_dir: Path
    checkpoint: Path | None
    in_place: bool
    lock: RunLock | None = None

    def release(self) -> None:
        """Give up the run folder's lock (also done when the process exits)."""
        if self.lock is not None:
            self.lock.release()


def plan_run(
    run_dir: str | Path | None,
    resume: str | Path | None,
    default: Path,
    command: str = "a trainer",
    record: Mapping[str, Any] | None = None,
) -> RunPlan:
    """The one resume rule of every trainer (module doc), checked before any work: ``run_dir``
    (None: the resumed run's folder, else ``default``), ``resume`` (or None); the folder is
    then locked for ``command`` (`cardsuite.runlock`, one writer per run) and, for a new run,
    ``record`` (the full config: ``{"config": ...}``) written to ``run.json``; a ``resume``
    of a run stopped before its first checkpoint trains it again from the start. ConfigError when
    the folder would overwrite another run or a bare checkpoint has no ``--run-dir``,
    CheckpointError when ``resume`` holds no checkpoint, RunLockedError when another process
    writes the folder."""
    for folder in (resume, run_dir):
        if folder and Path(folder).is_dir():
            RunLock(folder, command).check()  # a second writer is refused before anything
    if resume and restartable(Path(resume)):
        return _restart(Path(resume), run_dir, command, record)
    try:
        checkpoint = find_checkpoint(resume) if resume else None
    except CheckpointError as err:
        raise CheckpointError(f"--resume: {err}; a new run takes --run-dir instead") from None
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
    return _locked(RunPlan(out, checkpoint, in_place), command, None if in_place else record)


def _locked(plan: RunPlan, command: str, record: Mapping[str, Any] | None) -> RunPlan:
    """``plan`` holding its folder's lock (released at exit too), its record written."""
    lock = RunLock(plan.run_dir, command).acquire()
    atexit.register(lock.release)
    if record is not None:
        write_json_atomic(plan.run_dir / RUN_RECORD, {"command": command, **record})
    return RunPlan(plan.run_dir, plan.checkpoint, plan.in_place, lock)


def restartable(folder: Path) -> bool:
    """Whether ``folder`` is a run stopped before its first checkpoint (its record, none)."""
    has_checkpoint = any((folder / n / STATE_FILE).is_file() for n in CHECKPOINT_NAMES)
    return (folder / RUN_RECORD).is_file() and not has_checkpoint


def _restart(
    folder: Path, run_dir: str | Path | None, command: str, record: Mapping[str, Any] | None
) -> RunPlan:
    """Train the run ``folder`` again from its start: in place (its logs cleared), or in
    ``run_dir``; saying so."""
    out = Path(run_dir) if run_dir else folder
    if out.exists() and os.path.samefile(out, folder):
        plan = _locked(RunPlan(out, None, False), command, None)
        for child in out.iterdir():
            if child.name not in (RUN_RECORD, LOCK_FILE):
                shutil.rmtree(child) if child.is_dir() else child.unlink()
    else:
        check_run_dir(out, None)
        plan = _locked(RunPlan(out, None, False), command, record)
    print(f"{folder} stopped before its first checkpoint: training it again from the start, "
          f"with the config it recorded ({folder / RUN_RECORD}), in {out}", file=sys.stderr)  # fmt: skip
    return plan


def recorded_config(resume: str | Path) -> dict[str, Any] | None:
    """The config a run resumed from ``resume`` trains with: its checkpoint's, or (stopped
    before its first checkpoint) the run's record; None when neither holds one.

    Raises:
        CheckpointError: ``resume`` holds neither a checkpoint nor a run record.
    """
    from cardsuite.train.core.checkpoint import read_state_doc  # light command start-up

    if restartable(Path(resume)):
        doc = safe_json.read_file(Path(resume) / RUN_RECORD, "run record", error=CheckpointError)
        saved = doc.get("config") if isinstance(doc, dict) else None
    else:
        saved = read_state_doc(resume)[1].get("config")
    return saved if isinstance(saved, dict) else None


def check_new_run_dir(path: str | Path, flag: str = "--run-dir") -> None:
    """ConfigError when ``path`` is a file or a directory with anything inside."""
    p = Path(path)
    if not p.exists() and not p.is_symlink():
        return
    if not p.is_dir():
        raise ConfigError(f"{flag} {str(p)!r} is an existing file; choose a new run directory")
    held = sorted(child.name for child in p.iterdir() if child.name != LOCK_FILE)
    if held == [RUN_RECORD] and (RunLock(p, "").holder() or {}).get("pid") == os.getpid():
        return  # made by this process's plan_run a moment ago
    if held:
        shown = ", ".join(held[:5]) + (", ..." if len(held) > 5 else "")
        hint = ""
        if any(name in CHECKPOINT_NAMES for name in held):
            hint = f"; continue it with --resume {p}"
        elif RUN_RECORD in held:
            hint = f"; it stopped before its first checkpoint: start it again with --resume {p}"
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
            f"--run-dir {str(out)!r}: cannot create the run directory: {err.strerror} "
            "(choose another folder)"
        ) from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise ConfigError(f"--run-dir {str(out)!r} is not writable: choose another folder")
    return False


def start_logs(run_dir: Path, checkpoint: Path, step: int, in_place: bool) -> None:
    """Before a resume: drop the logs after ``step`` in place, or seed a branch's logs."""
    home = run_dir if in_place else home_of(checkpoint)
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
