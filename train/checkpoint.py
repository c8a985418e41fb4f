"""Checkpoints that resume a run exactly, written atomically.

A checkpoint is a directory::

    model.zip     SB3 ``model.save``: policy weights, optimizer state, step count
    pool/*.pt     the opponent pool's snapshots (torch tensors, loaded weights_only)
    state.json    format version, step count, the full config, pool metadata,
                  RNG states (python, numpy, torch), schedule counters,
                  evaluation history and the SHA-256 of every other file

A run directory keeps its latest checkpoint in ``checkpoint/``. A new one is
written to a temporary directory first, then swapped in by two renames (the
previous one survives as ``checkpoint.prev`` until the swap is complete), so
Ctrl-C or a crash during a save never leaves the run without a good
checkpoint. Every problem found when loading (a missing file, bad JSON, a
checksum mismatch, an unknown format, a config that does not match the run)
is a :class:`~cardsuite.errors.CheckpointError` naming it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.config import TrainConfig
from cardsuite.train.opponents import Snapshot

FORMAT_VERSION = 1
CHECKPOINT_DIR = "checkpoint"
PREVIOUS_DIR = "checkpoint.prev"


@dataclass
class TrainState:
    """Everything besides the model that a resumed run needs.

    Attributes:
        step: learner decisions trained so far (the model's ``num_timesteps``).
        config: the run's config.
        snapshots: the opponent pool's snapshots, oldest first.
        rng: RNG states of python, numpy and torch (see :func:`capture_rng`).
        schedule: the step at which the next snapshot / eval / checkpoint is due.
        history: one row per evaluation so far (the final report's curve).
    """

    step: int
    config: TrainConfig
    snapshots: list[Snapshot]
    rng: dict[str, Any]
    schedule: dict[str, int]
    history: list[dict[str, Any]] = field(default_factory=list)


# ----------------------------------------------------------------- RNG states
def capture_rng() -> dict[str, Any]:
    """The global RNG states of python, numpy and torch, JSON-friendly."""
    import torch

    version, internal, gauss = random.getstate()
    kind, keys, pos, has_gauss, cached = np.random.get_state(legacy=True)  # type: ignore[misc]
    return {
        "python": [version, list(internal), gauss],
        "numpy": [kind, np.asarray(keys).tolist(), int(pos), int(has_gauss), float(cached)],
        "torch": base64.b64encode(torch.get_rng_state().numpy().tobytes()).decode("ascii"),
    }


def restore_rng(state: dict[str, Any]) -> None:
    """Set the global RNG states captured by :func:`capture_rng`."""
    import torch

    try:
        version, internal, gauss = state["python"]
        random.setstate((version, tuple(internal), gauss))
        kind, keys, pos, has_gauss, cached = state["numpy"]
        np.random.set_state((kind, np.asarray(keys, dtype=np.uint32), pos, has_gauss, cached))
        raw = np.frombuffer(base64.b64decode(state["torch"]), dtype=np.uint8).copy()
        torch.set_rng_state(torch.from_numpy(raw))
    except (KeyError, TypeError, ValueError, RuntimeError) as err:
        raise CheckpointError(f"state.json: RNG states are malformed: {err}") from None


# --------------------------------------------------------------------- files
def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def find_checkpoint(path: str | Path) -> Path:
    """The checkpoint directory at ``path`` (itself or a run's latest)."""
    p = Path(path)
    if (p / "state.json").is_file() or (p / "model.zip").is_file():
        return p
    for name in (CHECKPOINT_DIR, PREVIOUS_DIR):
        if (p / name / "state.json").is_file():
            return p / name
    if not p.exists():
        raise CheckpointError(f"checkpoint {str(p)!r} does not exist")
    raise CheckpointError(
        f"{str(p)!r} is neither a checkpoint (model.zip + state.json) nor a run "
        f"directory with a {CHECKPOINT_DIR}/ inside"
    )


def save_checkpoint(run_dir: str | Path, model: Any, state: TrainState) -> Path:
    """Write a checkpoint of ``model`` and ``state`` into ``run_dir/checkpoint``.

    The files go to a temporary directory in ``run_dir`` first; the previous
    checkpoint is only removed once the new one is complete and in place.
    """
    import torch

    run = Path(run_dir)
    run.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".checkpoint-", dir=run))
    try:
        model.save(tmp / "model.zip")
        (tmp / "pool").mkdir()
        pool_meta = []
        for i, snap in enumerate(state.snapshots):
            name = f"pool/snapshot_{i:02d}_{snap.step}.pt"
            tensors = {k: torch.from_numpy(np.array(v)) for k, v in snap.params.items()}
            torch.save(tensors, tmp / name)
            pool_meta.append({"file": name, "step": snap.step, "activation": snap.activation})
        files = {str(p.relative_to(tmp)): _sha256(p) for p in sorted(tmp.rglob("*")) if p.is_file()}
        doc = {
            "format": FORMAT_VERSION,
            "step": state.step,
            "config": state.config.to_dict(),
            "pool": {
                "probs": state.config.opponent_probs(),
                "max_snapshots": state.config.max_snapshots,
                "snapshots": pool_meta,
            },
            "rng": state.rng,
            "schedule": state.schedule,
            "history": state.history,
            "files": files,
        }
        with open(tmp / "state.json", "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=1)
            fh.flush()
            os.fsync(fh.fileno())
        final, prev = run / CHECKPOINT_DIR, run / PREVIOUS_DIR
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
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def read_state(path: str | Path) -> tuple[Path, TrainState]:
    """Check and read a checkpoint's ``state.json`` and pool; return its directory too.

    Raises:
        CheckpointError: missing directory or file, bad JSON, unknown format,
            a checksum mismatch, or a config that no longer validates.
    """
    import torch

    ckpt = find_checkpoint(path)
    state_file = ckpt / "state.json"
    if not state_file.is_file():
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: state.json is missing")
    try:
        doc = json.loads(state_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CheckpointError(
            f"checkpoint {str(ckpt)!r}: state.json is not valid JSON: {err}"
        ) from None
    if not isinstance(doc, dict):
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: state.json does not hold an object")
    if doc.get("format") != FORMAT_VERSION:
        raise CheckpointError(
            f"checkpoint {str(ckpt)!r}: format {doc.get('format')!r} is not the supported "
            f"format {FORMAT_VERSION}"
        )
    missing = [k for k in ("step", "config", "pool", "rng", "schedule", "files") if k not in doc]
    if missing:
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: state.json lacks {', '.join(missing)}")
    for name, digest in doc["files"].items():
        file = ckpt / name
        if not file.is_file():
            raise CheckpointError(f"checkpoint {str(ckpt)!r}: file {name} is missing")
        if _sha256(file) != digest:
            raise CheckpointError(
                f"checkpoint {str(ckpt)!r}: file {name} does not match its checksum (corrupt)"
            )
    if "model.zip" not in doc["files"]:
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: model.zip is not listed in state.json")
    try:
        config = TrainConfig.from_dict(doc["config"])
    except ConfigError as err:
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: its config is invalid: {err}") from None
    snapshots = []
    try:
        for meta in doc["pool"]["snapshots"]:
            tensors = torch.load(ckpt / meta["file"], weights_only=True)
            params = {k: v.numpy() for k, v in tensors.items()}
            snapshots.append(Snapshot(int(meta["step"]), params, str(meta["activation"])))
    except (KeyError, TypeError, OSError, RuntimeError) as err:
        raise CheckpointError(
            f"checkpoint {str(ckpt)!r}: the opponent pool is corrupt: {err}"
        ) from None
    state = TrainState(
        step=int(doc["step"]),
        config=config,
        snapshots=snapshots,
        rng=doc["rng"],
        schedule={k: int(v) for k, v in doc["schedule"].items()},
        history=list(doc.get("history", [])),
    )
    return ckpt, state
