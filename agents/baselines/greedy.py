"""``GreedyAgent``: a simple, documented baseline for every game (its ``greedy`` part):
`climb_greedy` in Scum and Scum Party, ``ScandalReader.greedy`` in Scandal; docs/agents.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.agents.baselines.heuristic import HeuristicAgent
from cardsuite.agents.baselines.party import party_rules
from cardsuite.agents.baselines.scandal import ScandalReader
from scum_env.rules import scum_rules


def climb_greedy(mask: np.ndarray, num_slots: int, give_base: int) -> int:
    """The greedy choice at a climbing-game table: give back the lowest card (J5), follow
    with the lowest legal play, lead the set that sheds the most cards (the lowest first)."""
    legal = np.flatnonzero(mask)
    gives = legal[legal >= give_base]
    if gives.size:
        return int(gives[0])  # lowest card
    plays = legal[(legal >= 1) & (legal < give_base)]
    if not plays.size:
        return 0
    if mask[0]:  # following: the lowest legal play
        slots = (plays - 1) % num_slots
        return int(plays[np.argmin(slots)])
    counts = (plays - 1) // num_slots  # leading: most cards, then lowest slot
    best = plays[counts == counts.max()]
    return int(best[0])


class ClimbGreedy:
    """The greedy policy at a climbing-game table (Scum, Scum Party): `climb_greedy`."""

    def __init__(self, rules: Any) -> None:
        """Read the action layout of the compiled table ``rules``."""
        self.num_slots = int(rules.num_slots)
        self.give_base = int(rules.give_base)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The greedy legal action (the mask is all it needs)."""
        return climb_greedy(action_mask, self.num_slots, self.give_base)


def scum_greedy(config: Any, obs_spec: Any) -> ClimbGreedy:
    """Scum's greedy policy (the record's ``greedy`` part)."""
    return ClimbGreedy(scum_rules(config))


def party_greedy(config: Any, obs_spec: Any) -> ClimbGreedy:
    """Scum Party's greedy policy (the record's ``greedy`` part)."""
    return ClimbGreedy(party_rules(config))


class ScandalGreedy:
    """Scandal's greedy policy: melds, lays off and collects sets (module doc), never cycling."""

    def __init__(self, config: Any, obs_spec: Any) -> None:
        """Read the table through ``obs_spec`` views."""
        self.reader = ScandalReader(config, obs_spec)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The greedy legal action (repeats remembered, S4)."""
        return int(self.reader.greedy(observation, action_mask))


#: Scandal's greedy policy (the record's ``greedy`` part).
scandal_greedy = ScandalGreedy


class GreedyAgent(HeuristicAgent):
    """Plays whenever it can, shedding the most and lowest cards first.

    Args:
        game: the game it is meant for (``"scum"``, ``"scum_party"``, ``"scandal"``).
        seed: accepted for the agent protocol; the choices are deterministic.
    """

    name = "greedy"
    policy_part, label = "greedy", "greedy agent"

    def __init__(self, game: str, seed: int | None = None) -> None:
        """Remember the game; the policy is built at `reset`."""
        super().__init__(game, seed)
