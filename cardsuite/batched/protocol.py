"""The contract every batched engine keeps, so the shared adapters serve every game.

``reset(seed)`` returns ``(obs [N, D] float32, mask [N, A] int8, to_act [N])``,
``step(actions [N], active=None)`` a [`StepResult`][cardsuite.batched.protocol.StepResult]
(rewards ``[N, P]`` by player id; finished games restart inside the step; an
illegal action raises ``IllegalActionError`` and changes no game). See
``docs/batched.md``; `cardsuite.batched.arrays.ArrayGames` implements the common part.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from cardsuite.batched.backend import Array, Backend


@dataclass
class StepResult:
    """What a batched ``step`` returns (see the module contract)."""

    obs: Array
    mask: Array
    to_act: Array
    rewards: Array
    done: Array
    truncated: Array | None = None


@runtime_checkable
class BatchedEngine(Protocol):
    """N games of one card game as arrays (the module docstring is the contract)."""

    xp: Backend
    num_games: int
    num_players: int
    num_actions: int
    obs_dim: int
    obs_spec: Any  # a cardsuite.obsspec.ObsSpec: named pieces and bounds of the observation

    def reset(self, seed: int = 0) -> tuple[Array, Array, Array]:
        """Start a new game in every slot; ``(obs, mask, to_act)``."""
        ...

    def step(self, actions: Any, active: Any = None) -> Any:
        """One decision in every (active) game; a `StepResult`-like object."""
        ...

    def to_act(self) -> Array:
        """``[N]`` player id to act in each game."""
        ...

    def bytes_per_game(self) -> float:
        """Bytes of state, observation and mask held per game."""
        ...
