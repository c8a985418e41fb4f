"""Batched Scandal: thousands of games per call as array operations (numpy or torch).

[`BatchedScandal`][scandal_env.batched.engine.BatchedScandal] holds N games
with the exact layouts of ``scandal_v0`` (``truncated`` flags included);
`ShardedScandal` steps one numpy batch on several threads, and the shared
adapters of ``cardsuite.batched`` serve it unchanged. See ``docs/batched.md``.
The old module names ``sharded``, ``rollout`` and ``rollout_policy`` import
with a `DeprecationWarning`.
"""

from cardsuite.moved import alias_modules
from scandal_env.batched.engine import BatchedScandal, ScandalStepResult, ShardedScandal

alias_modules(
    {
        "scandal_env.batched.sharded": "scandal_env.batched.engine",
        "scandal_env.batched.rollout": "cardsuite.agents.search.kernels.scandal_heuristic",
        "scandal_env.batched.rollout_policy": "cardsuite.agents.search.kernels.scandal_policy",
    }
)

__all__ = ["BatchedScandal", "ScandalStepResult", "ShardedScandal"]
