"""Train one learning seat on the batched Scum engine: `ScumVectorEnv`.

A Scum front of [`cardsuite.batched.vector_env.BatchedVectorEnv`][cardsuite.batched.vector_env.BatchedVectorEnv]: it
builds a [`BatchedScum`][scum_env.batched.engine.BatchedScum] of ``num_envs`` games
from config keywords. In every game player ``learner`` learns; the other
seats are played inside the batch by the ``opponents`` (random, the
lowest-first heuristic, or the learner itself through ``sb3_policy``). The
learner keeps its player id while its role changes from series to series
(J3). Rewards are ``scum_v0``'s, at the episode end. [`sb3_vec_env`][scum_env.batched.vector_env.sb3_vec_env]
wraps it for ``MaskablePPO``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardsuite.batched.policies import BatchPolicy
from cardsuite.batched.vector_env import BatchedVectorEnv, sb3_vec_env
from scum_env.batched.engine import BatchedScum

__all__ = ["ScumVectorEnv", "sb3_vec_env"]


class ScumVectorEnv(BatchedVectorEnv):
    """``num_envs`` Scum games seen from one learning seat (numpy outputs).

    Args:
        num_envs: number of games.
        learner: player id of the learning seat in every game.
        opponents: one policy for every other seat, or a list with one per
            player id (the learner's entry is ignored); default random.
        seed: default seed of `reset`.
        backend, device: the engine's backend (outputs are numpy either way).
        **config: [`ScumConfig`][scum_env.config.ScumConfig] fields.
    """

    def __init__(
        self,
        num_envs: int,
        *,
        learner: int = 0,
        opponents: BatchPolicy | Sequence[BatchPolicy] | None = None,
        seed: int = 0,
        backend: str = "numpy",
        device: str | None = None,
        **config: Any,
    ) -> None:
        """Create the games; call `reset` next."""
        engine = BatchedScum(num_envs, backend=backend, device=device, **config)
        super().__init__(engine, learner=learner, opponents=opponents, seed=seed)
