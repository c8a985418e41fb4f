"""The Scum Party heuristic over a whole batch of observations at once (array operations).

`BatchedPartyHeuristic` chooses, row for row, exactly the action
`PartyHeuristic` chooses (``tests/agents/test_batched_heuristic_party.py``):
rows are grouped by their table's size (the ``seats`` piece), each group played
by one `BatchedScumHeuristic` of that size's rules with the Party phases
(``phase_offset=1``). A row whose table has finished its hand gets its first
legal action, or 0 with an empty mask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.agents.baselines.batched_scum import BatchedScumHeuristic
from cardsuite.agents.baselines.scum import ScumParams
from cardsuite.batched.policies import numpy_call
from cardsuite.errors import ConfigError
from cardsuite.obsspec import ObsSpec
from scum_env.party.config import PartyConfig
from scum_env.party.encoding import observation_spec
from scum_env.party.engine import table_rules

DONE = 2  # index of "own table has finished its hand" in the Party phase piece


class BatchedPartyHeuristic:
    """The Scum Party heuristic over ``[M, obs_dim]`` observations and ``[M, A]`` masks.

    Args:
        config: the party config (a [`PartyConfig`][scum_env.party.config.PartyConfig] or its dict of fields).
        obs_spec: the observation layout (default: the config's ``scum_party_v0`` layout).
        **params: `ScumParams` fields.

    Inputs may be numpy arrays or torch tensors (any device); the actions come
    back in the same kind (int64).

    Raises:
        ConfigError: a bad config or an unknown heuristic parameter.
    """

    name = "heuristic"

    @classmethod
    def from_engine(cls, engine: Any, **params: Any) -> BatchedPartyHeuristic:
        """The heuristic for the tables of a batched ``engine`` (its ``config`` and ``obs_spec``)."""
        return cls(engine.config, engine.obs_spec, **params)

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

    # ------------------------------------------------------------------ entry
    def __call__(self, obs: Any, mask: Any) -> Any:
        """The heuristic's action for every row."""
        return numpy_call(self.choose, obs, mask)  # torch in, torch out

    def choose(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions ``[M]`` for numpy observations and masks."""
        mask = mask.astype(bool, copy=False)
        actions = np.zeros(obs.shape[0], dtype=np.int64)
        if not len(actions):
            return actions
        done = obs[:, self.sl_phase].argmax(axis=1) == DONE
        if done.any():  # not asked to act: the first legal action (PartyHeuristic)
            actions[done] = mask[done].argmax(axis=1)
        sizes = np.rint(obs[:, self.sl_seats].sum(axis=1)).astype(np.int64)
        playing = ~done
        if not done.any() and (sizes == sizes[0]).all():  # one table size: no gathers
            return self.policy_for(int(sizes[0])).choose(obs, mask)
        for size in np.unique(sizes[playing]).tolist():
            rows = np.flatnonzero(playing & (sizes == size))
            actions[rows] = self.policy_for(int(size)).choose(obs[rows], mask[rows])
        return actions


def make_batched_party_heuristic(
    config: PartyConfig | dict[str, Any], **params: Any
) -> BatchedPartyHeuristic:
    """The batched Scum Party heuristic for ``config`` (``params``: ScumParams fields)."""
    return BatchedPartyHeuristic(config, **params)
