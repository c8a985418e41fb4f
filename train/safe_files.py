"""Bounded, pickle-free files: JSON documents and safetensors tensors.

The building blocks of the safe agent format (`cardsuite.train.safe_io`)
and of training checkpoints:

* `read_json_file`: a regular file under a size limit, read by the
  suite's one strict JSON reader (`cardsuite.safe_json`: UTF-8, no repeated
  key, no NaN/Infinity, bounded depth); every failure a
  [`CheckpointError`][cardsuite.errors.CheckpointError] naming the file;
  `write_json_atomic` writes one through a rename;
* `save_tensors` / `load_tensors` / `load_tensors_numpy`:
  safetensors files, whose header is parsed and checked (size, tensor count,
  plain names) before any tensor is read;
* `sha256_file`, `check_file_size`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite import safe_json
from cardsuite.errors import CheckpointError

MAX_META_BYTES = 1 << 20  # 1 MiB of JSON metadata
MAX_WEIGHTS_BYTES = 1 << 30  # 1 GiB of tensors
MAX_TENSORS = 10_000
TENSOR_NAME = re.compile(r"[A-Za-z0-9_.\-/]{1,200}")


def sha256_file(path: str | Path) -> str:
    """The hex SHA-256 of a file, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def as_numpy(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    arr = np.asarray(value)
    if not arr.flags.c_contiguous:  # (np.ascontiguousarray would turn 0-d into 1-d)
        arr = arr.copy(order="C")
    if arr.dtype.kind not in "fiub":
        raise CheckpointError(f"tensor of dtype {arr.dtype} cannot be saved")
    return arr


def check_file_size(path: Path, limit: int, what: str) -> int:
    """The size of a regular file; CheckpointError when missing, special or too big."""
    try:
        st = path.lstat()
    except OSError:
        raise CheckpointError(f"{what}: {str(path)!r} is missing") from None
    if path.is_symlink() or not path.is_file():
        raise CheckpointError(f"{what}: {str(path)!r} is not a regular file")
    if st.st_size > limit:
        raise CheckpointError(
            f"{what}: {str(path)!r} is {st.st_size} bytes, over the {limit} limit"
        )
    return int(st.st_size)


def read_json_file(path: Path, what: str, limit: int = MAX_META_BYTES) -> Any:
    """A bounded JSON file: CheckpointError for size, encoding, syntax or nesting."""
    check_file_size(path, limit, what)
    return safe_json.loads(path.read_bytes(), what, error=CheckpointError, max_chars=limit)


def write_json_atomic(path: Path, doc: Any) -> None:
    """Write JSON to ``path`` through a temporary file and a rename (fsynced)."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1, allow_nan=False)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


# ------------------------------------------------------------------ tensors
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
