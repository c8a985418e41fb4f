"""Files of trained agents: bounded reads, atomic writes, and where a run keeps its checkpoint.

A run's latest checkpoint is ``RUN/checkpoint/`` (``checkpoint.prev/`` mid-swap).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from cardsuite import safe_json
from cardsuite.errors import CheckpointError
from cardsuite.safe_json import write_json_atomic  # noqa: F401  (re-exported: the writers' home)

MAX_META_BYTES = 1 << 20  # 1 MiB of JSON metadata
CHECKPOINT_DIR = "checkpoint"
PREVIOUS_DIR = "checkpoint.prev"
STATE_FILE = "state.json"

SB3_ZIP_REFUSAL = (
    "is a stable-baselines3 zip: its 'data' entry may hold pickled ':serialized:' values "
    "that run arbitrary code when loaded, so cardsuite never loads it. If you trust the "
    "file, convert it once with `cardsuite export MODEL.zip --out DIR --game GAME "
    "--trust-pickle-this-file-can-run-code` and use ppo:DIR"
)


def sha256_file(path: str | Path) -> str:
    """The hex SHA-256 of a file."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


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


def find_checkpoint(path: str | Path) -> Path:
    """The checkpoint folder at ``path``: itself, or a run folder's latest.

    Raises:
        CheckpointError: nothing there, an SB3 zip (refused), or no checkpoint.
    """
    p = Path(path)
    if p.is_file() and p.suffix == ".zip":
        raise CheckpointError(f"{str(p)!r} {SB3_ZIP_REFUSAL}")
    if (p / STATE_FILE).is_file():
        return p
    for name in (CHECKPOINT_DIR, PREVIOUS_DIR):
        if (p / name / STATE_FILE).is_file():
            return p / name
    if not p.exists():
        raise CheckpointError(f"checkpoint {str(p)!r} does not exist")
    raise CheckpointError(
        f"{str(p)!r} is neither a checkpoint (agent/ + state.json) nor a run directory with "
        f"a {CHECKPOINT_DIR}/ inside: give a run's folder or its {CHECKPOINT_DIR}/"
    )
