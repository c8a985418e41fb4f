"""The shared batched adapters (`cardsuite.batched`) over `BatchedParty`.

* `PartyVectorEnv`: a Gymnasium ``VectorEnv`` of one learning seat
  (wrap it with [`cardsuite.batched.sb3_vec_env`][cardsuite.batched.sb3_vec_env] for ``MaskablePPO``);
  the learner keeps its player id as it climbs and falls between tables.
* `play_party_arena`: per-seat mean tournament returns of batch policies.
* `ShardedParty`: one numpy batch stepped by several threads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cardsuite.batched.arena import ArenaResult, run_arena
from cardsuite.batched.checks import check_players
from cardsuite.batched.policies import BatchPolicy
from cardsuite.batched.sharded import ShardedGames
from cardsuite.batched.vector_env import GameVectorEnv
from scum_env.party.batched.engine import BatchedParty


class PartyVectorEnv(GameVectorEnv):
    """``num_envs`` Scum Party tournaments seen from one learning seat (numpy outputs).

    Arguments as [`GameVectorEnv`][cardsuite.batched.vector_env.GameVectorEnv];
    ``**config`` are [`PartyConfig`][scum_env.party.config.PartyConfig] fields.
    """

    ENGINE = BatchedParty


def play_party_arena(
    policies: Sequence[BatchPolicy], episodes: int, *, batch: int = 1024, **options: Any
) -> ArenaResult:
    """Play ``episodes`` tournaments with ``policies[p]`` as player ``p``; mean returns per seat.

    ``options``: ``seed``, the engine's ``backend`` and ``device``, and
    [`PartyConfig`][scum_env.party.config.PartyConfig] fields.
    """
    return run_arena(BatchedParty, policies, episodes, batch=batch, **options)


class ShardedParty(ShardedGames):
    """``num_games`` numpy tournaments stepped by ``threads`` threads (identical results)."""

    ENGINE = BatchedParty

    def observe_as(self, player: Any) -> np.ndarray:
        """A new ``[N, obs_dim]``: each game as ``player`` sees it (an int or ``[N]``
        ids; see `BatchedParty.observe_as`)."""
        ids = check_players(self.xp, player, self.num_games, self.num_players)
        views = [
            shard.observe_as(ids[s]) for shard, s in zip(self.shards, self.slices, strict=True)
        ]
        return np.concatenate(views, axis=0)
