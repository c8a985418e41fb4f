"""Batched Scum: thousands of games per call as array operations (numpy or torch).

* [`BatchedScum`][scum_env.batched.engine.BatchedScum]: N games as arrays; ``reset``
  and ``step`` give ``[N, obs_dim]`` observations, ``[N, A]`` masks, the
  player to act, per-seat rewards ``[N, P]`` and done flags, with the exact
  observation and action layout of ``scum_v0``.
* `ScumVectorEnv` / `sb3_vec_env` (one learning seat for Gymnasium and
  ``MaskablePPO``), `ShardedScum` (one numpy batch on several threads) and
  `play_arena` (fast evaluation per seat): the shared adapters of
  [`cardsuite.batched`][cardsuite.batched] over it (`scum_env.batched.adapters`).
* `LowestFirstPolicy` and `make_policy`: batched policies (`scum_env.batched.policies`).

See ``docs/batched.md``. The modules ``arena``, ``sharded`` and ``vector_env``
are now ``adapters``, and ``backend`` and ``deal`` are `cardsuite.batched`'s;
their old names import with a `DeprecationWarning`.
"""

from cardsuite.moved import alias_modules
from scum_env.batched.adapters import (
    ArenaResult,
    ScumVectorEnv,
    ShardedScum,
    play_arena,
    sb3_vec_env,
)
from scum_env.batched.engine import BatchedScum, StepResult
from scum_env.batched.policies import LowestFirstPolicy, RandomPolicy, make_policy, sb3_policy

alias_modules(
    {
        "scum_env.batched.arena": "scum_env.batched.adapters",
        "scum_env.batched.sharded": "scum_env.batched.adapters",
        "scum_env.batched.vector_env": "scum_env.batched.adapters",
        "scum_env.batched.backend": "cardsuite.batched.backend",
        "scum_env.batched.deal": "cardsuite.batched.deal",
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
