"""Fault tolerance the RLlib way: a killed env runner is replaced; Ctrl-C stops with a checkpoint.

* An env runner's process is killed (SIGKILL) while the run trains. RLlib's
  restart settings (``restart_failed_env_runners``,
  ``max_num_env_runner_restarts``) replace it; the run goes on, and the new
  runner gets the league's snapshots back (``on_env_runners_recreated``).
* The trainer runs as its own process group, like a run in a terminal, and
  the whole group gets SIGINT (what Ctrl-C sends). The run checkpoints after
  the current iteration and exits; ``--resume`` continues from that
  iteration.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed")

import ray
import torch

from cardsuite.train.rllib import trainer
from cardsuite.train.rllib.config import load_run
from cardsuite.train.rllib.league import league_names, make_league, sync_league

REPO = Path(__file__).resolve().parents[2]
TINY = {
    "game": "scum",
    "options": {"num_players": 4},
    "sampler": "batched",
    "num_env_runners": 2,
    "num_envs_per_env_runner": 32,
    "num_cpus_per_env_runner": 0.5,
    "train_batch_size": 512,
    "minibatch_size": 256,
    "num_epochs": 1,
    "hidden_size": 32,
    "hidden_layers": 1,
    "eval_episodes": 0,
    "league_every": 1,
    "env_runner_restore_timeout_s": 30.0,
}


@pytest.fixture()
def ray_local() -> Any:
    """A small local Ray instance for one test."""
    torch.set_num_threads(1)
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _runner_pids(algo: Any) -> list[int]:
    return list(
        algo.env_runner_group.foreach_env_runner(lambda r: os.getpid(), local_env_runner=False)
    )


def test_killed_env_runner_is_restarted_and_the_run_goes_on(ray_local: Any, tmp_path: Path) -> None:
    """SIGKILL one runner during an iteration: training continues, the runner comes back."""
    run = load_run(None, checkpoint_dir=str(tmp_path), iterations=4, **TINY)
    league = make_league(run)
    algo = trainer.build(run, league)
    sync_league(algo, run, league, 0)
    try:
        algo.train()
        before = _runner_pids(algo)
        assert len(before) == 2
        killer = threading.Timer(0.3, os.kill, (before[0], signal.SIGKILL))
        killer.start()  # lands while iteration 2 samples or learns
        algo.train()
        killer.join()
        deadline = time.monotonic() + 90  # Ray restarts the actor; RLlib probes and syncs it
        while time.monotonic() < deadline:
            algo.train()
            if algo.env_runner_group.num_healthy_remote_workers() == 2:
                break
            time.sleep(1.0)
        assert algo.env_runner_group.num_healthy_remote_workers() == 2
        after = _runner_pids(algo)
        assert before[0] not in after and before[1] in after
        assert algo.env_runner_group.num_remote_worker_restarts() >= 1
        # The replacement got the driver's snapshots back (it started with baselines only).
        for names in league_names(algo):
            assert any(n.startswith("snapshot@") for n in names)
        assert algo.iteration >= 3
    finally:
        algo.stop()


def _trainer_cmd(ckpt: Path, iterations: int, *extra: str) -> list[str]:
    sets = [f"{k}={v}" for k, v in TINY.items() if k not in ("options", "num_env_runners")]
    cmd = [sys.executable, "-m", "cardsuite.train.rllib.trainer", "--num-cpus", "2",
           "--num-env-runners", "1", "--iterations", str(iterations),
           "--checkpoint-dir", str(ckpt), "--set", "options.num_players=4",
           "--set", "checkpoint_every=1000"]  # fmt: skip
    for item in sets:
        cmd += ["--set", item]
    return cmd + list(extra)


def test_ctrl_c_checkpoints_and_resume_continues(tmp_path: Path) -> None:
    """SIGINT to the run's process group mid-run: a checkpoint, exit 0; --resume goes on from it."""
    ckpt = tmp_path / "run"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "RAY_ADDRESS": ""}
    proc = subprocess.Popen(
        _trainer_cmd(ckpt, 1000),
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, like a terminal's foreground job
    )
    lines: list[str] = []
    assert proc.stdout is not None
    deadline = time.monotonic() + 150
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("iter 2/"):
            os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C sends to the foreground group
            break
        assert time.monotonic() < deadline, "".join(lines)
    rest, _ = proc.communicate(timeout=120)
    out = "".join(lines) + rest
    assert proc.returncode == 0, out
    assert "stopped by Ctrl-C at iteration" in out, out
    stopped = int(out.split("stopped by Ctrl-C at iteration ")[1].split(";")[0])
    assert stopped >= 2
    assert (ckpt / "LATEST").read_text().strip() == f"iter_{stopped:06d}"
    # Resume in this process: the run goes on from the saved iteration.
    logs: list[str] = []
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        run = load_run(None, checkpoint_dir=str(ckpt), iterations=stopped + 1,
                       **{**TINY, "num_env_runners": 1})  # fmt: skip
        last = trainer.train(run, resume=str(ckpt), log=logs.append)
    finally:
        ray.shutdown()
    text = "\n".join(logs)
    assert f"from iteration {stopped}" in text
    assert f"iter {stopped + 1}/{stopped + 1}" in text
    assert last.name == f"iter_{stopped + 1:06d}"
