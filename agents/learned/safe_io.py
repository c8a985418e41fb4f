"""The safe agent format: weights as safetensors, metadata as JSON, nothing that runs code.

An *agent directory* holds ``weights.safetensors``, ``agent.json`` (`AgentMeta` and the
weights' SHA-256) and optionally a model card ``README.md`` (never read to load). Loading
checks the safetensors header before any tensor, every ``agent.json`` field (named in a
`CheckpointError`), size limits, the checksum (against corruption, not attackers) and the
declared network, and refuses any other file.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite import safe_json
from cardsuite.agents.learned.files import (
    check_file_size,
    read_json_file,
    sha256_file,
    write_json_atomic,
)
from cardsuite.agents.learned.meta import (
    FORMAT,
    META_FILE,
    TENSOR_NAME,
    WEIGHTS_FILE,
    AgentMeta,
    check_json,
    check_weights,
    validate_meta,
)
from cardsuite.errors import CheckpointError

MAX_WEIGHTS_BYTES = 1 << 30  # 1 GiB of tensors
MAX_TENSORS = 10_000
FORMAT_VERSION = 1
CARD_FILE = "README.md"  # an agent directory's optional model card


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


def read_header(path: Path, limit: int) -> dict[str, Any]:
    """Parse and check the safetensors header before any tensor is read."""
    size = check_file_size(path, limit, "weights")
    where = f"weights {str(path)!r}"
    with open(path, "rb") as fh:
        raw = fh.read(8)
        if len(raw) < 8:
            raise CheckpointError(f"{where}: not a safetensors file (too short)")
        n = int.from_bytes(raw, "little")
        if n > min(size - 8, 100 << 20):
            raise CheckpointError(f"{where}: not a safetensors file (bad header size)")
        what = f"{where}: not a safetensors file (header)"
        header = safe_json.loads(fh.read(n), what, error=CheckpointError, max_chars=n)
    if not isinstance(header, dict):
        raise CheckpointError(f"{where}: not a safetensors file (header)")
    header.pop("__metadata__", None)
    if len(header) > MAX_TENSORS:
        raise CheckpointError(f"{where}: {len(header)} tensors, over {MAX_TENSORS}")
    for name, info in header.items():
        if not TENSOR_NAME.fullmatch(name) or not isinstance(info, dict):
            raise CheckpointError(f"{where}: bad tensor entry {name[:80]!r}")
    return header


def load_tensors_numpy(path: str | Path, limit: int = MAX_WEIGHTS_BYTES) -> dict[str, np.ndarray]:
    """Tensors of a safetensors file as numpy arrays (no torch); CheckpointError if malformed."""
    from safetensors.numpy import load_file

    p = Path(path)
    read_header(p, limit)
    try:
        return dict(load_file(str(p)))
    except Exception as err:  # safetensors raises SafetensorError and others
        raise CheckpointError(f"weights {str(p)!r}: {type(err).__name__}: {err}") from None


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"format": str(FORMAT_VERSION)}
    for pkg in ("cardsuite", "safetensors", "numpy", "torch"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            continue
    return out


def save_agent(directory: str | Path, tensors: Mapping[str, Any], meta: AgentMeta) -> Path:
    """Write an agent directory (``weights.safetensors`` + ``agent.json``) through a temporary
    sibling and a rename; ``meta`` is first checked against ``tensors`` as
    [`load_agent`][cardsuite.load_agent] would. The directory must not exist or be empty.
    """
    out = Path(directory)
    arrays = {name: as_numpy(v) for name, v in tensors.items()}
    meta = AgentMeta(**{**asdict(meta), "network": meta.network, "versions": _versions()})
    doc = meta.to_json()
    check_json("agent.json", doc)
    validate_meta({**doc, "format": FORMAT, "sha256": "0" * 64}, out)
    check_weights(arrays, meta, out)
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
    """Give ``directory`` and its files the umask's modes, not the temporary files' owner-only
    ones: an agent is shared and shipped."""
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
    return _read_meta(Path(directory))[0]


def _read_meta(d: Path) -> tuple[AgentMeta, str]:
    if not d.is_dir():
        raise CheckpointError(f"agent {str(d)!r} is not a directory")
    known = (META_FILE, WEIGHTS_FILE, CARD_FILE)
    extra = sorted(p.name for p in d.iterdir() if p.name not in known)
    if extra:
        raise CheckpointError(
            f"agent {str(d)!r}: unexpected file(s) {', '.join(extra)}; an agent directory "
            f"holds only {WEIGHTS_FILE}, {META_FILE} and a {CARD_FILE} model card"
        )
    doc = read_json_file(d / META_FILE, f"agent {str(d)!r}: {META_FILE}")
    return validate_meta(doc, d)


def load_agent_numpy(
    directory: str | Path, *, limit: int = MAX_WEIGHTS_BYTES
) -> tuple[dict[str, np.ndarray], AgentMeta]:
    """Load an agent directory as numpy arrays (torch is not needed).

    Raises:
        CheckpointError: a missing, extra, oversized or malformed file, a bad ``agent.json``
            field (named), a checksum mismatch, or weights that do not fit the network.
    """
    d = Path(directory)
    meta, digest = _read_meta(d)
    weights = d / WEIGHTS_FILE
    check_file_size(weights, limit, f"agent {str(d)!r}: {WEIGHTS_FILE}")
    if sha256_file(weights) != digest:
        raise CheckpointError(f"agent {str(d)!r}: {WEIGHTS_FILE} does not match agent.json sha256")
    arrays = load_tensors_numpy(weights, limit)
    check_weights(arrays, meta, d)
    return arrays, meta
