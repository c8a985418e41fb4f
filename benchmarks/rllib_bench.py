"""RLlib throughput: batched env runners (1 and 2), the per-game RLlib path, the batched trainer.

Scum, 4 players, in one run. A *step* is one learner decision (what RLlib
counts as an env step of a single-seat env, and what the batched trainer
counts), so all rows compare. Measured per path:

* ``train steps/s``: whole ``Algorithm.train()`` iterations (sampling, the
  PPO update, weight sync), env steps *trained* over wall time, with the
  mean seconds of each phase per iteration (``BatchedPPO``'s own
  ``phase_seconds``; RLlib's smoothed timers for the other paths);
* ``sample steps/s``: the env runners only. Every remote runner samples its
  share (``--batch-per-runner`` steps) in parallel (``sample_arrays`` for the
  array paths, RLlib's ``EnvRunner.sample`` otherwise), over the wall time of
  the parallel call; repeated for about ``--seconds``.

Paths: ``rllib_batched x1`` and ``x2`` (the preset
``configs/train/rllib_scum_batched.yaml``: ``--envs`` games of the batched
engine per runner, league of heuristic + random + snapshots inside the
batch, the tick sampler, array train batches, ``BatchedPPO``), and for
comparison with one runner: ``vector steps`` (array batches, one decision
per game per vector step), ``episodes`` (the array runner's
``SingleAgentEpisode`` chunks through RLlib's PPO and learner connector),
``rllib loop`` (RLlib's own ``SingleAgentEnvRunner`` loop over the same
env), ``x2 overlap`` (``overlap_sampling``), ``x2 all seats``
(``self_play_all_seats``), ``rllib_per_game x1`` (the AEC
env through RLlib's PettingZoo wrapper, 4 envs per runner), and
``batched_ppo`` (`cardsuite.train.ppo.trainer`, ``cardsuite ppo``, the
single-machine trainer, via ``benchmarks.train_bench``). Every RLlib path
uses the preset's PPO settings (1 epoch, minibatches of 4,096, MLP
256x256). The train batch is ``--batch-per-runner`` x runners, so an added
runner adds its share. The scaling lines are the 2-runner rates over the
1-runner rates. Run::

    python -m benchmarks.rllib_bench --seconds 10 --out rllib_bench.json

On a shared machine the figures are lower bounds; the JSON records the load
average before and after each path.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

OPTIONS = {"num_players": 4, "reward": "centered"}
PRESET = Path(__file__).resolve().parents[1] / "configs" / "train" / "rllib_scum_batched.yaml"
VARIANTS: dict[str, dict[str, Any]] = {
    "": {},
    " (vector steps)": {"tick_sampler": False},
    " (episodes)": {"array_batches": False},
    " (rllib loop)": {"array_runner": False},
    " overlap": {"overlap_sampling": True},
    " all seats": {"self_play_all_seats": True},
}
"""Path-name suffix -> overrides of the batched preset."""


def _run(sampler: str, runners: int, envs: int, batch: int, extra: dict[str, Any]) -> Any:
    from cardsuite.train.rllib.config import load_run

    common = {"num_env_runners": runners, "num_envs_per_env_runner": envs,
              "num_cpus_per_env_runner": 1, "train_batch_size": batch,
              "minibatch_size": min(batch, 4096), "num_epochs": 1, "eval_episodes": 0,
              "league_every": 0, "checkpoint_dir": "/tmp/rllib_bench", "torch_threads": 1}  # fmt: skip
    if sampler == "batched":
        return load_run(PRESET, **common, **extra)
    return load_run(None, game="scum", options=OPTIONS, sampler=sampler, hidden_size=256,
                    hidden_layers=2, **common)  # fmt: skip


def _arrays(run: Any) -> bool:
    c = run.config
    return bool(c.sampler == "batched" and c.array_runner and c.array_batches)


def _sample_steps(runner: Any, steps: int, arrays: bool) -> int:
    """On a runner: sample ``steps`` learner decisions; the steps taken."""
    if arrays:
        return len(runner.sample_arrays(steps)["actions"])
    return int(sum(len(e) for e in runner.sample(num_timesteps=steps)))


def _phases(algo: Any, result: dict[str, Any]) -> dict[str, float]:
    own = getattr(algo, "phase_seconds", None)
    if own:
        return dict(own)
    timers = result.get("timers", {})
    return {"sample": float(timers.get("env_runner_sampling_timer", 0.0)),
            "learn": float(timers.get("learner_update_timer", 0.0)),
            "sync": float(timers.get("synch_weights", 0.0))}  # fmt: skip


def bench_rllib(
    sampler: str,
    runners: int,
    envs: int,
    per_runner: int,
    seconds: float,
    iterations: int,
    variant: str = "",
) -> dict[str, Any]:
    """Whole-iteration (with phases) and sampling throughput of one RLlib configuration."""
    import ray

    from cardsuite.train.rllib.league import make_league, sync_league
    from cardsuite.train.rllib.trainer import build

    batch = per_runner * runners
    run = _run(sampler, runners, envs, batch, VARIANTS[variant] if sampler == "batched" else {})
    arrays = _arrays(run)
    load_before = os.getloadavg()[0]
    ray.init(num_cpus=runners + 1, include_dashboard=False, log_to_driver=False)
    try:
        league = make_league(run)
        algo = build(run, league)
        if sampler == "batched":
            sync_league(algo, run, league, 0)  # the self-play games' opponent
        try:
            algo.train()  # warm-up: first calls, allocations
            # Whole iterations first: a runner's metrics would also count the
            # steps of the sampling rounds below.
            train_steps, train_took = 0, 0.0
            phases: dict[str, float] = {}
            for _ in range(iterations):
                a = time.perf_counter()
                result = algo.train()
                train_took += time.perf_counter() - a
                trained = getattr(algo, "trained_rows", None)
                train_steps += int(
                    trained if trained is not None
                    else result["env_runners"]["num_env_steps_sampled"]
                )  # fmt: skip
                for k, v in _phases(algo, result).items():
                    phases[k] = phases.get(k, 0.0) + v / iterations
            group = algo.env_runner_group
            steps, took, rounds = 0, 0.0, 0
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < seconds or rounds < 2:
                a = time.perf_counter()
                out = group.foreach_env_runner(
                    lambda r: _sample_steps(r, per_runner, arrays), local_env_runner=False
                )
                took += time.perf_counter() - a
                steps += sum(out)
                rounds += 1
        finally:
            algo.stop()
    finally:
        ray.shutdown()
    name = f"rllib_{sampler} x{runners}" + (variant if sampler == "batched" else "")
    return {"path": name, "runners": runners, "envs_per_runner": envs,
            "sample_steps": steps, "sample_seconds": took, "sample_steps_per_s": steps / took,
            "train_batch": batch, "train_iterations": iterations,
            "train_steps_per_s": train_steps / train_took,
            "phase_seconds": {k: round(v, 4) for k, v in phases.items()},
            "load_average": [load_before, os.getloadavg()[0]]}  # fmt: skip


def bench_batched_trainer(seconds: float, games: int) -> dict[str, Any]:
    """The single-machine batched PPO trainer (``benchmarks.train_bench``), league on."""
    from benchmarks.train_bench import bench_batched_ppo

    load_before = os.getloadavg()[0]
    r = bench_batched_ppo(seconds, games, 32, "cpu", 1, 0.5)
    return {"path": "batched_ppo (cardsuite ppo, train/ppo/trainer.py)", "runners": 0,
            "envs_per_runner": games, "sample_steps_per_s": r["rollout_steps_per_s"],
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
    per_game = by.get("rllib_per_game x1")
    if one and per_game:
        ratio = one["sample_steps_per_s"] / per_game["sample_steps_per_s"]
        out.append(f"batched / per-game RLlib sampling, 1 runner: {ratio:.1f}x")
    return "\n".join(out)


PATHS = ("x1", "x2", "vector", "episodes", "loop", "overlap", "allseats", "per_game", "ppo")


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
    unknown = skip - set(PATHS)
    if unknown:
        p.error(f"unknown --skip path(s) {sorted(unknown)}; valid: {','.join(PATHS)}")
    per, it, sec = a.batch_per_runner, a.iterations, a.seconds
    plan = [("x1", "batched", 1, a.envs, ""), ("x2", "batched", 2, a.envs, ""),
            ("vector", "batched", 1, a.envs, " (vector steps)"),
            ("episodes", "batched", 1, a.envs, " (episodes)"),
            ("loop", "batched", 1, a.envs, " (rllib loop)"),
            ("overlap", "batched", 2, a.envs, " overlap"),
            ("allseats", "batched", 2, a.envs, " all seats"), ("per_game", "per_game", 1, 4, "")]  # fmt: skip
    rows: list[dict[str, Any]] = []
    for key, sampler, runners, envs, variant in plan:
        if key not in skip:
            share = per if sampler == "batched" else 1024
            rows.append(bench_rllib(sampler, runners, envs, share, sec, it, variant))
            print(json.dumps(rows[-1]), flush=True)
    if "ppo" not in skip:
        rows.append(bench_batched_trainer(a.seconds, 1024))
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
