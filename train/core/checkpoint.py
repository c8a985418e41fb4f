"""The one checkpoint writer and reader of every trainer.

``RUN/checkpoint/`` holds safetensors files and a ``state.json`` whose ``files`` maps each
file to its SHA-256. `write_checkpoint` swaps a new one in by two renames (the previous one
survives as ``checkpoint.prev`` until then); `open_checkpoint` checks the manifest. Nothing
is ever unpickled.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.learned.files import (
    CHECKPOINT_DIR,
    PREVIOUS_DIR,
    STATE_FILE,
    find_checkpoint,
    read_json_file,
    sha256_file,
    write_json_atomic,
)
from cardsuite.agents.learned.safe_io import AgentMeta, load_tensors_numpy, save_agent, save_tensors
from cardsuite.errors import CheckpointError
from cardsuite.train.core.learned import load_agent, load_tensors
from cardsuite.train.core.state import (
    capture_rng,
    check_rng,
    engine_state,
    flatten_optimizer,
    gen_state,
    restore_engine_state,
    restore_optimizer,
    restore_rng,
    set_gen,
)

__all__ = [  # the run state's helpers are re-exported: their home is core.state
    "Saved", "capture_rng", "check_files", "check_must_match", "check_rng", "engine_state",
    "find_checkpoint", "finite", "flatten_optimizer", "gen_state", "open_checkpoint",
    "read_checkpoint", "read_state_doc", "restore_engine_state", "restore_optimizer",
    "restore_rng", "save_checkpoint", "set_gen", "write_checkpoint",
]  # fmt: skip

AGENT_DIR = "agent"
OPTIMIZER_FILE = "optimizer.safetensors"
MAX_STATE_BYTES = 64 << 20
_SHA = re.compile(r"[0-9a-f]{64}")


def write_checkpoint(run_dir: str | Path, fill: Callable[[Path], dict[str, Any]]) -> Path:
    """Write ``RUN/checkpoint`` atomically (module doc): ``fill(folder)`` writes the files and
    returns ``state.json``'s document (the manifest is added here). Its path;
    CheckpointError when it cannot be written (the previous one is kept)."""
    run = Path(run_dir)
    try:
        run.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".checkpoint-", dir=run))
    except OSError as err:
        raise CheckpointError(f"cannot write a checkpoint in {str(run)!r}: {err}") from None
    try:
        doc = fill(tmp)
        doc["files"] = {
            p.relative_to(tmp).as_posix(): sha256_file(p)
            for p in sorted(tmp.rglob("*"))
            if p.is_file()
        }
        write_json_atomic(tmp / STATE_FILE, doc)
        final, prev = run / CHECKPOINT_DIR, run / PREVIOUS_DIR
        for stale in run.glob(".checkpoint-*"):  # a save killed before its renames
            if stale != tmp:
                shutil.rmtree(stale, ignore_errors=True)
        if prev.exists() and not final.exists():
            os.replace(prev, final)  # an earlier save stopped between its two renames
        if prev.exists():
            shutil.rmtree(prev)
        if final.exists():
            os.replace(final, prev)
        os.replace(tmp, final)
        if prev.exists():
            shutil.rmtree(prev)
        return final
    except OSError as err:
        raise CheckpointError(f"cannot write a checkpoint in {str(run)!r}: {err}") from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


#: What a user can do about a checkpoint damaged on disk (said after the damage).
DAMAGED = "; a damaged checkpoint cannot be resumed: start a new run with --run-dir NEW"


def read_state_doc(path: str | Path) -> tuple[Path, dict[str, Any]]:
    """The checkpoint folder at ``path`` and its ``state.json`` object (files not checked)."""
    ckpt = find_checkpoint(path)
    try:
        doc = read_json_file(
            ckpt / STATE_FILE, f"checkpoint {str(ckpt)!r}: {STATE_FILE}", MAX_STATE_BYTES
        )
    except CheckpointError as err:
        raise CheckpointError(f"{err}{DAMAGED}") from None
    if not isinstance(doc, dict):
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: {STATE_FILE} does not hold an object")
    return ckpt, doc


def check_files(ckpt: Path, files: Any, allowed: Callable[[str], bool], kinds: str) -> None:
    """Check that ``files`` (``state.json``'s entry) maps every file of ``ckpt`` and nothing
    else to its SHA-256, every name ``allowed`` (``kinds``: those names in words)."""

    def bad(name: str, message: str) -> CheckpointError:
        return CheckpointError(f"{STATE_FILE}: field {name!r} {message}")

    if not isinstance(files, dict):
        raise bad("files", f"must map file names to SHA-256 sums, got {type(files).__name__}")
    on_disk = {
        p.relative_to(ckpt).as_posix()
        for p in ckpt.rglob("*")
        if not p.is_dir() and p.name != STATE_FILE
    }
    for name, digest in files.items():
        if not isinstance(digest, str) or not _SHA.fullmatch(digest):
            raise bad(f"files.{name}", "must be a SHA-256 sum (64 hex digits)")
        if not allowed(name):
            raise bad(
                f"files.{name}",
                f"names a file a checkpoint does not hold (only {kinds}; never a pickle "
                "such as .pt or .zip)",
            )
        if name not in on_disk:
            raise CheckpointError(f"checkpoint {str(ckpt)!r}: file {name} is missing{DAMAGED}")
    unlisted = sorted(on_disk - set(files))
    if unlisted:
        raise bad("files", f"does not list {', '.join(unlisted)} (a file that is not ours)")
    for name, digest in files.items():
        file = ckpt / name
        if file.is_symlink() or not file.is_file():
            raise CheckpointError(f"checkpoint {str(ckpt)!r}: file {name} is not a regular file")
        if sha256_file(file) != digest:
            raise CheckpointError(
                f"checkpoint {str(ckpt)!r}: file {name} does not match its checksum (corrupt)"
                + DAMAGED
            )


def read_checkpoint(
    path: str | Path, allowed: Callable[[str], bool], kinds: str
) -> tuple[Path, dict[str, Any]]:
    """`read_state_doc`, then `check_files` on its manifest; the folder and the document."""
    ckpt, doc = read_state_doc(path)
    check_files(ckpt, doc.get("files"), allowed, kinds)
    return ckpt, doc


def finite(x: Any) -> Any:
    """``x`` with every NaN or infinite float (an undefined statistic) as ``None`` (strict JSON)."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [finite(v) for v in x]
    return x


ABSENT_MEANS = {
    "game": "scum",
    "features": "",
    "polyak": 0.0,
    "duplicate_baseline": False,
    "learner_seats": 1,
}
"""What a field missing from an older checkpoint's config meant (0.2.0 trained Scum only)."""


def check_must_match(saved: dict[str, Any], args: Any, keys: tuple[str, ...]) -> None:
    """The fields a resume may not change (CheckpointError naming the first that differs)."""
    for key in keys:
        if key not in saved and key not in ABSENT_MEANS:
            raise CheckpointError(f"resume: the checkpoint's config lacks field {key!r}")
        was = saved.get(key, ABSENT_MEANS.get(key))
        if was != getattr(args, key):
            raise CheckpointError(
                f"resume: field {key!r} is {getattr(args, key)!r} but the checkpoint "
                f"was trained with {was!r}"
            )


def save_checkpoint(
    run_dir: str | Path, *, weights: Mapping[str, Any], meta: AgentMeta,
    optimizer: Mapping[str, Any], files: Mapping[str, Mapping[str, Any]], state: dict[str, Any],
) -> Path:  # fmt: skip
    """Write a trainer's checkpoint: ``weights`` and ``meta`` as ``agent/``, a torch ``optimizer``
    state dict, arrays by file name (``files``; empty ones skipped) and ``state.json`` entries
    (NaN and infinity as null); its path."""

    def fill(tmp: Path) -> dict[str, Any]:
        save_agent(tmp / AGENT_DIR, weights, meta)
        tensors, groups = flatten_optimizer(optimizer)
        for name, arrays in {OPTIMIZER_FILE: tensors, **files}.items():
            if arrays:
                (tmp / name).parent.mkdir(parents=True, exist_ok=True)
                save_tensors(tmp / name, dict(arrays))
        out: dict[str, Any] = finite({**state, "optimizer": groups})
        return out

    return write_checkpoint(run_dir, fill)


@dataclass(frozen=True)
class Saved:
    """A checkpoint read and checked by `open_checkpoint`: its folder and ``state.json``."""

    path: Path
    state: dict[str, Any]

    def error(self, message: str) -> CheckpointError:
        """A CheckpointError naming this checkpoint."""
        return CheckpointError(f"checkpoint {str(self.path)!r}: {message}")

    def tensors(self, name: str) -> dict[str, Any]:
        """The torch tensors of file ``name`` (empty when the checkpoint has none)."""
        file = self.path / name
        return load_tensors(file) if file.exists() else {}

    def arrays(self, name: str) -> dict[str, np.ndarray]:
        """The numpy arrays of file ``name`` (empty when the checkpoint has none)."""
        file = self.path / name
        return load_tensors_numpy(file) if file.exists() else {}

    def agent(self) -> tuple[dict[str, Any], AgentMeta]:
        """The network's weights (torch) and metadata."""
        return load_agent(self.path / AGENT_DIR)

    def restore_optimizer(self, optimizer: Any, *, groups: bool = True) -> None:
        """Load the saved optimizer state into ``optimizer`` (checked); with ``groups``
        False, ``optimizer`` keeps its own hyperparameters (a trainer that sets them each
        iteration)."""
        saved = self.state.get("optimizer") if groups else None
        restore_optimizer(optimizer, self.tensors(OPTIMIZER_FILE), saved)


def open_checkpoint(path: str | Path, files: re.Pattern[str], kinds: str) -> Saved:
    """`read_checkpoint` of the files a trainer's checkpoints may hold (a pattern)."""
    return Saved(*read_checkpoint(path, lambda n: bool(files.fullmatch(n)), kinds))
