"""Several CPU threads stepping one batch of Scum: `ShardedScum`.

A thin Scum front of [`cardsuite.batched.sharded.ShardedEngine`][cardsuite.batched.sharded.ShardedEngine]: the
games split into contiguous shards of [`BatchedScum`][scum_env.batched.engine.BatchedScum] stepped by
threads, each dealing from its games' global streams and writing into rows
of shared outputs, so a sharded batch plays exactly like one
[`BatchedScum`][scum_env.batched.engine.BatchedScum] of the same seed and N.
"""

from __future__ import annotations

from typing import Any

from cardsuite.batched.sharded import ShardedEngine
from scum_env.batched.engine import BatchedScum


class ShardedScum(ShardedEngine):
    """``num_games`` numpy Scum games stepped by ``threads`` threads; `BatchedScum`'s API.

    Args:
        num_games: N.
        threads: worker threads (shards), at most N.
        autoreset: as [`BatchedScum`][scum_env.batched.engine.BatchedScum].
        **config: [`ScumConfig`][scum_env.config.ScumConfig] fields.
    """

    def __init__(
        self, num_games: int, *, threads: int = 2, autoreset: bool = True, **config: Any
    ) -> None:
        """Split the batch into `BatchedScum` shards that share output buffers."""

        def factory(n: int, offset: int, buffers: Any) -> BatchedScum:
            return BatchedScum(
                n, autoreset=autoreset, game_offset=offset, buffers=buffers, **config
            )

        super().__init__(factory, num_games, threads=threads)
        self.rules = self.probe.rules
