"""Batched Scum Party: thousands of tournaments per call as array operations (numpy or torch).

* [`BatchedParty`][scum_env.party.batched.engine.BatchedParty]: N tournaments, every
  table as padded arrays; ``reset``/``step`` give ``[N, obs_dim]``
  observations, ``[N, A]`` masks, the player to act, per-seat rewards
  ``[N, n]`` and done flags, with the exact layouts of ``scum_party_v0``.
* `PartyVectorEnv`, `play_party_arena`, `ShardedParty`:
  the shared adapters of [`cardsuite.batched`][cardsuite.batched] over it.

See ``docs/batched.md``.
"""

from scum_env.party.batched.adapters import PartyVectorEnv, ShardedParty, play_party_arena
from scum_env.party.batched.engine import BatchedParty

__all__ = ["BatchedParty", "PartyVectorEnv", "ShardedParty", "play_party_arena"]
