"""Batched Scandal: thousands of games per call as array operations (numpy or torch).

* [`BatchedScandal`][scandal_env.batched.engine.BatchedScandal]: N games as arrays;
  ``reset`` and ``step`` give ``[N, obs_dim]`` observations, ``[N, A]`` masks,
  the player to act, per-seat rewards ``[N, P]``, done and truncated flags,
  with the exact observation and action layout of ``scandal_v0``.
* `ShardedScandal`: one numpy batch
  stepped by several threads.
* The shared adapters serve it unchanged: ``cardsuite.batched``'s
  ``BatchedVectorEnv`` / ``sb3_vec_env`` (one learning seat) and ``run_arena``.

See ``docs/batched.md``.
"""

from scandal_env.batched.engine import BatchedScandal, ScandalStepResult
from scandal_env.batched.sharded import ShardedScandal

__all__ = ["BatchedScandal", "ScandalStepResult", "ShardedScandal"]
