"""How often a Scandal turn limit cuts a hand short (ruling S4).

S4: the default ``max_turns`` must cut fewer than 1 hand in 1,000 when the baseline agents
play. Whole hands are played with no effective limit (``--cap`` turns) and their lengths
recorded, so one run gives the cut rate of every candidate limit::

    python -m benchmarks.scandal_turn_limit --hands 2000 --workers 16
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.baselines.greedy import GreedyAgent
from cardsuite.agents.baselines.heuristic import HeuristicAgent
from scandal_env import engine as E
from scandal_env.actions import describe
from scandal_env.config import ScandalConfig
from scandal_env.encoding import Encoder

TABLES = ("greedy", "heuristic", "mixed", "random")
CANDIDATES = (200, 300, 400, 500, 600, 800, 1000, 1500, 2000)
DEFAULT_CAP = 5000

Policy = Callable[[E.State], int]


def _policies(table: str, config: ScandalConfig, seed: int) -> list[Policy]:
    """One policy per seat for ``table``: the registry's agents, fed the env's observations."""
    rules = E.make_rules(config)
    encoder = Encoder(rules)
    rng = np.random.default_rng(seed)

    def random_policy(state: E.State) -> int:
        legal = np.flatnonzero(E.legal_mask(state))
        return int(legal[rng.integers(legal.size)])

    def seat(kind: str, i: int) -> Policy:
        agent: GreedyAgent | HeuristicAgent
        agent = GreedyAgent("scandal") if kind == "greedy" else HeuristicAgent("scandal")
        agent.reset(
            TableInfo(
                game="scandal",
                config=config,
                agent=f"player_{i}",
                num_actions=rules.layout.size,
                obs_spec=encoder.spec,
                describe_action=lambda a: describe(rules.layout, rules.deck, a),
            )
        )

        def policy(state: E.State) -> int:
            obs = encoder.encode(state, state.to_act)
            return agent.act(obs, E.legal_mask(state), {})

        return policy

    p = config.num_players
    if table == "random":
        return [random_policy] * p
    if table == "mixed":
        return [seat("greedy" if i % 2 == 0 else "heuristic", i) for i in range(p)]
    return [seat(table, i) for i in range(p)]


def play_hands(table: str, players: int, hands: int, seed: int, cap: int) -> list[int]:
    """Turns taken by each of ``hands`` hands (``cap``: still running after ``cap`` turns), one
    set of agents per table remembering the positions seen this hand (S4), as in an arena."""
    config = ScandalConfig(num_players=players, max_turns=cap)
    policies = _policies(table, config, seed)
    turns = []
    for h in range(hands):
        state = E.new_game(config, seed=seed * 1_000_003 + h)
        while not state.done:
            E.apply(state, policies[state.to_act](state))
        turns.append(state.turn + (state.hand_end == E.END_OUT))
    return turns


def _job(args: tuple[str, int, int, int, int]) -> tuple[str, int, list[int]]:
    table, players, hands, seed, cap = args
    return table, players, play_hands(table, players, hands, seed, cap)


def summarize(turns: list[int], cap: int) -> dict[str, Any]:
    """Quantiles of the turns a hand takes and the cut rate of each candidate limit."""
    arr = np.array(turns)
    ended = arr[arr < cap]
    cut = {str(limit): float((arr > limit).mean()) for limit in CANDIDATES if limit < cap}
    return {
        "hands": int(arr.size),
        "at_cap": int((arr >= cap).sum()),
        "median": float(np.median(ended)) if ended.size else float("nan"),
        "p99": float(np.quantile(ended, 0.99)) if ended.size else float("nan"),
        "p999": float(np.quantile(ended, 0.999)) if ended.size else float("nan"),
        "max": int(ended.max()) if ended.size else -1,
        "cut_rate": cut,
    }


def main(argv: list[str] | None = None) -> int:
    """Play the tables and print (and optionally save) the cut rates."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1000, help="hands per table and count")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5, 6])
    parser.add_argument("--tables", nargs="+", default=list(TABLES), choices=TABLES)
    parser.add_argument("--cap", type=int, default=DEFAULT_CAP, help="turns before giving up")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--chunks", type=int, default=1, help="jobs per table and count")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="write the summary as JSON here")
    args = parser.parse_args(argv)
    per = -(-args.hands // args.chunks)
    jobs = [
        (table, p, per, args.seed * 10_000 + i * 100 + p, args.cap)
        for table in args.tables
        for p in args.players
        for i in range(args.chunks)
    ]
    start = time.perf_counter()
    results: dict[tuple[str, int], list[int]] = {}
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            for table, p, turns in pool.map(_job, jobs):
                results.setdefault((table, p), []).extend(turns)
    else:
        for job in jobs:
            table, p, turns = _job(job)
            results.setdefault((table, p), []).extend(turns)
    summary = {f"{t}/{p}": summarize(v, args.cap) for (t, p), v in sorted(results.items())}
    print("turns of the hands that ended (median, p99, p99.9, max); hands still running at")
    print("the cap count as cut by every limit.")
    header = f"{'table/players':<14} {'hands':>6} {'at cap':>6}"
    header += f" {'median':>6} {'p99':>6} {'p99.9':>6} {'max':>6}"
    print(header + "".join(f" {'>' + str(c):>7}" for c in CANDIDATES))
    for key, s in summary.items():
        row = f"{key:<14} {s['hands']:>6} {s['at_cap']:>6}"
        row += f" {s['median']:>6.0f} {s['p99']:>6.0f} {s['p999']:>6.0f} {s['max']:>6}"
        print(
            row + "".join(f" {s['cut_rate'].get(str(c), float('nan')):>7.4f}" for c in CANDIDATES)
        )
    print(f"({time.perf_counter() - start:.0f} s)")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(summary, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
