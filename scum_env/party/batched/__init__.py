"""Batched Scum Party: thousands of tournaments per call as array operations (numpy or torch).

[`BatchedParty`][scum_env.party.batched.engine.BatchedParty] holds N
tournaments, every table as padded arrays, with the exact layouts of
``scum_party_v0``; `PartyVectorEnv`, `play_party_arena` and `ShardedParty` are
the shared adapters over it. See ``docs/batched.md``. The old module names
``views`` and ``adapters`` import with a `DeprecationWarning`.
"""

from cardsuite.moved import alias_modules
from scum_env.party.batched.engine import (
    BatchedParty,
    PartyVectorEnv,
    ShardedParty,
    play_party_arena,
)

alias_modules(
    {
        "scum_env.party.batched.views": "scum_env.party.batched.engine",
        "scum_env.party.batched.adapters": "scum_env.party.batched.engine",
    }
)

__all__ = ["BatchedParty", "PartyVectorEnv", "ShardedParty", "play_party_arena"]
