"""A training run against the ways runs end on real machines (issue 59).

A second writer on a running run is refused, naming the holder; SIGTERM (a scheduler's
stop) saves a checkpoint and exits 130 well inside a 30 s grace period; a run killed
with SIGKILL leaves a stale lock that the resume takes over, saying so; a run that
stops before its first checkpoint starts again from its recorded config. The ones
marked slow run ``cardsuite ppo`` as real processes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cardsuite.cli import main

FLAGS = ["--num-games", "32", "--rollout-steps", "8", "--hidden", "16", "--layers", "1",
         "--eval-deals", "4", "--no-tensorboard", "--quiet", "--threads", "1"]  # fmt: skip
GRACE_S = 30.0


def _start(run: Path, *extra: str) -> subprocess.Popen[str]:
    """``cardsuite ppo`` on ``run`` in its own process, once it has trained an iteration."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardsuite.cli", "ppo", *extra, *FLAGS],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    progress = run / "progress.csv"
    while time.monotonic() < deadline:
        if progress.is_file() and len(progress.read_text().splitlines()) >= 3:
            return proc
        if proc.poll() is not None:
            raise AssertionError(f"the run ended early: {proc.communicate()}")
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("the run did not start training within 120 s")


@pytest.mark.slow
def test_sigterm_saves_within_the_grace_period_and_a_second_writer_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    proc = _start(run, "--run-dir", str(run), "--total-steps", "100000000")
    try:
        assert main(["ppo", "--resume", str(run), "--total-steps", "2000", *FLAGS]) == 2
        err = capsys.readouterr().err
        assert f"is in use by cardsuite ppo (process {proc.pid} on " in err, err
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=GRACE_S)
        took = time.monotonic() - sent
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert "SIGTERM: saving a checkpoint" in stderr and "SIGTERM: interrupted at step" in stderr
    assert took < GRACE_S
    print(f"SIGTERM to exit with the checkpoint written: {took:.1f} s")
    assert (run / "checkpoint" / "state.json").is_file() and not (run / ".lock").exists()
    assert main(["ppo", "--resume", str(run), "--total-steps", "2000", *FLAGS]) == 0
    assert (run / "agent" / "agent.json").is_file()


@pytest.mark.slow
def test_a_killed_runs_stale_lock_is_taken_over_on_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    proc = _start(
        run, "--run-dir", str(run), "--total-steps", "100000000", "--checkpoint-every", "256"
    )
    while not (run / "checkpoint" / "state.json").is_file():
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert (run / ".lock").is_file()  # left behind by the killed process
    assert main(["ppo", "--resume", str(run), "--total-steps", "2000", *FLAGS]) == 0
    err = capsys.readouterr().err
    assert f"taking over the lock of cardsuite ppo (process {proc.pid} on " in err, err
    assert (run / "agent" / "agent.json").is_file() and not (run / ".lock").exists()


@pytest.mark.slow
def test_a_run_killed_before_its_first_checkpoint_starts_again_on_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    proc = _start(run, "--run-dir", str(run), "--total-steps", "100000000")
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert not (run / "checkpoint").exists() and (run / "run.json").is_file()
    assert main(["ppo", "--run-dir", str(run), *FLAGS]) == 2
    assert f"start it again with --resume {run}" in capsys.readouterr().err
    assert main(["ppo", "--resume", str(run), "--total-steps", "1000", *FLAGS]) == 0
    err = capsys.readouterr().err
    assert "stopped before its first checkpoint: training it again from the start" in err, err
    assert (run / "agent" / "agent.json").is_file()


def test_a_crash_before_the_first_checkpoint_is_not_a_dead_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The run folder records its config when made (run.json); after a crash before any
    checkpoint, ``--resume RUN`` trains it again from the start with that config, in place,
    and ends as an uninterrupted run of the same config does (batched PPO is deterministic)."""
    import json

    from cardsuite.train.core import loop

    real = loop.TrainLoop.run_schedules

    def crash(self: loop.TrainLoop) -> None:
        real(self)
        raise RuntimeError("the machine went away")

    monkeypatch.setattr(loop.TrainLoop, "run_schedules", crash)
    run, clean = tmp_path / "run", tmp_path / "clean"
    tiny = ["--total-steps", "600", *FLAGS, "--checkpoint-every", "0", "--seed", "3"]
    with pytest.raises(RuntimeError, match="went away"):
        main(["ppo", "--run-dir", str(run), *tiny])
    recorded = json.loads((run / "run.json").read_text())
    assert recorded["command"] == "cardsuite ppo" and recorded["config"]["total_steps"] == 600
    assert not (run / "checkpoint").exists() and not (run / ".lock").exists()
    monkeypatch.setattr(loop.TrainLoop, "run_schedules", real)
    assert main(["ppo", "--resume", str(run)]) == 0  # every setting from run.json
    assert "training it again from the start" in capsys.readouterr().err
    assert main(["ppo", "--run-dir", str(clean), *tiny]) == 0
    again = (run / "agent" / "weights.safetensors").read_bytes()
    assert again == (clean / "agent" / "weights.safetensors").read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize("trainer", ["ppo", "dmc"])
def test_the_warm_start_is_checkpointed_and_never_repeated(
    trainer: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run stopped right after its warm start resumes from the checkpoint written then,
    without imitating again, and ends with an uninterrupted run's weights."""
    from cardsuite.train.core import loop
    from cardsuite.train.dmc.trainer import DMCTrainer as DMC
    from cardsuite.train.ppo.trainer import Trainer as PPO

    flags = [*FLAGS, "--bc-steps", "2000", "--bc-games", "64", "--bc-epochs", "1", "--seed", "4",
             "--total-steps", "600", "--checkpoint-every", "256"]  # fmt: skip
    if trainer == "dmc":
        flags = [*flags, "--batch-size", "32", "--buffer-size", "256", "--eval-against", "random"]

    def power_cut(self: loop.TrainLoop) -> None:
        raise RuntimeError("power cut")

    run, clean = tmp_path / "run", tmp_path / "clean"
    with monkeypatch.context() as patch:
        patch.setattr(loop.TrainLoop, "train", power_cut)
        with pytest.raises(RuntimeError, match="power cut"):
            main([trainer, "--run-dir", str(run), *flags])
    assert (run / "checkpoint" / "state.json").is_file()  # written after the warm start
    cls = PPO if trainer == "ppo" else DMC
    with monkeypatch.context() as patch:
        patch.setattr(cls, "warm_start", lambda self: pytest.fail("the warm start ran again"))
        assert main([trainer, "--resume", str(run)]) == 0
    assert main([trainer, "--run-dir", str(clean), *flags]) == 0
    weights = "agent/weights.safetensors"
    assert (run / weights).read_bytes() == (clean / weights).read_bytes()
