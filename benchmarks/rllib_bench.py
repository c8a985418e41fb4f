"""RLlib throughput: batched env runners (1 and 2), the per-game RLlib path, the batched trainer.

Scum, 4 players, in one run. A *step* is one learner decision (what RLlib
counts as an env step of a single-seat env, and what the batched trainer
counts), so all rows compare. Measured per path:

* ``sample steps/s``: the env runners only. Every remote runner samples
  ``--rollout`` vector steps in parallel (``EnvRunner.sample``, RLlib's own
  loop: connectors, module forward pass, episodes), over the wall time of the
  parallel call; repeated for about ``--seconds``.
* ``train steps/s``: whole ``Algorithm.train()`` iterations (sampling, then
  the PPO update in the driver), env steps over wall time.

Paths: ``rllib_batched x1`` and ``x2`` (``sampler: batched``, ``--envs``
games of the batched engine per runner, league of heuristic + random +
snapshots inside the batch, the array runner ``BatchedEnvRunner``),
``rllib_batched x1 (rllib loop)`` (the same env under RLlib's own
``SingleAgentEnvRunner`` loop), ``rllib_per_game x1`` (the AEC env through
RLlib's PettingZoo wrapper, 4 envs per runner), and ``batched_ppo``
(:mod:`cardsuite.train.ppo`, the single-machine trainer, via
``benchmarks.train_bench``). The scaling line is the 2-runner rate over the
1-runner rate. Run::

    python -m benchmarks.rllib_bench --seconds 10 --out rllib_bench.json

On a shared machine the figures are lower bounds; say so when quoting them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Sequence
from typing import Any

import torch

OPTIONS = {"num_players": 4, "reward": "centered"}


def _run(sampler: str, runners: int, envs: int, batch: int, array: bool) -> Any:
    from cardsuite.train.rllib.config import load_run

    return load_run(
        None, game="scum", options=OPTIONS, sampler=sampler, array_runner=array,
        num_env_runners=runners,
        num_envs_per_env_runner=envs, num_cpus_per_env_runner=1, train_batch_size=batch,
        minibatch_size=min(batch, 4096), num_epochs=1, hidden_size=256, hidden_layers=2,
        eval_episodes=0, league_every=0, checkpoint_dir="/tmp/rllib_bench",
    )  # fmt: skip


def _sample_steps(runner: Any, vector_steps: int) -> int:
    """On a runner: sample ``vector_steps`` steps of every env; the env steps taken."""
    n = vector_steps * int(runner.num_envs)
    episodes = runner.sample(num_timesteps=n)
    return int(sum(len(e) for e in episodes))


def bench_rllib(
    sampler: str,
    runners: int,
    envs: int,
    rollout: int,
    seconds: float,
    iterations: int,
    array: bool = True,
) -> dict[str, Any]:
    """Sampling and whole-iteration throughput of one RLlib configuration."""
    import ray

    from cardsuite.train.rllib.batched import build_batched
    from cardsuite.train.rllib.trainer import build_config

    batch = max(1024, runners * envs * rollout)
    run = _run(sampler, runners, envs, batch, array)
    ray.init(num_cpus=runners + 1, include_dashboard=False, log_to_driver=False)
    try:
        algo = build_batched(run)[0] if sampler == "batched" else build_config(run).build_algo()
        try:
            algo.train()  # warm-up: first calls, allocations
            # Whole iterations first: a runner's metrics would also count the
            # steps of the sampling rounds below.
            train_steps, train_took = 0, 0.0
            for _ in range(iterations):
                a = time.perf_counter()
                result = algo.train()
                train_took += time.perf_counter() - a
                train_steps += int(result["env_runners"]["num_env_steps_sampled"])
            group = algo.env_runner_group
            steps, took, rounds = 0, 0.0, 0
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < seconds or rounds < 2:
                a = time.perf_counter()
                out = group.foreach_env_runner(
                    lambda r: _sample_steps(r, rollout), local_env_runner=False
                )
                took += time.perf_counter() - a
                steps += sum(out)
                rounds += 1
        finally:
            algo.stop()
    finally:
        ray.shutdown()
    name = f"rllib_{sampler} x{runners}" + (
        "" if array or sampler != "batched" else " (rllib loop)"
    )
    return {"path": name, "runners": runners, "envs_per_runner": envs,
            "sample_steps": steps, "sample_seconds": took, "sample_steps_per_s": steps / took,
            "train_batch": batch, "train_iterations": iterations,
            "train_steps_per_s": train_steps / train_took}  # fmt: skip


def bench_batched_trainer(seconds: float, games: int) -> dict[str, Any]:
    """The single-machine batched PPO trainer (``benchmarks.train_bench``), league on."""
    from benchmarks.train_bench import bench_batched_ppo

    r = bench_batched_ppo(seconds, games, 32, "cpu", 1, 0.5)
    return {"path": "batched_ppo (train/ppo.py)", "runners": 0, "envs_per_runner": games,
            "sample_steps_per_s": r["rollout_steps_per_s"],
            "train_steps_per_s": r["trained_steps_per_s"]}  # fmt: skip


def table(rows: list[dict[str, Any]]) -> str:
    """The Markdown table of the rows and the scaling per added runner."""
    out = ["| path | runners x games | sample steps/s | train steps/s |", "|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['path']} | {r['runners']} x {r['envs_per_runner']} | "
                   f"{r['sample_steps_per_s']:,.0f} | {r['train_steps_per_s']:,.0f} |")  # fmt: skip
    by = {r["path"]: r for r in rows}
    one, two = by.get("rllib_batched x1"), by.get("rllib_batched x2")
    if one and two:
        for key in ("sample_steps_per_s", "train_steps_per_s"):
            ratio = two[key] / one[key]
            out.append(f"\n{key}: 2 runners / 1 runner = {ratio:.2f}x "
                       f"(+{(ratio - 1) * 100:.0f}% for the added runner)")  # fmt: skip
    per_game = by.get("rllib_per_game x1")
    if one and per_game:
        ratio = one["sample_steps_per_s"] / per_game["sample_steps_per_s"]
        out.append(f"batched / per-game RLlib sampling, 1 runner: {ratio:.1f}x")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Run every path, print the table, optionally save JSON."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=10.0, help="sampling time per path")
    p.add_argument("--iterations", type=int, default=2, help="train() iterations per path")
    p.add_argument("--envs", type=int, default=512, help="batched games per env runner")
    p.add_argument("--rollout", type=int, default=16, help="vector steps per runner per round")
    p.add_argument(
        "--skip", default="", help="comma-separated paths to skip: x1,x2,loop,per_game,ppo"
    )
    p.add_argument("--out", help="write the rows as JSON here")
    a = p.parse_args(argv)
    torch.set_num_threads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    skip = set(filter(None, a.skip.split(",")))
    rows: list[dict[str, Any]] = []
    if "x1" not in skip:
        rows.append(bench_rllib("batched", 1, a.envs, a.rollout, a.seconds, a.iterations))
    if "x2" not in skip:
        rows.append(bench_rllib("batched", 2, a.envs, a.rollout, a.seconds, a.iterations))
    if "loop" not in skip:
        rows.append(bench_rllib("batched", 1, a.envs, a.rollout, a.seconds, a.iterations, False))
    if "per_game" not in skip:
        rows.append(bench_rllib("per_game", 1, 4, 64, a.seconds, a.iterations))
    if "ppo" not in skip:
        rows.append(bench_batched_trainer(a.seconds, 1024))
    for r in rows:
        print(json.dumps(r))
    print(table(rows))
    if a.out:
        meta = {"machine": platform.platform(), "cpus": os.cpu_count(),
                "load_average": os.getloadavg()}  # fmt: skip
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
