"""cardsuite's speed, side by side with the reference libraries in one run.

Random legal play on one core, agent decisions only (the conventions of
`benchmarks.references`): the suite's ``env()`` through the PettingZoo AEC
loop, the rules engine alone (mask + apply) for what the env layer costs, and
the references; then the ratios of the issue targets (``RATIOS``)::

    taskset -c 0 python -m benchmarks.bench                 # everything, 3 s each
    python -m benchmarks.bench --only scum4.env party5.env party16.env party50.env
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchmarks.references import CLOCK_MASK, REFERENCES, bench_aec, measure
from scum_env import engine as E
from scum_env.config import ScumConfig
from scum_env.rules import scum_rules


def bench_scum_engine(num_players: int, seconds: float, seed: int = 0) -> float:
    """Agent steps/s of the bare Scum engine (mask + apply, no observation)."""
    rules = scum_rules(ScumConfig(num_players=num_players))
    rng = random.Random(seed)
    perf_counter = time.perf_counter
    state = E.new_game(rules, seed)
    steps = 0
    t0 = perf_counter()
    deadline = t0 + seconds
    while True:
        legal = np.flatnonzero(E.legal_mask(state))
        E.apply_unchecked(state, int(legal[rng.randrange(len(legal))]))
        steps += 1
        if state.phase == E.OVER:
            if state.game_over:
                state = E.new_game(rules, rng.randrange(2**31))
            else:
                E.continue_game(state)
        if not steps & CLOCK_MASK and perf_counter() >= deadline:
            return steps / (perf_counter() - t0)


def bench_env(module: str, seconds: float, **config: Any) -> float:
    """Agent steps/s of ``module.env(**config)`` (an env module such as ``scum_env.scum_v0``)."""
    return bench_aec(lambda: importlib.import_module(module).env(**config), seconds)


_SCUM, _PARTY, _SCANDAL = "scum_env.scum_v0", "scum_env.scum_party_v0", "scandal_env.scandal_v0"
_ALL_VARIANTS = {"carousel": True, "color_clash": True, "wild_queen": True}

OURS: dict[str, Callable[[float], float]] = {
    "scum4.env": lambda s: bench_env(_SCUM, s, num_players=4),
    "scum4.engine": lambda s: bench_scum_engine(4, s),
    "scum6.env": lambda s: bench_env(_SCUM, s, num_players=6),
    "scum4_all_variants.env": lambda s: bench_env(_SCUM, s, num_players=4, **_ALL_VARIANTS),
    "scandal2.env": lambda s: bench_env(_SCANDAL, s, num_players=2),
    "scandal4.env": lambda s: bench_env(_SCANDAL, s, num_players=4),
    "party5.env": lambda s: bench_env(_PARTY, s, num_players=5),
    "party16.env": lambda s: bench_env(_PARTY, s, num_players=16),
    "party50.env": lambda s: bench_env(_PARTY, s, num_players=50),
}

RATIOS = (
    ("Scum 4p env() / RLCard doudizhu (target >= 8x)", "scum4.env", "rlcard/doudizhu"),
    ("Scum 4p env() / OpenSpiel dou_dizhu+observer", "scum4.env", "openspiel/dou_dizhu+observer"),
    ("Scum 4p env() / PettingZoo leduc env()", "scum4.env", "pettingzoo/leduc_holdem_v4.env"),
    ("Scum 4p engine / env() (cost of the env layer)", "scum4.engine", "scum4.env"),
    ("Scandal 2p env() / RLCard gin-rummy (target >= 1.5x)", "scandal2.env", "rlcard/gin-rummy"),
    (
        "Scandal 2p env() / OpenSpiel gin_rummy+observer",
        "scandal2.env",
        "openspiel/gin_rummy+observer",
    ),
    ("Party 50p env() / Party 5p env() (per step)", "party50.env", "party5.env"),
    ("Party 16p env() / Scum 4p env() (per step)", "party16.env", "scum4.env"),
    ("Party 50p env() / Scum 4p env() (per step)", "party50.env", "scum4.env"),
)


def run(names: Sequence[str], seconds: float) -> dict[str, dict[str, Any]]:
    """Measure each name (ours or a reference); returns name -> result."""
    results: dict[str, dict[str, Any]] = {}
    for name in names:
        if name in OURS:
            try:
                rate = OURS[name](seconds)
                results[name] = {"steps_per_sec": rate, "status": "ok"}
            except ImportError as err:
                results[name] = {"steps_per_sec": None, "status": f"not available: {err}"}
        elif name in REFERENCES:
            ref = measure(name, seconds)
            results[name] = {
                "steps_per_sec": ref.steps_per_sec,
                "status": ref.status,
                "version": ref.version,
            }
        else:
            raise SystemExit(
                f"unknown benchmark {name!r}; known: {', '.join([*OURS, *REFERENCES])}"
            )
        rate = results[name]["steps_per_sec"]
        shown = f"{rate:>12,.0f}" if rate else f"{'-':>12}"
        print(f"{name:<40} {shown} steps/s  {results[name]['status']}", flush=True)
    return results


def ratios(results: dict[str, dict[str, Any]]) -> list[tuple[str, float]]:
    """The headline ratios among what was measured."""
    out = []
    for label, a, b in RATIOS:
        ra = results.get(a, {}).get("steps_per_sec")
        rb = results.get(b, {}).get("steps_per_sec")
        if ra and rb:
            out.append((label, ra / rb))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print steps/s and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="budget per measurement")
    parser.add_argument("--only", nargs="+", default=None, help="names to measure")
    parser.add_argument("--cpu", type=int, default=None, help="pin to this core")
    parser.add_argument("--out", default=None, help="write results as JSON here")
    args = parser.parse_args(argv)
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    names = args.only or [*OURS, *REFERENCES]
    print(f"python {sys.version.split()[0]}, {args.seconds:g} s per measurement, one process")
    results = run(names, args.seconds)
    table = ratios(results)
    if table:
        print("\nratios (same run):")
        for label, value in table:
            print(f"  {label:<58} {value:8.2f}x")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump({"results": results, "ratios": dict(table)}, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
