"""Faults while a checkpoint is written (issue 59): a full disk (ENOSPC) or a read-only
file system (EROFS) at every step of the writer, and the process killed at every step.

Each trial trains a small batched PPO run that checkpoints every iteration and injects the
fault into its second checkpoint. The run must stop with the named error (exit status 2,
"cannot write ...", the system's reason), the previous checkpoint must be intact,
and ``--resume`` must then end with the same weights as a run that never failed (batched
PPO is deterministic). The default run tries one fault; ``-m slow`` (CI) tries them all
and prints the tally.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cardsuite.cli import main
from cardsuite.train.core import checkpoint as ckpt

FLAGS = ["--num-games", "32", "--rollout-steps", "8", "--hidden", "16", "--layers", "1",
         "--eval-deals", "4", "--no-tensorboard", "--quiet", "--threads", "1", "--seed", "5",
         "--total-steps", "1200", "--checkpoint-every", "256"]  # fmt: skip
DMC_FLAGS = ["--num-games", "8", "--rollout-steps", "8", "--hidden", "16", "--layers", "1",
             "--batch-size", "32", "--buffer-size", "256", "--eval-deals", "2", "--quiet",
             "--eval-against", "random", "--no-tensorboard", "--device", "cpu", "--seed", "5",
             "--total-steps", "400", "--checkpoint-every", "64", "--threads", "1"]  # fmt: skip

#: (where in the writer, the nth call of it in the failing save)
POINTS = [("save_tensors", 1), ("save_tensors", 2), ("write_json_atomic", 1),
          ("replace", 1), ("replace", 2)]  # fmt: skip
FAULTS = {"ENOSPC": errno.ENOSPC, "EROFS": errno.EROFS}


class _Injector:
    """Fails the ``nth`` call of ``point`` during the second checkpoint written."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, point: str, nth: int, code: int) -> None:
        self.saves, self.calls, self.code = 0, 0, code
        real_write = ckpt.write_checkpoint

        def counting_write(run_dir: Any, fill: Callable[[Path], dict[str, Any]]) -> Path:
            self.saves += 1
            self.calls = 0
            return real_write(run_dir, fill)

        def faulty(real: Callable[..., Any]) -> Callable[..., Any]:
            def call(*args: Any, **kwargs: Any) -> Any:
                if self.saves == 2:
                    self.calls += 1
                    if self.calls == nth:
                        raise OSError(code, os.strerror(code))
                return real(*args, **kwargs)

            return call

        monkeypatch.setattr(ckpt, "write_checkpoint", counting_write)
        if point == "replace":
            fake_os = type("FaultyOS", (), {"__getattr__": lambda _, n: getattr(os, n)})()
            fake_os.replace = faulty(os.replace)  # type: ignore[attr-defined]
            monkeypatch.setattr(ckpt, "os", fake_os)
        elif point == "save_tensors":  # the agent's weights, then the optimizer's file
            import safetensors.numpy

            monkeypatch.setattr(safetensors.numpy, "save_file", faulty(safetensors.numpy.save_file))
        else:
            monkeypatch.setattr(ckpt, point, faulty(getattr(ckpt, point)))


def _weights(run: Path) -> bytes:
    return (run / "agent" / "weights.safetensors").read_bytes()


@pytest.fixture(scope="module")
def clean_weights(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    run = tmp_path_factory.mktemp("clean") / "run"
    assert main(["ppo", "--run-dir", str(run), *FLAGS]) == 0
    return _weights(run)


def _trial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    point: str, nth: int, fault: str, clean: bytes,
) -> str:  # fmt: skip
    """One fault; its outcome: ``recovered`` (asserted on the way)."""
    run = tmp_path / f"{fault}-{point}-{nth}"
    with monkeypatch.context() as patch:
        _Injector(patch, point, nth, FAULTS[fault])
        assert main(["ppo", "--run-dir", str(run), *FLAGS]) == 2
    err = capsys.readouterr().err
    assert "error: cannot write" in err and os.strerror(FAULTS[fault]) in err, err
    assert not list(run.glob(".checkpoint-*")), "a half-written checkpoint was left"
    assert main(["ppo", "--resume", str(run)]) == 0, capsys.readouterr().err
    assert _weights(run) == clean, "the resumed run lost or changed training"
    return "recovered"


def test_a_full_disk_during_a_checkpoint_is_a_named_error_and_the_run_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    clean_weights: bytes,
) -> None:  # fmt: skip
    assert _trial(tmp_path, monkeypatch, capsys, "replace", 2, "ENOSPC", clean_weights)


@pytest.mark.slow
def test_every_write_fault_of_the_checkpoint_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    clean_weights: bytes,
) -> None:  # fmt: skip
    outcomes = [
        _trial(tmp_path, monkeypatch, capsys, point, nth, fault, clean_weights)
        for fault in FAULTS
        for point, nth in POINTS
    ]
    with capsys.disabled():
        print(f"\ncheckpoint write faults: {len(outcomes)} trials, "
              f"{outcomes.count('recovered')} recovered, 0 lost")  # fmt: skip
    assert outcomes.count("recovered") == len(POINTS) * len(FAULTS)


CRASH = """
import os, sys
from cardsuite.train.core import checkpoint as ckpt
from cardsuite.cli import main
point, nth = sys.argv[1], int(sys.argv[2])
state = {"saves": 0, "calls": 0}
real_write = ckpt.write_checkpoint
def counting(run_dir, fill):
    state["saves"] += 1
    state["calls"] = 0
    return real_write(run_dir, fill)
def dying(real):
    def call(*args, **kwargs):
        if state["saves"] == 2:
            state["calls"] += 1
            if state["calls"] == nth:
                os._exit(137)  # as kill -9: no cleanup runs
        return real(*args, **kwargs)
    return call
ckpt.write_checkpoint = counting
if point == "replace":
    class FaultyOS:
        def __getattr__(self, name):
            return getattr(os, name)
    ckpt.os = FaultyOS()
    ckpt.os.replace = dying(os.replace)
else:
    import safetensors.numpy
    safetensors.numpy.save_file = dying(safetensors.numpy.save_file)
sys.exit(main(["ppo", *sys.argv[3:]]))
"""


@pytest.mark.slow
@pytest.mark.parametrize(("point", "nth"), POINTS[:2] + POINTS[3:])
def test_a_process_killed_while_writing_a_checkpoint_loses_nothing(
    point: str, nth: int, tmp_path: Path, capsys: pytest.CaptureFixture[str], clean_weights: bytes
) -> None:
    """Killed (no cleanup) at each step of the writer, including between its two renames:
    the resume finds the last good checkpoint, leaves no temporary folder and ends with the
    weights of a run that never stopped."""
    import subprocess
    import sys

    run = tmp_path / "run"
    done = subprocess.run([sys.executable, "-c", CRASH, point, str(nth), "--run-dir", str(run),
                           *FLAGS], capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 137, done.stderr
    assert main(["ppo", "--resume", str(run)]) == 0, capsys.readouterr().err
    assert _weights(run) == clean_weights
    assert not list(run.glob(".checkpoint-*")) and not (run / ".lock").exists()


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_deep_monte_carlo_recovers_the_same_way(
    fault: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """DMC is deterministic too: a failed second checkpoint, then the resume, ends with the
    weights of a run that never failed."""
    clean = tmp_path / "clean"
    assert main(["dmc", "--run-dir", str(clean), *DMC_FLAGS]) == 0
    run = tmp_path / "run"
    with monkeypatch.context() as patch:
        _Injector(patch, "replace", 2, FAULTS[fault])
        assert main(["dmc", "--run-dir", str(run), *DMC_FLAGS]) == 2
    assert os.strerror(FAULTS[fault]) in capsys.readouterr().err
    assert main(["dmc", "--resume", str(run)]) == 0
    assert _weights(run) == _weights(clean)
