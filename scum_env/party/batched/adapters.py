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
from cardsuite.batched.sharded import ShardedEngine
from cardsuite.batched.vector_env import BatchedVectorEnv
from scum_env.party.batched.engine import BatchedParty


class PartyVectorEnv(BatchedVectorEnv):
    """``num_envs`` Scum Party tournaments seen from one learning seat (numpy outputs).

    Args:
        num_envs: number of tournaments.
        learner: player id of the learning seat.
        opponents: one policy for every other seat, or one per player id.
        seed: default seed of ``reset``.
        backend, device: the engine's backend.
        **config: [`PartyConfig`][scum_env.party.config.PartyConfig] fields.
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
        """Create the tournaments; call ``reset`` next."""
        engine = BatchedParty(num_envs, backend=backend, device=device, **config)
        super().__init__(engine, learner=learner, opponents=opponents, seed=seed)


def play_party_arena(
    policies: Sequence[BatchPolicy],
    episodes: int,
    *,
    batch: int = 1024,
    seed: int = 0,
    backend: str = "numpy",
    device: str | None = None,
    **config: Any,
) -> ArenaResult:
    """Play ``episodes`` tournaments with ``policies[p]`` as player ``p``; mean returns per seat."""

    def make(slots: int) -> BatchedParty:
        return BatchedParty(slots, backend=backend, device=device, **config)

    return run_arena(make, policies, episodes, batch=batch, seed=seed)


class ShardedParty(ShardedEngine):
    """``num_games`` numpy tournaments stepped by ``threads`` threads (identical results)."""

    def __init__(
        self, num_games: int, *, threads: int = 2, autoreset: bool = True, **config: Any
    ) -> None:
        """Split the batch into `BatchedParty` shards sharing output buffers."""

        def factory(n: int, offset: int, buffers: Any) -> BatchedParty:
            return BatchedParty(
                n, autoreset=autoreset, game_offset=offset, buffers=buffers, **config
            )

        super().__init__(factory, num_games, threads=threads)

    def observe_as(self, player: Any) -> np.ndarray:
        """A new ``[N, obs_dim]``: each game as ``player`` sees it (an int or ``[N]``
        ids; see `BatchedParty.observe_as`)."""
        ids = check_players(self.xp, player, self.num_games, self.num_players)
        views = [
            shard.observe_as(ids[s]) for shard, s in zip(self.shards, self.slices, strict=True)
        ]
        return np.concatenate(views, axis=0)
