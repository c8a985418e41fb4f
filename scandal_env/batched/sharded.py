"""Several CPU threads stepping one batch of Scandal: `ShardedScandal`.

A thin Scandal front of [`cardsuite.batched.sharded.ShardedEngine`][cardsuite.batched.sharded.ShardedEngine]: the
games split into contiguous shards of [`BatchedScandal`][scandal_env.batched.engine.BatchedScandal] stepped by
parallel threads (numpy releases the GIL), each dealing from its games'
global streams and writing into rows of shared outputs, so a sharded batch
plays exactly like one [`BatchedScandal`][scandal_env.batched.engine.BatchedScandal] of the same seed and N
(``truncated`` included). ``observe_as``, ``restart_games`` and the
all-or-nothing ``step`` come from the shared `ShardedEngine`.
"""

from __future__ import annotations

from typing import Any

from cardsuite.batched.sharded import ShardedEngine
from scandal_env.batched.engine import BatchedScandal


class ShardedScandal(ShardedEngine):
    """``num_games`` numpy Scandal games stepped by ``threads`` threads.

    Args:
        num_games: N.
        threads: worker threads (shards), at most N.
        autoreset: as [`BatchedScandal`][scandal_env.batched.engine.BatchedScandal].
        **config: [`ScandalConfig`][scandal_env.config.ScandalConfig] fields.
    """

    def __init__(
        self, num_games: int, *, threads: int = 2, autoreset: bool = True, **config: Any
    ) -> None:
        """Split the batch into `BatchedScandal` shards that share output buffers."""

        def factory(n: int, offset: int, buffers: Any) -> BatchedScandal:
            return BatchedScandal(
                n, autoreset=autoreset, game_offset=offset, buffers=buffers, **config
            )

        super().__init__(factory, num_games, threads=threads)
        self.rules = self.probe.rules
        self.config = self.probe.config
