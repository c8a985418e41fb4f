"""Fault tolerance the RLlib way: a killed env runner is replaced; Ctrl-C stops with a checkpoint.

* An env runner's process is killed (SIGKILL) while the run trains. RLlib's
  restart settings (``restart_failed_env_runners``,
  ``max_num_env_runner_restarts``) replace it; the run goes on, and the new
  runner gets the league's snapshots back (``on_env_runners_recreated``).
* The trainer runs as its own process group, like a run in a terminal, and
  the whole group gets SIGINT (what Ctrl-C sends). The run checkpoints after
  the current iteration and exits with status 130 (the training core's one
  Ctrl-C handler); ``--resume`` continues from that iteration.
"""

from __future__ import annotations

import json
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
from cardsuite.train.rllib.config import load_config
from cardsuite.train.rllib.league import runner_envs, sync_league

REPO = Path(__file__).resolve().parents[2]
TINY = {
    "game": "scum",
    "num_players": 4,
    "sampler": "batched",
    "num_env_runners": 2,
    "num_envs_per_env_runner": 32,
    "num_cpus_per_env_runner": 0.5,
    "train_batch_size": 512,
    "minibatch_size": 256,
    "update_epochs": 1,
    "hidden": 32,
    "layers": 1,
    "eval_deals": 0,
    "snapshot_every": 512,
    "env_runner_restore_timeout_s": 30.0,
}


@pytest.fixture()
def ray_local() -> Any:
    """A small local Ray instance for one test."""
    torch.set_num_threads(1)
    if ray.is_initialized():
        ray.shutdown()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _runner_pids(algo: Any) -> list[int]:
    return list(
        algo.env_runner_group.foreach_env_runner(lambda r: os.getpid(), local_env_runner=False)
    )


@pytest.mark.slow  # 25 s: CI runs it in the slow job
def test_killed_env_runner_is_restarted_and_the_run_goes_on(ray_local: Any, tmp_path: Path) -> None:
    """SIGKILL one runner during an iteration: training continues, the runner comes back."""
    tr = trainer.Trainer(load_config(None, run_dir=str(tmp_path), **TINY), log=lambda _: None)
    algo = tr.algo
    sync_league(algo, tr.league, tr.snapshot())
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
        tables = algo.env_runner_group.foreach_env_runner(
            lambda r: [m.name for m in runner_envs(r)[0].table], local_env_runner=False
        )
        for names in tables:
            assert any(n.startswith("snapshot@") for n in names)
        assert algo.iteration >= 3
    finally:
        tr.close()


def _trainer_cmd(ckpt: Path, iterations: int, *extra: str) -> list[str]:
    sets = [f"{k}={v}" for k, v in TINY.items() if k != "num_env_runners"]
    cmd = [sys.executable, "-m", "cardsuite.train.rllib.trainer", "--num-cpus", "2",
           "--num-env-runners", "1", "--iterations", str(iterations),
           "--run-dir", str(ckpt), "--set", "checkpoint_every=1000000"]  # fmt: skip
    for item in sets:
        cmd += ["--set", item]
    return cmd + list(extra)


@pytest.mark.slow
def test_ctrl_c_checkpoints_and_resume_continues(tmp_path: Path) -> None:
    """SIGINT to the run's process group mid-run: a checkpoint, exit 130; --resume goes on."""
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
    assert proc.returncode == 130, out
    assert "interrupted at step" in out and "--resume" in out, out
    state = json.loads((ckpt / "checkpoint" / "state.json").read_text())
    stopped = state["iteration"]
    assert stopped >= 2 and state["step"] >= stopped * 512
    # Resume in this process: the run goes on from the saved iteration.
    logs: list[str] = []
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        config = load_config(None, resume=str(ckpt), total_steps=(stopped + 1) * 512,
                             **{**TINY, "num_env_runners": 1})  # fmt: skip
        result = trainer.train(config, log=logs.append)
    finally:
        ray.shutdown()
    text = "\n".join(logs)
    assert f"from iteration {stopped}" in text
    assert f"iter {stopped + 1}/{stopped + 1}" in text
    assert result["step"] >= (stopped + 1) * 512
