"""The Scum Party heuristic (P1–P8): `ScumPolicy` over the rules of the player's own table,
whose size (the ``seats`` piece) fixes the decks; `BatchedPartyHeuristic` is its batched twin.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.agents.baselines.batched_scum import BatchedScumHeuristic
from cardsuite.agents.baselines.heuristic import BatchedHeuristic
from cardsuite.agents.baselines.scum import FOLLOW, LEAD, ScumParams, ScumPolicy, view_from_obs
from cardsuite.errors import ConfigError
from cardsuite.obsspec import ObsSpec
from scum_env.party.config import PartyConfig
from scum_env.party.encoding import observation_spec
from scum_env.party.engine import action_rules, table_rules

DONE = 2  # index of "own table has finished its hand" in the Party phase piece


#: The rules that define a party config's action table (its largest table).
party_rules = action_rules


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


#: The Scum Party heuristic for a `PartyConfig` (the record's ``heuristic`` part).
make = PartyHeuristic


class BatchedPartyHeuristic(BatchedHeuristic):
    """The Scum Party heuristic over ``[M, obs_dim]`` observations and ``[M, A]`` masks (numpy
    or torch): ``config`` a `PartyConfig` or its dict, ``params`` `ScumParams` fields. A row
    whose table has finished its hand gets its first legal action."""

    def __init__(
        self,
        config: PartyConfig | dict[str, Any],
        obs_spec: ObsSpec | None = None,
        **params: Any,
    ) -> None:
        """One batched table policy per table size of ``config``."""
        self.config = config if isinstance(config, PartyConfig) else PartyConfig.from_dict(config)
        self.spec = obs_spec or observation_spec(self.config)
        try:
            ScumParams(**params)
        except TypeError as exc:
            raise ConfigError(f"heuristic params: {exc}; fields are ScumParams'") from None
        self.params = params
        self.sl_seats = self.spec.slices["seats"]
        self.sl_phase = self.spec.slices["phase"]
        self._policies: dict[int, BatchedScumHeuristic] = {}
        for size in sorted(set(self.config.sizes)):
            self.policy_for(size)

    def policy_for(self, size: int) -> BatchedScumHeuristic:
        """The batched policy of a table of ``size`` players (cached)."""
        pol = self._policies.get(size)
        if pol is None:
            pol = BatchedScumHeuristic(table_rules(size), self.spec, phase_offset=1, **self.params)
            self._policies[size] = pol
        return pol

    def choose(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions ``[M]`` for numpy observations and masks."""
        mask = mask.astype(bool, copy=False)
        actions = np.zeros(obs.shape[0], dtype=np.int64)
        if not len(actions):
            return actions
        done = obs[:, self.sl_phase].argmax(axis=1) == DONE
        actions[done] = mask[done].argmax(axis=1)  # not asked to act: the first legal action
        sizes = np.rint(obs[:, self.sl_seats].sum(axis=1)).astype(np.int64)
        playing = ~done
        if not done.any() and (sizes == sizes[0]).all():  # one table size: no gathers
            return self.policy_for(int(sizes[0])).choose(obs, mask)
        for size in np.unique(sizes[playing]).tolist():
            rows = np.flatnonzero(playing & (sizes == size))
            actions[rows] = self.policy_for(int(size)).choose(obs[rows], mask[rows])
        return actions


#: The batched Scum Party heuristic for a config (``params``: ScumParams fields).
make_batched_party_heuristic = BatchedPartyHeuristic
