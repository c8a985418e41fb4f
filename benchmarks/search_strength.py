"""Strength against time of the guided search: budget vs the wrapped agent and the heuristic.

``python -m benchmarks.search_strength --game scum --players 4 --agent scum4
--budgets 10 30 100 --deals 50 --out strength.md`` plays, for every budget,
``search:pretrained:AGENT:budget=B[,EXTRA]`` against ``pretrained:AGENT`` and
against ``heuristic`` in duplicate deals (budget 0: the wrapped agent itself,
against the heuristic only) (``cardsuite tournament ...
--duplicate``, the same master seed for every row, so every row meets the
same deals), and writes a Markdown table: the fraction of deals the search
beat its opponent (ties count one half, the tournament's head-to-head) with
a 95% normal-approximation interval, and the wall-clock seconds per game
(the machine's load average is printed beside it: compare rows of one run).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from cardsuite.agents.arena.results import TournamentResult
from cardsuite.agents.arena.stats import share_interval, unit_values
from cardsuite.agents.arena.tournament import run_tournament


def interval(res: TournamentResult) -> float:
    """The wider side of the 95% interval of agent 0's share of deals won against agent 1.

    Per deal: 1 won, 0 lost, 1/2 tied (the head-to-head); the interval is
    `share_interval`'s (Wilson, or Student t where a deal was tied).
    """
    scores = unit_values(res.results, len(res.agents), "rewards")
    mine, theirs = np.asarray(scores[0]), np.asarray(scores[1])
    share, low, high = share_interval((mine > theirs) + 0.5 * (mine == theirs))
    return max(share - low, high - share)


def main(argv: list[str] | None = None) -> int:
    """Run the matches and write the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    p.add_argument("--game", default="scum")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--agent", default="scum4", help="the shipped agent to wrap")
    p.add_argument("--budgets", type=int, nargs="+", default=[10, 30, 100])
    p.add_argument("--extra", default="", help="more search parameters, e.g. max_hand=6")
    p.add_argument("--deals", type=int, default=50)
    p.add_argument("--seed", type=int, default=424242)
    p.add_argument("--opponents", nargs="+", default=["wrapped", "heuristic"])
    p.add_argument("--out", type=Path, default=None)
    a = p.parse_args(argv)
    wrapped = f"pretrained:{a.agent}"
    rows = [
        f"{a.game}, {a.players} players, {a.deals} duplicate deals, seed {a.seed}",
        "",
        "| search | opponent | deals won (ties 1/2) | 95% CI | s/game | load (1 min) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    print("\n".join(rows), flush=True)
    for budget in a.budgets:
        params = f"budget={budget}" + (f",{a.extra}" if a.extra else "")
        spec = f"search:{wrapped}:{params}" if budget else wrapped  # budget 0: no search
        for which in a.opponents:
            opponent = wrapped if which == "wrapped" else which
            if opponent == spec:
                continue
            start = time.perf_counter()
            res = run_tournament(
                a.game,
                [spec, opponent],
                games=a.deals,
                players=a.players,
                duplicate=True,
                seed=a.seed,
            )
            seconds = time.perf_counter() - start
            frac = res.head_to_head[0][1]
            assert frac is not None
            games = len(res.results)
            row = (
                f"| `{spec}` | `{opponent}` | {frac:.3f} | ±{interval(res):.3f} | "
                f"{seconds / games:.2f} | {os.getloadavg()[0]:.1f} |"
            )
            rows.append(row)
            print(row, flush=True)
    if a.out is not None:
        a.out.write_text("\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
