"""The per-game reference ISMCTS beside the batched search, timed in one run.

Plays the same seeded deals once per search variant (seat 0 searches, the others play the
heuristic; only seat 0's decisions are timed) and prints each variant's seconds per deal,
decisions per deal, milliseconds per decision and speed-up over the reference. Cases:
``scum4``, ``party8``, ``scandal2``; variants: ``reference``, ``default``, ``lockstep``,
``leaf:B``, ``root:B`` and with ``--learned`` ``learned:NAME`` /
``learned-lockstep:NAME``; ``--heuristic`` times the batched Scandal heuristic alone.
Figures: docs/search.md, "Speed"::

    python -m benchmarks.search_bench --cases scum4 scandal2 --deals 2 --batches 25 100
"""

from __future__ import annotations

import argparse
import functools
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from cardsuite.agents.base import table_info
from cardsuite.agents.baselines.batched_scandal import BatchedScandalHeuristic
from cardsuite.agents.baselines.heuristic import HeuristicAgent
from cardsuite.agents.baselines.scandal import ScandalPolicy, ScandalReader
from cardsuite.agents.registry import make_agent
from cardsuite.games import get_game
from scandal_env.batched import BatchedScandal

#: case -> (game, env options, shipped agent for --learned or None)
CASES: dict[str, tuple[str, dict[str, Any], str | None]] = {
    "scum4": ("scum", {"num_players": 4}, "scum4"),
    "party8": ("scum_party", {"num_players": 8, "num_hands": 1}, None),
    # the table-sized network the figures in docs/search.md were measured with
    "scandal2": ("scandal", {"num_players": 2}, "scandal2_table"),
}


def load() -> str:
    """The 1, 5 and 15 minute load averages."""
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f} {five:.1f} {fifteen:.1f}"


def play(
    game: str,
    options: dict[str, Any],
    make: Callable[[], Any],
    seed: int,
    limit: int = 0,
    clock: Callable[[], float] = time.perf_counter,
    chosen: list[int] | None = None,
) -> tuple[float, int]:
    """Seconds seat 0 spent deciding in one deal (the others play the heuristic), and its
    decisions; with ``limit``, the deal stops after seat 0's first ``limit`` decisions.
    ``clock``: wall time, or ``time.process_time`` (this process's CPU time, steadier
    on a shared machine); ``chosen``, if given, receives seat 0's actions."""
    env = get_game(game).make(**options)
    env.reset(seed=seed)
    me = env.possible_agents[0]
    agents: dict[str, Any] = {me: make()}
    for name in env.possible_agents[1:]:
        agents[name] = HeuristicAgent(game)
    for i, (name, agent) in enumerate(agents.items()):
        agent.reset(table_info(env, game, name), seed=seed * 100 + i)
    spent = 0.0
    decisions = 0
    for name in env.agent_iter():
        _obs, _r, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            continue
        obs = env.observe(name)
        if name == me:
            ctx = {"agent": name, "determinize": lambda rng: env.unwrapped.determinize(me, rng)}
            start = clock()
            action = agents[name].act(obs["observation"], obs["action_mask"], ctx)
            spent += clock() - start
            decisions += 1
            if chosen is not None:
                chosen.append(int(action))
            if decisions == limit:
                break
        else:
            action = agents[name].act(obs["observation"], obs["action_mask"], {})
        env.step(action)
    return spent, decisions


def heuristic_rates(
    rows: int, steps: int = 100, seed: int = 0, clock: Callable[[], float] = time.perf_counter
) -> tuple[float, float]:
    """Decisions per second of the batched Scandal heuristic (no repeat memory) and of the
    per-game ``ScandalPolicy.choose`` (with its view), on the positions of ``rows`` 2-player
    hands played ``steps`` moves by the heuristic (rollout positions)."""
    eng = BatchedScandal(rows, num_players=2)
    fast = BatchedScandalHeuristic(eng.config, eng.obs_spec, repeat_memory=False)
    reader, policy = ScandalReader(eng.config, eng.obs_spec), ScandalPolicy(eng.config)
    obs, mask, _ = eng.reset(seed)
    positions = []
    for _ in range(steps):
        positions.append((obs.copy(), mask.astype(bool)))
        res = eng.step(fast(obs, mask))
        obs, mask = res.obs, res.mask
    start = clock()
    for o, m in positions:
        fast(o, m)
    batched = rows * steps / (clock() - start)
    start = clock()
    for o, m in positions:
        for i in range(rows):
            policy.choose(reader.view(o[i], m[i]))
    per_game = rows * steps / (clock() - start)
    return batched, per_game


def variants(
    game: str,
    budget: int,
    batches: list[int],
    learned: str | None,
    device: str | None,
    learned_extra: str = "",
    cutoff: int | None = None,
) -> dict[str, str]:
    """Variant name -> agent spec (``cutoff``: of the ``leaf:B`` and ``root:B`` variants)."""
    out = {"reference": f"ismcts:budget={budget}"}
    extra = f",device={device}" if device else ""
    out["default"] = f"ismcts-batched:budget={budget}{extra}"
    out["lockstep"] = f"ismcts-batched:budget={budget},compiled=false{extra}"
    if cutoff is not None:
        extra += f",cutoff={cutoff}"
    for b in batches:
        out[f"leaf:{b}"] = f"ismcts-batched:budget={budget},batch={b},parallel=leaf{extra}"
        out[f"root:{b}"] = f"ismcts-batched:budget={budget},batch={b},parallel=root{extra}"
    if learned and game != "scum_party":
        # its rollouts are what this times (an agent with a critic would get value leaves)
        more = ",leaf=rollout" + (",max_hand=6" if game == "scum" else "") + extra
        if learned_extra:
            more += f",{learned_extra}"
        out[f"learned:{learned}"] = f"search:pretrained:{learned}:budget={budget}{more}"
        out[f"learned-lockstep:{learned}"] = out[f"learned:{learned}"] + ",compiled=false"
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    p.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    p.add_argument("--deals", type=int, default=2, help="deals per case (seeds 0 ..)")
    p.add_argument("--budget", type=int, default=100)
    p.add_argument("--batches", type=int, nargs="*", default=[25, 100])
    p.add_argument("--device", default=None, help="torch device of the rollout engines")
    p.add_argument("--learned-extra", default="", help="more search: parameters, e.g. cutoff=20")
    p.add_argument("--cutoff", type=int, help="rollout cutoff of the leaf:B and root:B variants")
    p.add_argument(
        "--decisions", type=int, default=0, help="stop each deal after seat 0's first N decisions"
    )
    p.add_argument("--only", nargs="+", help="run only these variants, e.g. reference leaf:25")
    for flag, text in (
        ("--learned", "add search:pretrained:NAME"),
        ("--heuristic", "time only the Scandal rollout heuristic"),
        ("--cpu-time", "time in this process's CPU seconds, not wall"),
        (
            "--same-choices",
            "say whether each variant chose seat 0's moves as the first variant did",
        ),
    ):
        p.add_argument(flag, action="store_true", help=text)
    a = p.parse_args(argv)
    clock = time.process_time if a.cpu_time else time.perf_counter
    print(f"load average (1, 5, 15 min) at start: {load()}")
    if a.cpu_time:
        print("times: CPU seconds of this process (time.process_time)")
    if a.heuristic:
        print("| rows | batched heuristic, decisions/s | ScandalPolicy.choose, decisions/s |")
        print("|---:|---:|---:|")
        for rows in a.batches:
            batched, per_game = heuristic_rates(rows, clock=clock)
            print(f"| {rows} | {batched:,.0f} | {per_game:,.0f} |", flush=True)
        print(f"load average (1, 5, 15 min) at end: {load()}")
        return 0
    print("| case | variant | s/deal | decisions/deal | ms/decision | speed-up per decision |")
    print("|---|---|---:|---:|---:|---:|")
    for case in a.cases:
        game, options, shipped = CASES[case]
        learned = shipped if a.learned else None
        specs = variants(game, a.budget, a.batches, learned, a.device, a.learned_extra, a.cutoff)
        if a.only:
            specs = {label: spec for label, spec in specs.items() if label in a.only}
        per_decision: dict[str, float] = {}
        choices: dict[str, list[int]] = {}
        for label, spec in specs.items():
            chosen = choices[label] = []
            make = functools.partial(make_agent, spec, game, seed=0)
            runs = [
                play(game, options, make, seed, a.decisions, clock, chosen)
                for seed in range(a.deals)
            ]
            seconds = float(np.sum([r[0] for r in runs]))
            count = int(np.sum([r[1] for r in runs]))
            per_decision[label] = seconds / max(count, 1)
            ref = per_decision.get("reference")
            ratio = f"{ref / per_decision[label]:.2f}x" if ref else "–"
            print(
                f"| {case} | {label} | {seconds / a.deals:.2f} | {count / a.deals:.1f} | "
                f"{1000 * per_decision[label]:.1f} | {ratio} |",
                flush=True,
            )
        if a.same_choices and len(choices) > 1:
            first, *rest = choices
            for label in rest:
                same = choices[label] == choices[first]
                print(f"{case}: {label} made {'the same' if same else 'other'} choices as {first} "
                      f"({len(choices[label])} and {len(choices[first])} decisions)")  # fmt: skip
    print(f"load average (1, 5, 15 min) at end: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
