"""The safe agent format: weights as safetensors, metadata as JSON, nothing that runs code.

An *agent directory* holds exactly two files::

    weights.safetensors   the network's tensors by state-dict name (safetensors:
                          a JSON header and raw little-endian buffers)
    agent.json            `AgentMeta`: the game and its rule options, the
                          observation and action sizes, the actor network's
                          architecture, the training step, versions, and the
                          SHA-256 of ``weights.safetensors``

Loading never unpickles: safetensors parses a bounded JSON header and copies
raw buffers, and ``agent.json`` goes through `cardsuite.safe_json`. So a
tampered file can at worst be *refused*: every field of ``agent.json`` is
validated (a [`CheckpointError`][cardsuite.errors.CheckpointError] names the field), the
files have size limits, the weights must match the recorded SHA-256 and the
declared architecture (names, shapes, dtypes), and any other file in the
directory is refused. The checksum guards against corruption, not attackers:
safety comes from the format itself, so recomputing the sum gains nothing.

API (small on purpose; the trainers and ``ppo:PATH`` agents share it)::

    save_agent(directory, tensors, meta) -> Path         # torch or numpy tensors
    load_agent(directory) -> (dict[str, torch.Tensor], AgentMeta)
    load_agent_numpy(directory) -> (dict[str, np.ndarray], AgentMeta)   # no torch needed
    actor_logits(arrays, meta.network, scaled_obs) -> logits   # numpy forward pass
                                                  # (from cardsuite.agents.learned.netspec)
    save_tensors(path, tensors) / load_tensors(path) / load_tensors_numpy(path)

The same bounded, pickle-free building blocks serve the training checkpoints
(`cardsuite.train.core.checkpoint`): `read_json_file` (a regular file under
a size limit, read by the suite's one strict JSON reader, `cardsuite.safe_json`),
`write_json_atomic` (through a rename, fsynced), `sha256_file` and
`check_file_size`; a safetensors header is parsed and checked (size, tensor
count, plain names) before any tensor is read.

The actor is described by `NetworkSpec` (`cardsuite.agents.learned.netspec`): an MLP whose layers are
named by state-dict prefixes (``<prefix>.weight`` of shape ``[out, in]`` and
``<prefix>.bias`` of shape ``[out]``), with the hidden activation between
layers and logits out of the last one. Other tensors (a critic) may sit in
the same file; only the actor's are needed to play.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite import safe_json
from cardsuite.agents.learned.features import CountInputs
from cardsuite.agents.learned.files import (
    MAX_META_BYTES,
    check_file_size,
    read_json_file,
    sha256_file,
    write_json_atomic,
)
from cardsuite.agents.learned.netspec import ACTIVATIONS, NetworkSpec, actor_logits
from cardsuite.errors import CheckpointError

__all__ = [
    "FORMAT",
    "MAX_META_BYTES",
    "MAX_TENSORS",
    "MAX_WEIGHTS_BYTES",
    "META_FILE",
    "WEIGHTS_FILE",
    "AgentMeta",
    "NetworkSpec",
    "actor_logits",
    "check_file_size",
    "is_agent_dir",
    "load_agent",
    "load_agent_numpy",
    "load_tensors",
    "load_tensors_numpy",
    "read_json_file",
    "read_meta",
    "save_agent",
    "save_tensors",
    "sha256_file",
    "write_json_atomic",
]

MAX_WEIGHTS_BYTES = 1 << 30  # 1 GiB of tensors
MAX_TENSORS = 10_000
TENSOR_NAME = re.compile(r"[A-Za-z0-9_.\-/]{1,200}")
FORMAT = "cardsuite-agent"
FORMAT_VERSION = 1
WEIGHTS_FILE = "weights.safetensors"
META_FILE = "agent.json"

MAX_JSON_DEPTH = 32
OBS_SCALES = ("obs_spec", "none")
LAYOUTS = ("table", "generic", "projected")
FLOAT_DTYPES = ("F32", "F64", "F16", "BF16")
_SHA = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class AgentMeta:
    """What ``agent.json`` records besides the checksum (see the module doc).

    Attributes:
        game: the game's registry name (``"scum"``).
        options: the game's rule options (JSON values).
        obs_size: observation features the network reads.
        num_actions: actions it scores.
        network: the actor's architecture.
        step: learner steps trained when saved.
        trainer: who wrote it (``"sb3-maskable-ppo"``, ``"cardsuite-ppo"``...).
        config: the training config (JSON values), for the record.
        versions: package versions at save time (filled by `save_agent`).
    """

    game: str
    options: dict[str, Any]
    obs_size: int
    num_actions: int
    network: NetworkSpec
    step: int = 0
    trainer: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The metadata as a JSON object (``network.actor`` as a list)."""
        doc = asdict(self)
        doc["network"]["actor"] = list(self.network.actor)
        if self.network.features is None:
            del doc["network"]["features"]  # absent, as in agents saved before the field
        else:
            doc["network"]["features"] = self.network.features.to_json()
        return doc


# ------------------------------------------------------------------ tensors
def as_numpy(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    arr = np.asarray(value)
    if not arr.flags.c_contiguous:  # (np.ascontiguousarray would turn 0-d into 1-d)
        arr = arr.copy(order="C")
    if arr.dtype.kind not in "fiub":
        raise CheckpointError(f"tensor of dtype {arr.dtype} cannot be saved")
    return arr


def save_tensors(path: str | Path, tensors: Mapping[str, Any]) -> Path:
    """Write tensors (torch or numpy, by name) as one safetensors file."""
    from safetensors.numpy import save_file

    arrays = {}
    for name, value in tensors.items():
        if not isinstance(name, str) or not TENSOR_NAME.fullmatch(name):
            raise CheckpointError(f"tensor name {name!r} is not a plain dotted name")
        arrays[name] = as_numpy(value)
    out = Path(path)
    save_file(arrays, str(out))
    return out


def _header(path: Path, limit: int) -> dict[str, Any]:
    """Parse and check the safetensors header before any tensor is read."""
    size = check_file_size(path, limit, "weights")
    with open(path, "rb") as fh:
        raw = fh.read(8)
        if len(raw) < 8:
            raise CheckpointError(f"weights {str(path)!r}: not a safetensors file (too short)")
        n = int.from_bytes(raw, "little")
        if n > min(size - 8, 100 << 20):
            raise CheckpointError(
                f"weights {str(path)!r}: not a safetensors file (bad header size)"
            )
        where = f"weights {str(path)!r}: not a safetensors file (header)"
        header = safe_json.loads(fh.read(n), where, error=CheckpointError, max_chars=n)
    if not isinstance(header, dict):
        raise CheckpointError(f"weights {str(path)!r}: not a safetensors file (header)")
    header.pop("__metadata__", None)
    if len(header) > MAX_TENSORS:
        raise CheckpointError(f"weights {str(path)!r}: {len(header)} tensors, over {MAX_TENSORS}")
    for name, info in header.items():
        if not TENSOR_NAME.fullmatch(name) or not isinstance(info, dict):
            raise CheckpointError(f"weights {str(path)!r}: bad tensor entry {name[:80]!r}")
    return header


def load_tensors_numpy(path: str | Path, limit: int = MAX_WEIGHTS_BYTES) -> dict[str, np.ndarray]:
    """Tensors of a safetensors file as numpy arrays (no torch); CheckpointError if malformed."""
    from safetensors.numpy import load_file

    p = Path(path)
    _header(p, limit)
    try:
        return dict(load_file(str(p)))
    except Exception as err:  # safetensors raises SafetensorError and others
        raise CheckpointError(f"weights {str(p)!r}: {type(err).__name__}: {err}") from None


def load_tensors(path: str | Path, limit: int = MAX_WEIGHTS_BYTES) -> dict[str, Any]:
    """Tensors of a safetensors file as torch tensors; CheckpointError if malformed."""
    from safetensors.torch import load_file

    p = Path(path)
    _header(p, limit)
    try:
        return dict(load_file(str(p), device="cpu"))
    except Exception as err:
        raise CheckpointError(f"weights {str(p)!r}: {type(err).__name__}: {err}") from None


# ------------------------------------------------------------------ helpers
def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"format": str(FORMAT_VERSION)}
    for pkg in ("cardsuite", "safetensors", "numpy", "torch"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            continue
    return out


def _check_json(where: str, value: Any, depth: int = 0) -> None:
    """JSON values only (finite numbers, str keys), bounded nesting."""
    if depth > MAX_JSON_DEPTH:
        raise CheckpointError(f"{where}: nested deeper than {MAX_JSON_DEPTH} levels")
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CheckpointError(f"{where}: {value!r} is not a finite number")
        return
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            _check_json(f"{where}[{i}]", item, depth + 1)
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise CheckpointError(f"{where}: key {key!r} is not a string")
            _check_json(f"{where}.{key}", item, depth + 1)
        return
    raise CheckpointError(f"{where}: {type(value).__name__} is not a JSON value")


# ------------------------------------------------------------------- agents
def save_agent(directory: str | Path, tensors: Mapping[str, Any], meta: AgentMeta) -> Path:
    """Write an agent directory (``weights.safetensors`` + ``agent.json``).

    ``meta`` is validated against ``tensors`` first (the same checks as
    [`load_agent`][cardsuite.load_agent]), so a file that could not be loaded is never written.
    The directory must not exist or be empty; it is written through a
    temporary sibling and a rename.
    """
    out = Path(directory)
    arrays = {name: as_numpy(v) for name, v in tensors.items()}
    meta = AgentMeta(**{**asdict(meta), "network": meta.network, "versions": _versions()})
    doc = meta.to_json()
    _check_json("agent.json", doc)
    _validate_meta({**doc, "format": FORMAT, "sha256": "0" * 64}, out)
    _check_weights(arrays, meta, out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise CheckpointError(f"agent directory {str(out)!r} already exists and is not empty")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    except OSError as err:
        raise CheckpointError(f"cannot write agent directory {str(out)!r}: {err}") from None
    try:
        save_tensors(tmp / WEIGHTS_FILE, arrays)
        doc = {"format": FORMAT, **doc, "sha256": sha256_file(tmp / WEIGHTS_FILE)}
        write_json_atomic(tmp / META_FILE, doc)
        _usual_modes(tmp)
        if out.exists():
            out.rmdir()
        os.replace(tmp, out)
    except OSError as err:  # a full disk, a vanished folder: named, nothing half-written kept
        raise CheckpointError(f"cannot write agent directory {str(out)!r}: {err}") from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return out


def _usual_modes(directory: Path) -> None:
    """Give ``directory`` and its files the modes a plain ``mkdir``/``open`` would (the
    umask's), not the owner-only ones of the temporary files they were written through: an
    agent is shared, shipped in the package and read by other users."""
    mask = os.umask(0o022)
    os.umask(mask)
    directory.chmod(0o777 & ~mask)
    for f in directory.iterdir():
        f.chmod(0o666 & ~mask)


def is_agent_dir(path: str | Path) -> bool:
    """Whether ``path`` looks like an agent directory (holds ``agent.json``)."""
    return (Path(path) / META_FILE).is_file()


def read_meta(directory: str | Path) -> AgentMeta:
    """Read and validate ``agent.json`` alone (no weights)."""
    meta, _ = _read_meta(Path(directory))
    return meta


def _read_meta(d: Path) -> tuple[AgentMeta, str]:
    if not d.is_dir():
        raise CheckpointError(f"agent {str(d)!r} is not a directory")
    extra = sorted(p.name for p in d.iterdir() if p.name not in (META_FILE, WEIGHTS_FILE))
    if extra:
        raise CheckpointError(
            f"agent {str(d)!r}: unexpected file(s) {', '.join(extra)}; an agent directory "
            f"holds only {WEIGHTS_FILE} and {META_FILE}"
        )
    doc = read_json_file(d / META_FILE, f"agent {str(d)!r}: {META_FILE}")
    return _validate_meta(doc, d)


def load_agent_numpy(
    directory: str | Path, *, limit: int = MAX_WEIGHTS_BYTES
) -> tuple[dict[str, np.ndarray], AgentMeta]:
    """Load an agent directory as numpy arrays (torch is not needed).

    Raises:
        CheckpointError: a missing, extra, oversized or malformed file, an
            ``agent.json`` field that does not validate (named), a checksum
            mismatch, or weights that do not fit the declared network.
    """
    d = Path(directory)
    meta, digest = _read_meta(d)
    weights = d / WEIGHTS_FILE
    check_file_size(weights, limit, f"agent {str(d)!r}: {WEIGHTS_FILE}")
    if sha256_file(weights) != digest:
        raise CheckpointError(f"agent {str(d)!r}: {WEIGHTS_FILE} does not match agent.json sha256")
    arrays = load_tensors_numpy(weights, limit)
    _check_weights(arrays, meta, d)
    return arrays, meta


def load_agent(
    directory: str | Path, *, limit: int = MAX_WEIGHTS_BYTES
) -> tuple[dict[str, Any], AgentMeta]:
    """Load an agent directory as torch tensors (same checks as `load_agent_numpy`)."""
    import torch

    arrays, meta = load_agent_numpy(directory, limit=limit)
    return {k: torch.from_numpy(np.array(v)) for k, v in arrays.items()}, meta


# --------------------------------------------------------------- validation
def _validate_meta(doc: Any, d: Path) -> tuple[AgentMeta, str]:
    """Check every field of an ``agent.json`` document; the meta and its sha256."""
    where = f"agent {str(d)!r}: {META_FILE}"

    def fail(name: str, message: str) -> CheckpointError:
        return CheckpointError(f"{where}: field {name!r} {message}")

    if not isinstance(doc, dict):
        raise CheckpointError(f"{where}: expected a JSON object")
    known = {"format", "sha256", *AgentMeta.__dataclass_fields__}
    unknown = sorted(set(doc) - known)
    if unknown:
        raise fail(unknown[0], "is not a known field")
    for name in ("format", "sha256", "game", "options", "obs_size", "num_actions", "network"):
        if name not in doc:
            raise fail(name, "is missing")
    if doc["format"] != FORMAT:
        raise fail("format", f"must be {FORMAT!r}, got {doc['format']!r}")
    if not isinstance(doc["sha256"], str) or not _SHA.fullmatch(doc["sha256"]):
        raise fail("sha256", "must be 64 lowercase hex digits")
    game = doc["game"]
    if not isinstance(game, str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,40}", game):
        raise fail("game", f"must be a game's registry name, got {str(game)[:60]!r}")
    for name in ("options", "config"):
        if not isinstance(doc.get(name, {}), dict):
            raise fail(name, "must be a JSON object")
        _check_json(f"{where}: field {name!r}", doc.get(name, {}))
    for name, low in (("obs_size", 1), ("num_actions", 1), ("step", 0)):
        value = doc.get(name, 0)
        if type(value) is not int or not low <= value < 1 << 40:
            raise fail(name, f"must be an integer >= {low}, got {value!r}")
    if not isinstance(doc.get("trainer", ""), str) or len(doc.get("trainer", "")) > 100:
        raise fail("trainer", "must be a short string")
    versions = doc.get("versions", {})
    if not isinstance(versions, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and len(v) < 100 for k, v in versions.items()
    ):
        raise fail("versions", "must map package names to version strings")
    net = doc["network"]
    if not isinstance(net, dict):
        raise fail("network", "must be a JSON object")
    extra = sorted(set(net) - set(NetworkSpec.__dataclass_fields__))
    if extra:
        raise fail(f"network.{extra[0]}", "is not a known field")
    if net.get("kind", "mlp") != "mlp":
        raise fail("network.kind", f"must be 'mlp', got {net.get('kind')!r}")
    if net.get("activation") not in ACTIVATIONS:
        raise fail(
            "network.activation", f"must be one of {ACTIVATIONS}, got {net.get('activation')!r}"
        )
    if net.get("obs_scale", "obs_spec") not in OBS_SCALES:
        raise fail(
            "network.obs_scale", f"must be one of {OBS_SCALES}, got {net.get('obs_scale')!r}"
        )
    if net.get("layout", "table") not in LAYOUTS:
        raise fail("network.layout", f"must be one of {LAYOUTS}, got {net.get('layout')!r}")
    actor = net.get("actor")
    if (
        not isinstance(actor, list)
        or not 1 <= len(actor) <= 64
        or not all(isinstance(p, str) and TENSOR_NAME.fullmatch(p) for p in actor)
    ):
        raise fail("network.actor", "must list 1 to 64 state-dict prefixes of linear layers")
    features = None
    if net.get("features") is not None:
        features = CountInputs.from_json(net["features"], doc["obs_size"], where)
    meta = AgentMeta(
        game=game,
        options=dict(doc["options"]),
        obs_size=doc["obs_size"],
        num_actions=doc["num_actions"],
        network=NetworkSpec(
            activation=net["activation"],
            actor=tuple(actor),
            obs_scale=net.get("obs_scale", "obs_spec"),
            layout=net.get("layout", "table"),
            features=features,
        ),
        step=doc.get("step", 0),
        trainer=doc.get("trainer", ""),
        config=dict(doc.get("config", {})),
        versions=dict(versions),
    )
    return meta, doc["sha256"]


def _check_weights(arrays: Mapping[str, np.ndarray], meta: AgentMeta, d: Path) -> None:
    """The actor's tensors exist, are float, and chain obs_size -> ... -> num_actions."""
    where = f"agent {str(d)!r}: {WEIGHTS_FILE}"
    width = meta.obs_size + meta.network.extra_inputs
    for i, prefix in enumerate(meta.network.actor):
        w, b = arrays.get(f"{prefix}.weight"), arrays.get(f"{prefix}.bias")
        if w is None or b is None:
            raise CheckpointError(f"{where}: network.actor layer {prefix!r} has no weight/bias")
        for t, name in ((w, "weight"), (b, "bias")):
            if t.dtype.kind != "f":
                raise CheckpointError(f"{where}: {prefix}.{name} has dtype {t.dtype}, not float")
            if not np.all(np.isfinite(t)):
                raise CheckpointError(f"{where}: {prefix}.{name} holds NaN or inf")
        if w.ndim != 2 or w.shape[1] != width or b.shape != (w.shape[0],):
            raise CheckpointError(
                f"{where}: layer {i} ({prefix}) has weight {tuple(w.shape)} and bias "
                f"{tuple(b.shape)}; expected [out, {width}] and [out]"
            )
        width = w.shape[0]
    if width != meta.num_actions:
        raise CheckpointError(
            f"{where}: the actor outputs {width} logits but num_actions is {meta.num_actions}"
        )
