"""S4: the default turn limit cuts fewer than 1 hand in 1,000 when the baseline agents play.

The full measurement (45,000 hands, none cut) is written up in docs/scandal.md,
"Turn limit" (commit ``d150d8e``); the slow test re-checks it on a bounded
sample: 100 hands per table and player count, none of them cut by the default
``max_turns``, the longest under half of it.
"""

from __future__ import annotations

import pytest

from cardsuite.agents.base import TableInfo
from cardsuite.agents.baselines.greedy import GreedyAgent
from cardsuite.agents.baselines.heuristic import HeuristicAgent
from scandal_env import engine as E
from scandal_env.actions import describe
from scandal_env.config import ScandalConfig
from scandal_env.encoding import Encoder


def play_hands(table: str, players: int, hands: int, seed: int, cap: int) -> list[int]:
    """Turns taken by each of ``hands`` hands (``cap``: still running after ``cap`` turns).

    ``table`` is ``greedy``, ``heuristic`` or ``mixed`` (alternate seats); one set of the
    registry's agents, fed the env's observations, plays every hand and remembers the
    positions seen this hand (S4), as in an arena.
    """
    config = ScandalConfig(num_players=players, max_turns=cap)
    rules = E.make_rules(config)
    encoder = Encoder(rules)
    agents: list[GreedyAgent | HeuristicAgent] = []
    for i in range(players):
        kind = table if table != "mixed" else ("greedy" if i % 2 == 0 else "heuristic")
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
        agents.append(agent)
    turns = []
    for h in range(hands):
        state = E.new_game(config, seed=seed * 1_000_003 + h)
        while not state.done:
            obs = encoder.encode(state, state.to_act)
            E.apply(state, agents[state.to_act].act(obs, E.legal_mask(state), {}))
        turns.append(state.turn + (state.hand_end == E.END_OUT))
    return turns


def test_s4_greedy_hands_end_well_before_the_limit() -> None:
    limit = ScandalConfig().max_turns
    turns = play_hands("greedy", 2, 3, seed=0, cap=limit)
    assert len(turns) == 3 and all(0 < t <= limit // 2 for t in turns)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("table", ["heuristic", "mixed", "greedy"])
def test_s4_default_limit_cuts_no_baseline_hand(table: str, players: int) -> None:
    """S4: 100 hands of baseline agents, none cut, the longest under half the limit."""
    limit = ScandalConfig().max_turns
    turns = play_hands(table, players, 100, seed=7, cap=limit)
    assert max(turns) <= limit // 2, sorted(turns)[-5:]
