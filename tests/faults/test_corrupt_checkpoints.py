"""Checkpoint files truncated or corrupted on disk, then resumed (issue 59, item 4).

A disk that lies, a copy cut short, a bit flipped: every file of a batched PPO
run's checkpoint (and its recorded config) is cut to half, emptied, or has one
byte changed in the middle. ``--resume`` must then stop with the named error
(exit 2, ``error:`` naming the file and what to do, no traceback), never train on
from a state that is silently wrong. (Each file's SHA-256 is in ``state.json``.)
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cardsuite.cli import main

FLAGS = ["--num-games", "32", "--rollout-steps", "8", "--hidden", "16", "--layers", "1",
         "--eval-deals", "4", "--no-tensorboard", "--quiet", "--threads", "1", "--seed", "5",
         "--total-steps", "600", "--checkpoint-every", "256"]  # fmt: skip
FILES = ["checkpoint/state.json", "checkpoint/run.safetensors", "checkpoint/optimizer.safetensors",
         "checkpoint/agent/agent.json", "checkpoint/agent/weights.safetensors"]  # fmt: skip


def _half(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _flip(data: bytes) -> bytes:
    middle = len(data) * 3 // 4  # past a safetensors header: in the numbers themselves
    return data[:middle] + bytes([data[middle] ^ 0x5A]) + data[middle + 1 :]


CORRUPTIONS = {"cut in half": _half, "emptied": lambda _d: b"", "one byte changed": _flip}


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run stopped at its first checkpoint: 256 of its 600 steps."""
    run = tmp_path_factory.mktemp("run") / "run"
    assert main(["ppo", "--run-dir", str(run), *FLAGS[:-4], "--total-steps", "256",
                 "--checkpoint-every", "256"]) == 0  # fmt: skip
    return run


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
@pytest.mark.parametrize("name", FILES)
def test_a_corrupt_checkpoint_file_is_a_named_error(
    stopped_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
    corruption: str,
) -> None:  # fmt: skip
    run = tmp_path / "run"
    shutil.copytree(stopped_run, run)
    target = run / name
    target.write_bytes(CORRUPTIONS[corruption](target.read_bytes()))
    capsys.readouterr()
    status = main(["ppo", "--resume", str(run), "--total-steps", "600"])
    err = capsys.readouterr().err
    assert status == 2, f"{name} {corruption}: resumed from it ({status})\n{err}"
    assert "error:" in err and "Traceback" not in err, err
    assert Path(name).name in err and "start a new run with --run-dir" in err, err
