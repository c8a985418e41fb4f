"""The shared batched adapters (`cardsuite.batched`) over `BatchedParty`.

`PartyVectorEnv` (one learning seat, which keeps its player id as it climbs
and falls between tables), `play_party_arena` and `ShardedParty`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardsuite.batched.arena import ArenaResult, run_arena
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
