"""Several CPU threads stepping one batch of Scandal: `ShardedScandal`.

A sharded batch plays exactly like one
[`BatchedScandal`][scandal_env.batched.engine.BatchedScandal] of the same seed
and N (``truncated`` included); see [`ShardedEngine`][cardsuite.batched.sharded.ShardedEngine].
"""

from __future__ import annotations

from cardsuite.batched.sharded import ShardedGames
from scandal_env.batched.engine import BatchedScandal


class ShardedScandal(ShardedGames):
    """``num_games`` numpy Scandal games stepped by ``threads`` threads.

    Arguments as [`ShardedGames`][cardsuite.batched.sharded.ShardedGames];
    ``**config`` are [`ScandalConfig`][scandal_env.config.ScandalConfig] fields.
    """

    ENGINE = BatchedScandal
