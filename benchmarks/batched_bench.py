"""Throughput of the batched engines (Scum, Scum Party, Scandal) against N, beside the per-game envs.

Per backend and batch size N: agent steps per second of random legal play (engine and
policy split), memory per game, then the per-game ``env()`` and OpenSpiel ``dou_dizhu``;
``--profile N`` shows where a numpy step's time goes::

    python -m benchmarks.batched_bench --game party --players 8 50 --shards 2 --out party.json
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import platform
import pstats
import time
import tracemalloc
from collections.abc import Sequence
from typing import Any

from benchmarks.bench import bench_env
from benchmarks.references import measure
from cardsuite.batched.policies import RandomPolicy
from cardsuite.batched.sharded import ShardedEngine
from cardsuite.games import get_game

CPU_SIZES = [1, 16, 256, 1024, 4096, 16384, 65536]
GPU_SIZES = [4**i for i in range(12)]  # 1 .. 4,194,304

#: ``--game`` -> (the game's registry name, default player counts to measure).
ENGINES: dict[str, tuple[str, tuple[int, ...]]] = {
    "scum": ("scum", (4,)),
    "party": ("scum_party", (8, 50)),
    "scandal": ("scandal", (2,)),
}


def make_engine(
    game: str, n: int, backend: str, device: str | None, config: dict[str, Any], shards: int = 1
) -> Any:
    """``n`` games of ``game``: one engine, or ``shards`` numpy shards on threads."""
    cls = get_game(ENGINES[game][0]).batched_class()
    if shards > 1:

        def factory(size: int, offset: int, buffers: Any) -> Any:
            return cls(size, game_offset=offset, buffers=buffers, **config)

        return ShardedEngine(factory, n, threads=shards)
    return cls(n, backend=backend, device=device, **config)


def _sync(device: str | None) -> None:
    if device is not None and device.startswith("cuda"):
        import torch  # lazy here and below: torch is optional (numpy runs without it)

        torch.cuda.synchronize()


def bench_batched(
    game: str,
    n: int,
    backend: str,
    device: str | None,
    seconds: float,
    config: dict[str, Any],
    shards: int = 1,
) -> dict[str, Any]:
    """Random legal play of ``n`` games for about ``seconds``; rates and memory."""
    cuda = device is not None and device.startswith("cuda")
    peak_base = 0
    if cuda:
        import torch

        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        peak_base = torch.cuda.memory_allocated()
    eng = make_engine(game, n, backend, device, config, shards)
    policy = RandomPolicy(0)
    _, mask, _ = eng.reset(0)
    for _ in range(3):  # warm up (allocations, kernels)
        mask = eng.step(policy(None, mask)).mask
    _sync(device)
    engine_s = policy_s = engine_cpu = total_cpu = 0.0
    steps = 0
    start = time.perf_counter()
    while steps < 3 or time.perf_counter() - start < seconds:
        t0, c0 = time.perf_counter(), time.process_time()
        actions = policy(None, mask)
        _sync(device)
        t1, c1 = time.perf_counter(), time.process_time()
        mask = eng.step(actions).mask
        _sync(device)
        t2, c2 = time.perf_counter(), time.process_time()
        policy_s += t1 - t0
        engine_s += t2 - t1
        engine_cpu += c2 - c1
        total_cpu += c2 - c0
        steps += 1
    row: dict[str, Any] = {
        "game": game,
        "config": config,
        "backend": backend if shards == 1 else f"{backend}x{shards}",
        "device": device or "cpu",
        "n": n,
        "batched_steps": steps,
        "steps_per_s": n * steps / (engine_s + policy_s),
        "engine_steps_per_s": n * steps / engine_s,
        "step_ms": 1000 * engine_s / steps,
        "steps_per_cpu_s": n * steps / max(total_cpu, 1e-9),
        "engine_steps_per_cpu_s": n * steps / max(engine_cpu, 1e-9),
        "state_bytes_per_game": eng.bytes_per_game(),
    }
    if cuda:
        import torch

        row["peak_bytes_per_game"] = (torch.cuda.max_memory_allocated() - peak_base) / n
    elif backend == "numpy" and shards == 1 and n >= 1024:
        tracemalloc.start()  # numpy reports its buffers: the temporaries of one step
        eng.step(policy(None, mask))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        row["step_temp_bytes_per_game"] = peak / n
    if shards > 1:
        eng.close()
    return row


def bench_per_game(game: str, seconds: float, config: dict[str, Any]) -> float:
    """Agent steps per second of the game's per-game ``env()``, random legal play."""
    return bench_env(get_game(ENGINES[game][0]).module, seconds, **config)


def profile_numpy(game: str, n: int, config: dict[str, Any], steps: int = 15) -> str:
    """Where ``steps`` numpy steps at batch size ``n`` spend their time."""
    eng = make_engine(game, n, "numpy", None, config)
    policy = RandomPolicy(0)
    _, mask, _ = eng.reset(0)
    mask = eng.step(policy(None, mask)).mask
    prof = cProfile.Profile()
    policy_s = engine_s = 0.0
    prof.enable()
    for _ in range(steps):
        t0 = time.perf_counter()
        actions = policy(None, mask)
        t1 = time.perf_counter()
        mask = eng.step(actions).mask
        policy_s += t1 - t0
        engine_s += time.perf_counter() - t1
    prof.disable()
    buf = io.StringIO()
    buf.write(
        f"{game} {config} N={n}: engine {1000 * engine_s / steps:.1f} ms/step, "
        f"random policy {1000 * policy_s / steps:.1f} ms/step (under cProfile)\n"
    )
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(22)
    return buf.getvalue()


def _print_row(row: dict[str, Any]) -> None:
    peak = row.get("peak_bytes_per_game", row["state_bytes_per_game"])
    print(f"{row['game']:7} {row['config'].get('num_players', ''):>3} {row['backend']:8} "
          f"{row['device']:6} {row['n']:>7} {row['steps_per_s']:>12,.0f} "
          f"{row['engine_steps_per_s']:>13,.0f} {row['steps_per_cpu_s']:>12,.0f} "
          f"{row['engine_steps_per_cpu_s']:>12,.0f} {row['step_ms']:>9.2f} {peak:>8.0f}")  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print (and optionally save) the results."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--game", choices=sorted(ENGINES), default="scum")
    parser.add_argument("--players", type=int, nargs="*", help="num_players (default by game)")
    parser.add_argument("--device", default="cpu", help="cpu (numpy and torch) or cuda (torch)")
    parser.add_argument("--sizes", type=int, nargs="*", help="batch sizes (default by device)")
    parser.add_argument("--seconds", type=float, default=1.0, help="budget per measurement")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--shards", type=int, default=0, help="also run numpy on T threads")
    parser.add_argument("--no-torch", action="store_true", help="skip CPU torch")
    parser.add_argument("--no-references", action="store_true", help="skip per-game/OpenSpiel")
    parser.add_argument("--profile", type=int, default=0, help="profile numpy at this N")
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args(argv)
    players = args.players or list(ENGINES[args.game][1])
    if args.profile:
        for p in players:
            print(profile_numpy(args.game, args.profile, {"num_players": p}))
        return 0
    gpu = args.device.startswith("cuda")
    runs: list[tuple[str, str | None, int]] = (
        [("torch", args.device, 1)] if gpu else [("numpy", None, 1), ("torch", "cpu", 1)]
    )
    if args.no_torch and not gpu:
        runs = [r for r in runs if r[0] != "torch"]
    if args.shards > 1 and not gpu:
        runs.insert(1, ("numpy", None, args.shards))
    try:
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:
        runs = [r for r in runs if r[0] != "torch"]
    sizes = args.sizes or (GPU_SIZES if gpu else CPU_SIZES)
    results: dict[str, Any] = {
        "game": args.game,
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
    print(f"{'game':7} {'P':>3} {'backend':8} {'device':6} {'N':>7} {'steps/s':>12} "
          f"{'engine st/s':>13} {'per CPU-s':>12} {'eng/CPU-s':>12} {'ms/step':>9} {'B/game':>8}")  # fmt: skip
    for p in players:
        config = {"num_players": p}
        for backend, device, shards in runs:
            for n in sizes:
                if shards > n:
                    continue
                try:
                    row = bench_batched(args.game, n, backend, device, args.seconds, config, shards)
                except (RuntimeError, MemoryError) as err:  # out of memory ends the curve
                    print(f"{args.game:7} {p:>3} {backend:8} {n:>7} stopped: {type(err).__name__}")
                    results["batched"].append(
                        {"config": config, "backend": backend, "n": n, "error": str(err)[:200]}
                    )
                    break
                results["batched"].append(row)
                _print_row(row)
        if not args.no_references:
            rate = bench_per_game(args.game, 2.0, config)
            env = get_game(ENGINES[args.game][0]).module
            results["references"][f"{env} env() {p}p (per game)"] = rate
            print(f"{env} env(), {p} players, per game: {rate:,.0f} steps/s")
    if not args.no_references:
        ref = measure("openspiel/dou_dizhu", 2.0)
        results["references"]["openspiel/dou_dizhu"] = ref.steps_per_sec
        rate_text = f"{ref.steps_per_sec:,.0f} steps/s" if ref.steps_per_sec else ref.status
        print(f"openspiel/dou_dizhu ({ref.version}): {rate_text}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(results, fh, indent=2)
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
