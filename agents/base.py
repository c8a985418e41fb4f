"""The agent protocol shared by every baseline, the arena, play and training.

An agent sees only what its player sees: the observation (read through the named views,
``table.obs_spec.view(obs, "hand")``), the action mask, and the arena's ``info``:

* ``"agent"``: the acting agent's name (``"player_2"``);
* ``"determinize"``: a callable ``rng -> engine state`` that samples a full
  state consistent with everything this player has seen (the env's documented
  ``determinize``), for search agents; absent where the env has none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from cardsuite.config import ConfigBase
from cardsuite.obsspec import ObsSpec


@dataclass(frozen=True)
class TableInfo:
    """What an agent is told when an episode starts: the game and its config, its own name
    (``"player_3"``), the number of actions, the observation layout, words for an action."""

    game: str
    config: ConfigBase
    agent: str
    num_actions: int
    obs_spec: ObsSpec
    describe_action: Callable[[int], str]


@runtime_checkable
class Agent(Protocol):
    """A player: told the table at each episode start, asked for actions."""

    name: str

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Start an episode at ``table`` (seeded for reproducible choices)."""
        ...

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """A legal action id for this observation and mask."""
        ...


def table_info(env: Any, game: str, agent: str) -> TableInfo:
    """The `TableInfo` of ``agent`` at a suite env."""
    base = env.unwrapped
    return TableInfo(
        game, base.config, agent, base.num_actions, base.obs_spec, base.describe_action
    )


class RandomAgent:
    """Uniform over the legal actions, seeded."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        """Create with an optional seed (``reset`` reseeds when given one)."""
        self._rng = np.random.default_rng(seed)

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Reseed when ``seed`` is given."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """A uniformly random legal action."""
        legal = np.flatnonzero(action_mask)
        return int(legal[self._rng.integers(len(legal))])
