"""Batched Scum: thousands of games per call as array operations (numpy or torch).

[`BatchedScum`][scum_env.batched.engine.BatchedScum] holds N games with the
exact observation and action layout of ``scum_v0``; the shared adapters of
[`cardsuite.batched`][cardsuite.batched] serve it under Scum's names
(`ScumVectorEnv`, `sb3_vec_env`, `ShardedScum`, `play_arena`), beside the
batch policies (`LowestFirstPolicy`, `make_policy`). See ``docs/batched.md``.
The old module names ``arena``, ``sharded``, ``vector_env``, ``backend``, ``deal``,
``trades``, ``views`` and ``adapters`` import with a `DeprecationWarning`.
"""

from cardsuite.batched.arena import ArenaResult
from cardsuite.batched.vector_env import sb3_vec_env
from cardsuite.moved import alias_modules
from scum_env.batched.engine import BatchedScum, ScumVectorEnv, ShardedScum, StepResult, play_arena
from scum_env.batched.policies import LowestFirstPolicy, RandomPolicy, make_policy, sb3_policy

alias_modules(
    {
        "scum_env.batched.arena": "scum_env.batched.engine",
        "scum_env.batched.sharded": "scum_env.batched.engine",
        "scum_env.batched.vector_env": "scum_env.batched.engine",
        "scum_env.batched.backend": "cardsuite.batched.backend",
        "scum_env.batched.deal": "cardsuite.batched.deal",
        "scum_env.batched.trades": "scum_env.batched.series",
        "scum_env.batched.views": "scum_env.batched.engine",
        "scum_env.batched.adapters": "scum_env.batched.engine",
    }
)

__all__ = [
    "ArenaResult",
    "BatchedScum",
    "LowestFirstPolicy",
    "RandomPolicy",
    "ScumVectorEnv",
    "ShardedScum",
    "StepResult",
    "make_policy",
    "play_arena",
    "sb3_policy",
    "sb3_vec_env",
]
