"""Batched Scum: thousands of games per call as array operations (numpy or torch).

* [`BatchedScum`][scum_env.batched.engine.BatchedScum]: N games as arrays; ``reset``
  and ``step`` give ``[N, obs_dim]`` observations, ``[N, A]`` masks, the
  player to act, per-seat rewards ``[N, P]`` and done flags, with the exact
  observation and action layout of ``scum_v0``.
* `ShardedScum`: one numpy batch stepped by
  several threads.
* `ScumVectorEnv` and
  [`sb3_vec_env`][scum_env.batched.vector_env.sb3_vec_env]: one learning seat for
  Gymnasium and ``MaskablePPO``.
* `play_arena`: fast evaluation of policies per seat.

See ``docs/batched.md``.
"""

from scum_env.batched.arena import ArenaResult, play_arena
from scum_env.batched.engine import BatchedScum, StepResult
from scum_env.batched.policies import LowestFirstPolicy, RandomPolicy, make_policy, sb3_policy
from scum_env.batched.sharded import ShardedScum
from scum_env.batched.vector_env import ScumVectorEnv, sb3_vec_env

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
