"""How often a guided search plays another move than the learned agent it wraps.

``python -m benchmarks.search_agreement --game scandal --players 2 --agent
scandal2 --deals 3 --extra "" "budget=100" "temperature=3"`` plays, for every
``EXTRA``, ``deals`` seeded deals with ``search:pretrained:AGENT[:EXTRA]`` in
seat 0 and the heuristic in the other seats. At each of seat 0's decisions
with more than one legal move it also asks ``pretrained:AGENT`` (the wrapped
agent, on the same observation) what it would play, and counts the decisions
where the two differ. The search's move is the one played, so each row
follows its own games. A search that never differs from its agent cannot
beat it on duplicate deals, whatever its budget: this is the first thing to
look at when it does not (docs/search.md, "Strength").

The table gives, per row, the decisions with a choice, how many differ, the
share with a 95% Wilson interval (`share_interval`) and the CPU seconds of the whole row.
"""

from __future__ import annotations

import argparse
import functools
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardsuite.agents.arena.stats import share_interval
from cardsuite.agents.base import table_info
from cardsuite.agents.baselines.heuristic import HeuristicAgent
from cardsuite.agents.registry import make_agent
from cardsuite.games import get_game


@dataclass(frozen=True)
class Agreement:
    """One row: the search's spec, its decisions with a choice and those that differ."""

    spec: str
    decisions: int
    differ: int
    cpu_seconds: float


def agent_spec(agent: str) -> str:
    """``pretrained:AGENT`` for a shipped agent's name; a spec (``ppo:PATH``) as it is."""
    return agent if ":" in agent else f"pretrained:{agent}"


def search_spec(agent: str, extra: str) -> str:
    """``search:`` over `agent_spec` with its parameters ``extra`` (``""``: the game's defaults)."""
    return f"search:{agent_spec(agent)}" + (f":{extra}" if extra else "")


def measure(
    game: str, players: int, agent: str, extra: str, deals: int, seed: int, **options: Any
) -> Agreement:
    """Play ``deals`` deals (seeds ``seed ..``) and count where search and agent differ."""
    spec = search_spec(agent, extra)
    decisions = differ = 0
    start = time.process_time()
    for d in range(deals):
        env = get_game(game).make(num_players=players, **options)
        env.reset(seed=seed + d)
        me = env.possible_agents[0]
        search = make_agent(spec, game, seed + d)
        wrapped = make_agent(agent_spec(agent), game, seed + d)
        for a in (search, wrapped):
            a.reset(table_info(env, game, me), seed + d)
        others = {}
        for name in env.possible_agents[1:]:
            others[name] = HeuristicAgent(game)
            others[name].reset(table_info(env, game, name), seed + d)
        for name in env.agent_iter():
            obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                break
            mask = obs["action_mask"]
            if name != me:
                env.step(others[name].act(obs["observation"], mask, {}))
                continue
            legal = np.flatnonzero(mask)
            if legal.size == 1:
                env.step(int(legal[0]))
                continue

            determinize = functools.partial(env.unwrapped.determinize, me)
            move = search.act(obs["observation"], mask, {"determinize": determinize})
            own = wrapped.act(obs["observation"], mask, {})
            decisions += 1
            differ += int(move != own)
            env.step(move)
        env.close()
    return Agreement(spec, decisions, differ, time.process_time() - start)


def table(rows: list[Agreement]) -> str:
    """The Markdown table of ``rows``."""
    lines = [
        "| search | decisions with a choice | differ from the wrapped agent | share (95% interval) "
        "| CPU s |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        outcomes = np.zeros(max(r.decisions, 1))
        outcomes[: r.differ] = 1.0
        share, low, high = share_interval(outcomes)
        lines.append(
            f"| `{r.spec}` | {r.decisions} | {r.differ} | {100 * share:.1f}% "
            f"({100 * low:.1f}–{100 * high:.1f}) | {r.cpu_seconds:.0f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Measure every ``--extra`` row and print the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    p.add_argument("--game", default="scandal")
    p.add_argument("--players", type=int, default=2)
    p.add_argument(
        "--agent",
        default="scandal2",
        help="the shipped agent the search wraps, or a learned agent's spec (ppo:PATH)",
    )
    p.add_argument(
        "--extra",
        nargs="+",
        default=[""],
        help='search parameters per row, e.g. "" "budget=100" "temperature=3,cutoff=0"',
    )
    p.add_argument("--deals", type=int, default=3)
    p.add_argument("--seed", type=int, default=900)
    a = p.parse_args(argv)
    rows = []
    for extra in a.extra:
        rows.append(measure(a.game, a.players, a.agent, extra, a.deals, a.seed))
        print(f"done: {rows[-1].spec}", flush=True)
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
