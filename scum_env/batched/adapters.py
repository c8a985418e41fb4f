"""The shared batched adapters (`cardsuite.batched`) over `BatchedScum`.

* `ScumVectorEnv`: a Gymnasium ``VectorEnv`` of one learning seat; the other
  seats are played inside the batch by the ``opponents`` (random, the
  lowest-first heuristic, or the learner itself through ``sb3_policy``). The
  learner keeps its player id while its role changes from series to series
  (J3); rewards are ``scum_v0``'s, at the episode end. `sb3_vec_env` wraps it
  for ``MaskablePPO``.
* `ShardedScum`: one numpy batch stepped by several threads, each shard
  dealing from its games' global streams, so it plays exactly like one
  `BatchedScum` of the same seed and N.
* `play_arena`: each seat's mean episode reward (running games, so later
  series have trades) with a 95% confidence half-width.
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
    """Play ``episodes`` episodes with ``policies[p]`` in seat ``p``; per-seat mean rewards.

    Args:
        policies: one batch policy per player id (the same object may fill
            several seats; it is then called once per step for all of them).
        episodes: episodes to play in all.
        batch: game slots stepped together.
        **options: ``seed`` (of the deals), the engine's ``backend`` and
            ``device``, and [`ScumConfig`][scum_env.config.ScumConfig] fields.
    """
    return run_arena(BatchedScum, policies, episodes, batch=batch, **options)
