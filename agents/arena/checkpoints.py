"""A round-robin's checkpoint: one JSON line per finished pair (``--checkpoint FILE``).

A rerun skips the pairs already there. A line of other settings (game,
players, options, seed, deals) is refused, and so is a line whose agent now
plays other weights than the SHA-256 it recorded (``docs/leaderboard.md``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.registry import weights_sha256
from cardsuite.errors import ConfigError
from cardsuite.safe_json import loads, read_bounded

#: Largest checkpoint file read (bytes): 200 deals x 100 pairs is about 1 MB.
MAX_CHECKPOINT_BYTES = 64 * 2**20


def checkpoint_key(
    game: str, players: int, options: dict[str, Any], seed: int, deals: int
) -> dict[str, Any]:
    """The settings every line of a run's checkpoint must repeat."""
    return {"game": game, "players": players, "options": options, "seed": seed, "deals": deals}


def read_checkpoint(path: str | Path, key: dict[str, Any]) -> dict[tuple[str, str], np.ndarray]:
    """The finished pairs of a checkpoint file, ``{(spec_a, spec_b): outcomes}``.

    A last line cut short (a run killed while writing it) is ignored; it is
    dropped from the file by the next `append_checkpoint`.

    Raises:
        ConfigError: a line that is not a pair of this run's settings (other
            game, players, options, seed or deal count), a line whose agent
            plays other weights now than it recorded, or a broken line.
    """
    source = Path(path)
    if not source.exists():
        return {}
    text = read_bounded(source, "--checkpoint file", MAX_CHECKPOINT_BYTES, ConfigError)
    lines = text.decode("utf-8", errors="replace").split("\n")[:-1]  # after the last \n: unfinished
    expected = loads(json.dumps(key), "the run's settings", error=ConfigError)
    done: dict[tuple[str, str], np.ndarray] = {}
    hashes: dict[str, str | None] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"--checkpoint {str(source)!r} line {number}"
        data = loads(line, where, error=ConfigError)
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: not a JSON object")
        settings = {k: data.get(k) for k in key}
        if settings != expected:
            raise ConfigError(
                f"{where} is from another run ({json.dumps(settings, sort_keys=True)}); "
                f"this run is {json.dumps(key, sort_keys=True)}: give a new --checkpoint file"
            )
        a, b, out = data.get("a"), data.get("b"), data.get("outcomes")
        if (
            not isinstance(a, str)
            or not isinstance(b, str)
            or not isinstance(out, list)
            or len(out) != key["deals"]
            or any(x not in (0, 0.5, 1) for x in out)
        ):
            raise ConfigError(f"{where}: needs a, b and {key['deals']} outcomes of 0, 0.5 or 1")
        recorded = data.get("weights", [None, None])
        if (
            not isinstance(recorded, list)
            or len(recorded) != 2
            or any(w is not None and not isinstance(w, str) for w in recorded)
        ):
            raise ConfigError(f"{where}: weights must be a list of two SHA-256 strings or null")
        for spec, then in zip((a, b), recorded, strict=True):
            if then is None:
                continue
            if spec not in hashes:
                hashes[spec] = weights_sha256(spec)
            if hashes[spec] != then:
                now = (hashes[spec] or "none")[:12]
                raise ConfigError(
                    f"{where}: {spec!r} played weights of SHA-256 {then[:12]}... then and "
                    f"plays {now}... now (re-shipped or retrained): delete that line to play "
                    "the pair again, or give a new --checkpoint file"
                )
        done[(a, b)] = np.asarray(out, dtype=np.float64)
    return done


def check_writable(path: str | Path) -> None:
    """ConfigError unless the checkpoint can be appended to (checked before the first game)."""
    try:
        with Path(path).open("ab"):
            pass
    except OSError as err:
        raise ConfigError(
            f"cannot write --checkpoint {str(path)!r}: {err.strerror or err}"
        ) from None


def append_checkpoint(
    path: str | Path,
    key: dict[str, Any],
    a: str,
    b: str,
    outcomes: np.ndarray,
    weights: tuple[str | None, str | None] | None = None,
) -> None:
    """Append one finished pair to the checkpoint file (one line, flushed to disk).

    The line records the SHA-256 of the weights each agent played: ``weights``
    as hashed when the pair started, else `weights_sha256` now.
    """
    target = Path(path)
    played = list(weights) if weights is not None else [weights_sha256(a), weights_sha256(b)]
    line = json.dumps({
        **key, "a": a, "b": b, "outcomes": [float(x) for x in outcomes], "weights": played,
    })  # fmt: skip
    try:
        with target.open("a+b") as fh:
            fh.seek(0, os.SEEK_END)
            if fh.tell():
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":  # a line cut short by a killed run: drop it
                    fh.seek(0)
                    kept = fh.read().rpartition(b"\n")[0]
                    fh.truncate(0)
                    fh.write(kept + b"\n" if kept else b"")
            fh.write(line.encode("utf-8") + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as err:
        raise ConfigError(
            f"cannot write --checkpoint {str(target)!r}: {err.strerror or err}"
        ) from None
