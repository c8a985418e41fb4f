"""The shared batched adapters (`cardsuite.batched`) over `BatchedScum`.

`ScumVectorEnv` (one learning seat; the learner keeps its player id while its
role changes, J3), `ShardedScum` (one numpy batch on several threads, playing
exactly like one `BatchedScum`) and `play_arena` (per-seat mean rewards).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardsuite.batched.arena import ArenaResult, run_arena
from cardsuite.batched.policies import BatchPolicy
from cardsuite.batched.sharded import ShardedGames
from cardsuite.batched.vector_env import GameVectorEnv, sb3_vec_env
from scum_env.batched.engine import BatchedScum

__all__ = ["ArenaResult", "ScumVectorEnv", "ShardedScum", "play_arena", "sb3_vec_env"]


class ScumVectorEnv(GameVectorEnv):
    """``num_envs`` Scum games seen from one learning seat (numpy outputs).

    Arguments as [`GameVectorEnv`][cardsuite.batched.vector_env.GameVectorEnv];
    ``**config`` are [`ScumConfig`][scum_env.config.ScumConfig] fields.
    """

    ENGINE = BatchedScum


class ShardedScum(ShardedGames):
    """``num_games`` numpy Scum games stepped by ``threads`` threads; `BatchedScum`'s API.

    Arguments as [`ShardedGames`][cardsuite.batched.sharded.ShardedGames];
    ``**config`` are [`ScumConfig`][scum_env.config.ScumConfig] fields.
    """

    ENGINE = BatchedScum


def play_arena(
    policies: Sequence[BatchPolicy], episodes: int, *, batch: int = 4096, **options: Any
) -> ArenaResult:
    """Play ``episodes`` episodes with ``policies[p]`` in seat ``p``; per-seat mean rewards
    (`cardsuite.batched.run_arena`; ``options``: ``seed``, ``backend``, ``device`` and
    [`ScumConfig`][scum_env.config.ScumConfig] fields)."""
    return run_arena(BatchedScum, policies, episodes, batch=batch, **options)
