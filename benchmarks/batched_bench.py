"""Throughput of the batched Scum engine against N, beside the per-game env and OpenSpiel.

One run measures, for each backend and each batch size N, agent steps per
second of random legal play *with observation and mask built every step*
(one batched step = N agent decisions), split into engine time and the time
of the (on-device) random policy; the state and peak memory per game; then
the per-game ``scum_v0`` env and OpenSpiel ``dou_dizhu`` in the same process
(:mod:`benchmarks.references`).

CPU (both backends, N = 1 .. 65,536)::

    python -m benchmarks.batched_bench --out bench_cpu.json

GPU (torch on CUDA, N = 1 .. 2**24, stopping at the first out-of-memory; about 3 minutes)::

    python -m benchmarks.batched_bench --device cuda --out bench_gpu.json

``--profile N`` prints where the time of a numpy step goes at batch size N.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import platform
import pstats
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from scum_env.batched.engine import BatchedScum
from scum_env.batched.policies import RandomPolicy
from scum_env.batched.sharded import ShardedScum

CPU_SIZES = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536]
GPU_SIZES = [4**i for i in range(12)] + [2**23, 2**24]  # 1 .. 16,777,216


def _sync(device: str | None) -> None:
    if device is not None and device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def bench_batched(
    n: int,
    backend: str,
    device: str | None,
    seconds: float,
    config: dict[str, Any],
    shards: int = 1,
) -> dict[str, Any]:
    """Random legal play of ``n`` games for about ``seconds``; rates and memory.

    ``shards > 1`` (numpy only) steps the batch with :class:`ShardedScum` threads.
    """
    peak_base = 0
    if device is not None and device.startswith("cuda"):
        import torch

        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        peak_base = torch.cuda.memory_allocated()
    eng: Any = (
        ShardedScum(n, threads=shards, **config)
        if shards > 1
        else BatchedScum(n, backend=backend, device=device, **config)
    )
    policy = RandomPolicy(0)
    _, mask, _ = eng.reset(0)
    for _ in range(3):  # warm up (allocations, kernels)
        mask = eng.step(policy(None, mask)).mask
    _sync(device)
    engine_s = policy_s = engine_cpu = 0.0
    steps = 0
    start = time.perf_counter()
    while steps < 3 or time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        actions = policy(None, mask)
        _sync(device)
        t1 = time.perf_counter()
        c1 = time.process_time()
        mask = eng.step(actions).mask
        _sync(device)
        t2 = time.perf_counter()
        engine_cpu += time.process_time() - c1
        policy_s += t1 - t0
        engine_s += t2 - t1
        steps += 1
    if shards > 1:
        eng.close()
    row: dict[str, Any] = {
        "backend": backend if shards == 1 else f"{backend}x{shards}",
        "device": device or "cpu",
        "n": n,
        "batched_steps": steps,
        "steps_per_s": n * steps / (engine_s + policy_s),
        "engine_steps_per_s": n * steps / engine_s,
        "step_ms": 1000 * engine_s / steps,
        # engine steps per second of this process's CPU time: what a core gives when it is
        # not shared (on a loaded box the wall-clock rates above undercount)
        "engine_steps_per_cpu_s": n * steps / max(engine_cpu, 1e-9),
        "state_bytes_per_game": eng.bytes_per_game(),
    }
    if device is not None and device.startswith("cuda"):
        import torch

        row["peak_bytes_per_game"] = (torch.cuda.max_memory_allocated() - peak_base) / n
    return row


def bench_per_game(seconds: float, config: dict[str, Any]) -> float:
    """Agent steps per second of the per-game ``scum_v0`` raw env, random legal play."""
    from scum_env import scum_v0

    env = scum_v0.raw_env(**config)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(256):
            agent = env.agent_selection
            if env.terminations[agent]:
                env.reset()
                continue
            mask = env.observe(agent)["action_mask"]
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps / (time.perf_counter() - start)


def profile_numpy(n: int, config: dict[str, Any], steps: int = 20) -> str:
    """cProfile of ``steps`` numpy steps at batch size ``n``: the top functions by own time."""
    eng = BatchedScum(n, **config)
    policy = RandomPolicy(0)
    _, mask, _ = eng.reset(0)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(steps):
        mask = eng.step(policy(None, mask)).mask
    prof.disable()
    import io

    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(18)
    return buf.getvalue()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print (and optionally save) the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", help="cpu (numpy and torch) or cuda (torch)")
    parser.add_argument("--sizes", type=int, nargs="*", help="batch sizes (default by device)")
    parser.add_argument("--seconds", type=float, default=1.0, help="budget per measurement")
    parser.add_argument("--players", type=int, default=4, help="num_players of the config")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch CPU threads (1: no spin-waiting on a shared box)",
    )
    parser.add_argument("--shards", type=int, default=0, help="also run numpy with T threads")
    parser.add_argument("--no-references", action="store_true", help="skip per-game/OpenSpiel")
    parser.add_argument("--profile", type=int, default=0, help="profile numpy at this N")
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args(argv)
    config = {"num_players": args.players}
    if args.profile:
        print(profile_numpy(args.profile, config))
        return 0
    gpu = args.device.startswith("cuda")
    runs: list[tuple[str, str | None, int]] = (
        [("torch", args.device, 1)] if gpu else [("numpy", None, 1), ("torch", "cpu", 1)]
    )
    if args.shards > 1 and not gpu:
        runs.insert(1, ("numpy", None, args.shards))
    try:
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:
        runs = [r for r in runs if r[0] != "torch"]
    sizes = args.sizes or (GPU_SIZES if gpu else CPU_SIZES)
    results: dict[str, Any] = {
        "config": config,
        "machine": {"platform": platform.platform(), "processor": platform.processor()},
        "batched": [],
        "references": {},
    }
    if gpu:
        import torch

        if not torch.cuda.is_available():
            print(f"--device {args.device}: this torch build or machine has no CUDA device")
            return 2
        results["machine"]["gpu"] = torch.cuda.get_device_name(0)
    print(f"{'backend':8} {'device':6} {'N':>9} {'steps/s':>14} {'engine steps/s':>15} "
          f"{'per CPU-s':>12} {'ms/step':>9} {'B/game':>8}")  # fmt: skip
    for backend, device, shards in runs:
        for n in sizes:
            try:
                row = bench_batched(n, backend, device, args.seconds, config, shards)
            except (RuntimeError, MemoryError) as err:  # CUDA out of memory ends the curve
                print(f"{backend:8} {device or 'cpu':6} {n:>9} stopped: {type(err).__name__}")
                results["batched"].append({"backend": backend, "n": n, "error": str(err)[:200]})
                break
            results["batched"].append(row)
            peak = row.get("peak_bytes_per_game", row["state_bytes_per_game"])
            print(f"{row['backend']:8} {row['device']:6} {n:>9} {row['steps_per_s']:>14,.0f} "
                  f"{row['engine_steps_per_s']:>15,.0f} {row['engine_steps_per_cpu_s']:>12,.0f} "
                  f"{row['step_ms']:>9.2f} {peak:>8.0f}")  # fmt: skip
    if not args.no_references:
        per_game = bench_per_game(2.0, config)
        results["references"]["scum_v0 raw_env (per game)"] = per_game
        print(f"scum_v0 raw_env, per game: {per_game:,.0f} steps/s")
        from benchmarks.references import measure

        ref = measure("openspiel/dou_dizhu", 2.0)
        results["references"]["openspiel/dou_dizhu"] = ref.steps_per_sec
        rate = f"{ref.steps_per_sec:,.0f} steps/s" if ref.steps_per_sec else ref.status
        print(f"openspiel/dou_dizhu ({ref.version}): {rate}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(results, fh, indent=2)
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
