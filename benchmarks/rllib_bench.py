"""RLlib throughput: batched env runners (1 and 2) and the per-game path, side by side with the
single-machine batched trainer (``cardsuite ppo``) in one run.

Scum 4p; a *step* is one learner decision, so all rows compare. Per path: ``train
steps/s`` (whole ``Algorithm.train()`` iterations, with RLlib's seconds per phase) and
``sample steps/s`` (the env runners alone). Paths: ``rllib_batched x1`` and ``x2`` (the
preset ``configs/train/rllib_scum_batched.yaml``), ``rllib_per_game x2`` and
``batched_ppo``. The JSON records the load average around each path::

    python -m benchmarks.rllib_bench --seconds 10 --out rllib_bench.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

PRESET = Path(__file__).resolve().parents[1] / "configs" / "train" / "rllib_scum_batched.yaml"
PLAN = {"x1": ("batched", 1), "x2": ("batched", 2), "per_game": ("per_game", 2)}
PATHS = (*PLAN, "ppo")
NAMES = {"x1": "rllib_batched x1", "x2": "rllib_batched x2", "per_game": "rllib_per_game x2"}


def _config(key: str, envs: int, per_runner: int, run_dir: str) -> Any:
    from cardsuite.train.rllib.config import load_config

    sampler, runners = PLAN[key]
    batch = per_runner * runners
    common = {"num_env_runners": runners, "num_cpus_per_env_runner": 1, "eval_deals": 0,
              "train_batch_size": batch, "minibatch_size": min(batch, 4096), "update_epochs": 1,
              "snapshot_every": 0, "checkpoint_every": 0, "threads": 1, "run_dir": run_dir}  # fmt: skip
    if sampler == "batched":
        return load_config(str(PRESET), num_envs_per_env_runner=envs, **common)
    return load_config(None, game="scum", num_players=4, options={"reward": "centered"},
                       num_envs_per_env_runner=4, hidden=256, layers=2, **common)  # fmt: skip


def _sample_steps(runner: Any, steps: int) -> int:
    """On a runner: sample ``steps`` learner decisions; the steps taken."""
    out = runner.sample(num_timesteps=steps)
    return len(out["actions"]) if isinstance(out, dict) else int(sum(len(e) for e in out))


def _phases(result: dict[str, Any]) -> dict[str, float]:
    timers = result.get("timers", {})
    return {"sample": float(timers.get("env_runner_sampling_timer", 0.0)),
            "learn": float(timers.get("learner_update_timer", 0.0)),
            "sync": float(timers.get("synch_weights", 0.0))}  # fmt: skip


def _trained(result: dict[str, Any], batched: bool) -> int:
    """Steps trained in one iteration: the batch's rows (batched; whole minibatches), else
    the env steps sampled (RLlib's learner counts one padding step more per episode)."""
    if batched:
        return int(result["learners"]["__all_modules__"]["num_module_steps_trained"])
    return int(result["env_runners"]["num_env_steps_sampled"])


def bench_rllib(
    key: str, envs: int, per_runner: int, seconds: float, iterations: int
) -> dict[str, Any]:
    """Whole-iteration (with phases) and sampling throughput of one RLlib path."""
    import ray

    from cardsuite.train.rllib.trainer import Trainer

    share = per_runner if PLAN[key][0] == "batched" else 1024
    load_before = os.getloadavg()[0]
    ray.init(
        address="local", num_cpus=PLAN[key][1] + 1, include_dashboard=False, log_to_driver=False
    )
    try:
        with tempfile.TemporaryDirectory() as d:
            tr = Trainer(_config(key, envs, share, str(Path(d) / "run")), log=lambda _: None)
            try:
                if PLAN[key][0] == "batched":
                    tr.add_snapshot()  # the self-play games' opponent, as a run starts
                tr.algo.train()  # warm-up: first calls, allocations
                steps, took, phases = 0, 0.0, {"sample": 0.0, "learn": 0.0, "sync": 0.0}
                for _ in range(iterations):
                    a = time.perf_counter()
                    result = tr.algo.train()
                    took += time.perf_counter() - a
                    steps += _trained(result, PLAN[key][0] == "batched")
                    for k, v in _phases(result).items():
                        phases[k] += v / iterations
                group = tr.algo.env_runner_group
                s_steps, s_took, rounds = 0, 0.0, 0
                t0 = time.perf_counter()
                while time.perf_counter() - t0 < seconds or rounds < 2:
                    a = time.perf_counter()
                    out = group.foreach_env_runner(lambda r: _sample_steps(r, share),
                                                   local_env_runner=False)  # fmt: skip
                    s_took += time.perf_counter() - a
                    s_steps, rounds = s_steps + sum(out), rounds + 1
            finally:
                tr.close()
    finally:
        ray.shutdown()
    return {"path": NAMES[key], "runners": PLAN[key][1], "envs_per_runner": envs if share == per_runner else 4,
            "sample_steps_per_s": s_steps / s_took, "train_batch": share * PLAN[key][1],
            "train_iterations": iterations, "train_steps_per_s": steps / took,
            "phase_seconds": {k: round(v, 4) for k, v in phases.items()},
            "load_average": [load_before, os.getloadavg()[0]]}  # fmt: skip


def bench_batched_trainer(seconds: float, games: int) -> dict[str, Any]:
    """The single-machine batched PPO trainer (``benchmarks.train_bench``), league on."""
    from benchmarks.train_bench import bench_batched_ppo

    load_before = os.getloadavg()[0]
    r = bench_batched_ppo(seconds, games, 32, "cpu", 1, 0.5)
    return {"path": "batched_ppo (cardsuite ppo)", "runners": 0, "envs_per_runner": games,
            "sample_steps_per_s": r["rollout_steps_per_s"],
            "train_steps_per_s": r["trained_steps_per_s"],
            "load_average": [load_before, os.getloadavg()[0]]}  # fmt: skip


def table(rows: list[dict[str, Any]]) -> str:
    """The Markdown table of the rows and the scaling per added runner."""
    out = ["| path | runners x games | sample steps/s | train steps/s | "
           "phases per iteration (s) | load |", "|---|---|---|---|---|---|"]  # fmt: skip
    for r in rows:
        ph = r.get("phase_seconds") or {}
        phases = " / ".join(f"{k} {v:.2f}" for k, v in ph.items()) or "-"
        load = r.get("load_average")
        out.append(f"| {r['path']} | {r['runners']} x {r['envs_per_runner']} | "
                   f"{r['sample_steps_per_s']:,.0f} | {r['train_steps_per_s']:,.0f} | {phases} | "
                   f"{'-' if not load else f'{load[0]:.1f}-{load[1]:.1f}'} |")  # fmt: skip
    by = {r["path"]: r for r in rows}
    one, two = by.get("rllib_batched x1"), by.get("rllib_batched x2")
    if one and two:
        for key in ("sample_steps_per_s", "train_steps_per_s"):
            ratio = two[key] / one[key]
            out.append(f"\n{key}: 2 runners / 1 runner = {ratio:.2f}x "
                       f"({(ratio - 1) * 100:+.0f}% for the added runner)")  # fmt: skip
    per_game = by.get("rllib_per_game x2")
    if two and per_game:
        ratio = two["sample_steps_per_s"] / per_game["sample_steps_per_s"]
        out.append(f"batched / per-game RLlib sampling, 2 runners: {ratio:.1f}x")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Run every path, print the table, optionally save JSON."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=10.0, help="sampling time per path")
    p.add_argument("--iterations", type=int, default=4, help="train() iterations per path")
    p.add_argument("--envs", type=int, default=1024, help="batched games per env runner")
    p.add_argument("--batch-per-runner", type=int, default=8192,
                   help="train batch share (and sampling round) of each runner")  # fmt: skip
    p.add_argument("--skip", default="", help=f"comma-separated paths to skip: {','.join(PATHS)}")
    p.add_argument("--out", help="write the rows as JSON here")
    a = p.parse_args(argv)
    torch.set_num_threads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    skip = set(filter(None, a.skip.split(",")))
    if skip - set(PATHS):
        p.error(f"unknown --skip path(s) {sorted(skip - set(PATHS))}; valid: {','.join(PATHS)}")
    rows: list[dict[str, Any]] = []
    for key in PATHS:
        if key in skip:
            continue
        if key == "ppo":
            rows.append(bench_batched_trainer(a.seconds, a.envs))
        else:
            rows.append(bench_rllib(key, a.envs, a.batch_per_runner, a.seconds, a.iterations))
        print(json.dumps(rows[-1]), flush=True)
    print(table(rows))
    if a.out:
        meta = {"machine": platform.platform(), "cpus": os.cpu_count(),
                "load_average": os.getloadavg()}  # fmt: skip
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
