"""Rule-based Scum Party policy (P1–P8): the climbing-game heuristic at the player's own table.

A Scum Party table runs Scum's engine with Jokers as the only specials (P1)
and forced trades (P5, no give-back), so the policy is `ScumPolicy` over the
rules of the player's table, whose size (the ``seats`` piece) fixes the decks
and so the card counting; one policy is kept per size.
"""

from __future__ import annotations

import numpy as np

from cardsuite.agents.baselines.scum import FOLLOW, LEAD, ScumParams, ScumPolicy, view_from_obs
from cardsuite.obsspec import ObsSpec
from scum_env.party.config import PartyConfig
from scum_env.party.engine import action_rules, table_rules
from scum_env.rules import Rules


def party_rules(config: PartyConfig) -> Rules:
    """The rules that define a party config's action table (its largest table)."""
    return action_rules(config)


class PartyHeuristic:
    """The climbing-game heuristic at the player's own Scum Party table."""

    def __init__(self, config: PartyConfig, obs_spec: ObsSpec, **params: object) -> None:
        """Policy for ``config``; ``params`` are `ScumParams` fields."""
        self.config = config
        self.obs_spec = obs_spec
        self.params = ScumParams(**params)  # type: ignore[arg-type]
        self._policies: dict[int, ScumPolicy] = {}

    def policy_for(self, size: int) -> ScumPolicy:
        """The policy of a table of ``size`` players (cached)."""
        pol = self._policies.get(size)
        if pol is None:
            pol = self._policies[size] = ScumPolicy(table_rules(size), self.params)
        return pol

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The heuristic's action for an observation and mask."""
        size = round(float(self.obs_spec.view(observation, "seats").sum()))
        view = view_from_obs(self.obs_spec, observation, action_mask, phase_offset=1)
        if view.phase not in (LEAD, FOLLOW):  # own table finished: not asked to act
            return int(np.flatnonzero(action_mask)[0])
        return self.policy_for(size).choose(view)


def make(config: PartyConfig, obs_spec: ObsSpec, **params: object) -> PartyHeuristic:
    """The Scum Party heuristic for a `PartyConfig`."""
    return PartyHeuristic(config, obs_spec, **params)
