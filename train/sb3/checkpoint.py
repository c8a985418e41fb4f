"""The MaskablePPO adapter's checkpoint on the core's one writer and reader.

The folder holds ``agent/`` (also a ``ppo:PATH`` agent), ``optimizer.safetensors``,
``pool/*.safetensors`` (the League's snapshots) and ``state.json`` (format 2). Every field
is validated (`read_state`); a file not listed or of another kind is a `CheckpointError`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardsuite.agents.learned.files import (
    CHECKPOINT_DIR,
    PREVIOUS_DIR,
    SB3_ZIP_REFUSAL,
    find_checkpoint,
)
from cardsuite.agents.learned.netspec import Snapshot
from cardsuite.agents.learned.safe_io import AgentMeta, is_agent_dir, load_tensors_numpy
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.core.checkpoint import (
    AGENT_DIR,
    Saved,
    capture_rng,
    check_files,
    check_rng,
    flatten_optimizer,
    read_state_doc,
    restore_optimizer,
    restore_rng,
    write_checkpoint,
)
from cardsuite.train.core.checkpoint import save_checkpoint as save_run
from cardsuite.train.sb3.config import TrainConfig

__all__ = [
    "AGENT_DIR", "CHECKPOINT_DIR", "FORMAT_VERSION", "PREVIOUS_DIR", "Checkpoint", "TrainState",
    "capture_rng", "find_checkpoint", "flatten_optimizer", "load_checkpoint", "read_config",
    "read_state", "restore_optimizer", "restore_rng", "save_checkpoint", "write_checkpoint",
]  # fmt: skip

FORMAT_VERSION = 2
SCHEDULES = ("snapshot", "eval", "checkpoint")
_POOL_FILE = re.compile(r"pool/snapshot_\d{2}_\d{1,15}\.safetensors")
_FILES = re.compile(
    r"agent/(weights\.safetensors|agent\.json)|optimizer\.safetensors|" + _POOL_FILE.pattern
)
ALLOWED_KINDS = "agent/, optimizer.safetensors and pool/*.safetensors"


@dataclass
class TrainState:
    """Everything besides the network and optimizer that a resumed run needs (``league``: None in
    a checkpoint written before the League kept its state)."""

    step: int
    config: TrainConfig
    snapshots: list[Snapshot]
    rng: dict[str, Any]
    schedule: dict[str, int]
    history: list[dict[str, Any]] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    league: dict[str, Any] | None = None


@dataclass
class Checkpoint:
    """A loaded checkpoint: its directory, `TrainState`, the policy's weights (torch) and
    metadata, and the optimizer's state tensors and ``param_groups``."""

    path: Path
    state: TrainState
    weights: dict[str, Any]
    meta: AgentMeta
    optimizer_tensors: dict[str, Any]
    optimizer_groups: list[dict[str, Any]]


def save_checkpoint(
    run_dir: str | Path, weights: Mapping[str, Any], meta: AgentMeta,
    optimizer_state: Mapping[str, Any], state: TrainState,
) -> Path:  # fmt: skip
    """Write a checkpoint of the policy's ``weights`` and ``meta``, the optimizer's
    ``state_dict()`` and the run's ``state`` into ``run_dir/checkpoint``; its path."""
    names = [f"pool/snapshot_{i:02d}_{s.step}.safetensors" for i, s in enumerate(state.snapshots)]
    pool = {"probs": state.config.opponent_probs(), "max_snapshots": state.config.max_snapshots,
            "snapshots": [{"file": name, "step": s.step, "activation": s.activation}
                          for name, s in zip(names, state.snapshots, strict=True)],
            **({} if state.league is None else {"league": state.league})}  # fmt: skip
    doc = {"format": FORMAT_VERSION, "step": state.step, "config": state.config.to_dict(),
           "counters": dict(state.counters), "pool": pool, "rng": state.rng,
           "schedule": state.schedule, "history": state.history}  # fmt: skip
    return save_run(run_dir, weights=weights, meta=meta, optimizer=optimizer_state,
                           files={n: s.params for n, s in zip(names, state.snapshots)},
                           state=doc)  # fmt: skip


def _field(name: str, message: str) -> CheckpointError:
    return CheckpointError(f"state.json: field {name!r} {message}")


def _int(doc: Mapping[str, Any], name: str, low: int = 0) -> int:
    value = doc.get(name)
    if type(value) is not int or value < low:
        raise _field(name, f"must be an integer >= {low}, got {value!r}")
    return value


def _read_doc(path: str | Path) -> tuple[Path, dict[str, Any]]:
    ckpt, doc = read_state_doc(path)
    if doc.get("format") == 1 or (ckpt / "model.zip").exists():
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: its model.zip {SB3_ZIP_REFUSAL}")
    if doc.get("format") != FORMAT_VERSION:
        raise CheckpointError(
            f"checkpoint {str(ckpt)!r}: format {doc.get('format')!r} is not the supported "
            f"format {FORMAT_VERSION}"
        )
    required = ("step", "config", "optimizer", "pool", "rng", "schedule", "files")
    missing = [k for k in required if k not in doc]
    if missing:
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: state.json lacks {', '.join(missing)}")
    return ckpt, doc


def read_config(path: str | Path) -> TrainConfig:
    """The config a checkpoint was trained with (state.json only; no weights read)."""
    return _config(*_read_doc(path))


def _config(ckpt: Path, doc: Mapping[str, Any]) -> TrainConfig:
    if not isinstance(doc["config"], dict):
        raise _field("config", "must be a mapping of config fields")
    try:
        return TrainConfig.read_saved(doc["config"])
    except ConfigError as err:
        raise CheckpointError(
            f"checkpoint {str(ckpt)!r}: field 'config' is invalid: {err}"
        ) from None


def read_state(path: str | Path) -> tuple[Path, TrainState]:
    """A checkpoint's folder and validated state (CheckpointError naming a bad field)."""
    ckpt, _, state = _read_state(path)
    return ckpt, state


def _read_state(path: str | Path) -> tuple[Path, dict[str, Any], TrainState]:
    """The checkpoint directory, its ``state.json`` document and the validated state."""
    ckpt, doc = _read_doc(path)
    check_files(ckpt, doc["files"], lambda n: bool(_FILES.fullmatch(n)), ALLOWED_KINDS)
    config = _config(ckpt, doc)
    step = _int(doc, "step")
    schedule = doc["schedule"]
    if not isinstance(schedule, dict) or set(schedule) != set(SCHEDULES):
        raise _field("schedule", f"must map {', '.join(SCHEDULES)} to steps")
    for name in SCHEDULES:
        if type(schedule[name]) is not int or schedule[name] < -1:
            raise _field(
                f"schedule.{name}", f"must be a step (integer >= -1), got {schedule[name]!r}"
            )
    history = doc.get("history", [])
    if not isinstance(history, list) or not all(isinstance(r, dict) for r in history):
        raise _field("history", "must be a list of evaluation rows")
    counters = doc.get("counters", {})
    if not isinstance(counters, dict) or not all(
        type(v) is int and v >= 0 for v in counters.values()
    ):
        raise _field("counters", "must map names to non-negative integers")
    check_rng(doc["rng"])
    pool = doc["pool"]
    if not isinstance(pool, dict) or not isinstance(pool.get("snapshots"), list):
        raise _field("pool", "must hold a list of snapshots")
    snapshots = []
    for i, meta in enumerate(pool["snapshots"]):
        where = f"pool.snapshots[{i}]"
        if not isinstance(meta, dict) or set(meta) != {"file", "step", "activation"}:
            raise _field(where, "must hold file, step and activation")
        file = meta["file"]
        if not isinstance(file, str) or file not in doc["files"] or not _POOL_FILE.fullmatch(file):
            raise _field(f"{where}.file", f"{meta['file']!r} is not a listed pool file")
        if meta["activation"] not in ("tanh", "relu"):
            raise _field(f"{where}.activation", f"must be tanh or relu, got {meta['activation']!r}")
        params = load_tensors_numpy(ckpt / meta["file"])
        snapshots.append(Snapshot(_int(meta, "step"), params, meta["activation"]))
    league = pool.get("league")
    if league is not None and not (
        isinstance(league, dict) and isinstance(league.get("members"), list)
    ):
        raise _field("pool.league", "must be the League's state (a mapping with members)")
    state = TrainState(step, config, snapshots, doc["rng"], dict(schedule), list(history),
                       dict(counters), league)  # fmt: skip
    return ckpt, doc, state


def load_checkpoint(path: str | Path) -> Checkpoint:
    """Read a whole checkpoint: state, policy weights and optimizer state (torch tensors)."""
    ckpt, doc, state = _read_state(path)
    if not is_agent_dir(ckpt / AGENT_DIR):
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: agent/ is missing")
    saved = Saved(ckpt, doc)
    weights, meta = saved.agent()
    if meta.step != state.step:
        raise saved.error(f"agent/ is at step {meta.step} but state.json says {state.step}")
    return Checkpoint(ckpt, state, weights, meta, saved.tensors("optimizer.safetensors"),
                      doc["optimizer"])  # fmt: skip
