"""``HeuristicAgent``: the strongest rule-based player of each game (its ``heuristic`` part),
reading the observation through ``table.obs_spec`` views and the mask, deterministically;
`BatchedHeuristic`, what its batched twins share.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, Self

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.parts import agent_parts, part
from cardsuite.batched.policies import numpy_call
from cardsuite.errors import ConfigError
from cardsuite.games import get_game


def check_params(game: str, params: Mapping[str, Any]) -> None:
    """ConfigError naming a knob the game's heuristic does not have (its parts' list)."""
    allowed = agent_parts(game).heuristic_params
    for key in params:
        if key not in allowed:
            raise ConfigError(
                f"unknown heuristic parameter {key!r} for {game}; parameters: {', '.join(allowed)}"
            )


class ObservationPolicy(Protocol):
    """A per-game policy over observation and mask."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action id."""
        ...


class BatchedHeuristic:
    """What the batched heuristics share: `from_engine`, and numpy or torch rows in (`choose`
    over numpy), the same kind out."""

    name = "heuristic"

    @classmethod
    def from_engine(cls, engine: Any, **params: Any) -> Self:
        """The heuristic for the tables of a batched ``engine`` (its ``config`` and ``obs_spec``)."""
        return cls(engine.config, engine.obs_spec, **params)  # type: ignore[call-arg]

    def __call__(self, obs: Any, mask: Any) -> Any:
        """The heuristic's action for every row."""
        return numpy_call(self.choose, obs, mask)  # type: ignore[attr-defined]


def make_policy(table: TableInfo, kind: str = "heuristic", **params: Any) -> ObservationPolicy:
    """The ``kind`` policy (its game part, ``heuristic`` or ``greedy``) of ``table.game`` with
    ``params`` (per-game knobs)."""
    return part(table.game, kind)(table.config, table.obs_spec, **params)


class HeuristicAgent:
    """Rule-based player dispatching to the per-game heuristic.

    Args:
        game: the game it is meant for (``"scum"``, ``"scum_party"``, ``"scandal"``).
        seed: accepted for the agent protocol; the heuristics are deterministic.
        **params: the game's policy knobs (e.g. ``break_min_rest`` for Scum).
    """

    name = "heuristic"
    #: The game part the policy is built from, and what the messages call this agent.
    policy_part, label = "heuristic", "heuristic"

    def __init__(self, game: str, seed: int | None = None, **params: Any) -> None:
        """Remember the game and knobs; the policy is built at `reset`."""
        agent_parts(game, self.label)
        key = get_game(game).name
        check_params(key, params)  # a greedy agent takes none
        self.game = key
        self.params = params
        self._policy: ObservationPolicy | None = None

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Build the policy for ``table`` (its game must be this agent's)."""
        if table.game != self.game:
            raise ConfigError(f"{self.label} for {self.game!r} seated at a {table.game!r} table")
        self._policy = make_policy(table, self.policy_part, **self.params)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """The policy's legal action."""
        if self._policy is None:
            raise RuntimeError(f"{type(self).__name__}.act called before reset")
        return int(self._policy.act(observation, action_mask))
