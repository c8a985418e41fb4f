"""Batched Scandal: thousands of games per call as array operations (numpy or torch).

[`BatchedScandal`][scandal_env.batched.engine.BatchedScandal] holds N games
with the exact layouts of ``scandal_v0`` (``truncated`` flags included);
`ShardedScandal` steps one numpy batch on several threads, and the shared
adapters of ``cardsuite.batched`` serve it unchanged. See ``docs/batched.md``.
The old module names ``sharded``, and ``rollout`` and ``rollout_policy`` (the
search's compiled kernels, under ``cardsuite.agents.search.kernels`` since 0.3),
import with a `DeprecationWarning`. The kernels' names are strings here: their
package loads only when a caller asks for the old name, so no import climbs.
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
