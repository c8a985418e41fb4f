"""Throughput of Scum Party with random agents, beside 4-player Scum.

``bench_party(players, seconds)`` plays tournaments of Scum Party through the
user-facing ``env()`` (observation and mask every step, as an agent sees
them) with uniformly random legal agents and returns **agent steps per
second**. ``bench_scum(players, seconds)`` does the same for ``scum_v0``.
Both use `benchmarks.bench.bench_aec`, with the conventions of
``benchmarks/references.py``: a seeded generator picks the actions; finished episodes are reset and play goes on; resets and dead steps
(``step(None)`` for finished agents) are timed but not counted.

With 50 players the default split is four tables (13, 13, 12, 12, P2), so
``bench_party(50)`` is the 50-player, 4-table tournament of the issue. Per
step, the work is that of the acting table only, so a 50-player step should
cost about as much as a 5-player one.

    taskset -c 0 python -m benchmarks.party_bench            # 4p Scum, party 5/16/50
    python -m benchmarks.party_bench --seconds 5 --players 5 50
"""

from __future__ import annotations

import argparse

from benchmarks.bench import bench_aec
from scum_env import scum_party_v0, scum_v0
from scum_env.party.config import PartyConfig

DEFAULT_SECONDS = 2.0


def bench_party(players: int = 50, seconds: float = DEFAULT_SECONDS, *, seed: int = 0) -> float:
    """Agent steps per second of a random Scum Party tournament of ``players``."""
    return bench_aec(lambda: scum_party_v0.env(num_players=players), seconds, seed)


def bench_scum(players: int = 4, seconds: float = DEFAULT_SECONDS, *, seed: int = 0) -> float:
    """Agent steps per second of random Scum (4J) series with ``players``."""
    return bench_aec(lambda: scum_v0.env(num_players=players), seconds, seed)


def main(argv: list[str] | None = None) -> int:
    """Print steps/s of 4-player Scum and of Scum Party at several sizes."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS)
    parser.add_argument("--players", type=int, nargs="+", default=[5, 16, 50])
    args = parser.parse_args(argv)
    scum = bench_scum(4, args.seconds)
    print(f"{'scum_v0, 4 players':<34} {scum:>10,.0f} steps/s  (1.00x)")
    for n in args.players:
        sizes = PartyConfig(num_players=n).sizes
        rate = bench_party(n, args.seconds)
        label = f"scum_party_v0, {n} players {list(sizes)}"
        print(f"{label:<34} {rate:>10,.0f} steps/s  ({rate / scum:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
