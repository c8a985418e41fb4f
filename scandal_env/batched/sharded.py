"""Several CPU threads stepping one batch of Scandal: :class:`ShardedScandal`.

A thin Scandal front of :class:`cardsuite.batched.sharded.ShardedEngine`: the
games split into contiguous shards of :class:`BatchedScandal` stepped by
parallel threads (numpy releases the GIL), each dealing from its games'
global streams and writing into rows of shared outputs, so a sharded batch
plays exactly like one :class:`BatchedScandal` of the same seed and N
(``truncated`` included).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.batched.sharded import ShardedEngine
from cardsuite.errors import UsageError
from scandal_env.batched.engine import BatchedScandal


class ShardedScandal(ShardedEngine):
    """``num_games`` numpy Scandal games stepped by ``threads`` threads.

    Args:
        num_games: N.
        threads: worker threads (shards), at most N.
        autoreset: as :class:`BatchedScandal`.
        **config: :class:`~scandal_env.config.ScandalConfig` fields.
    """

    def __init__(
        self, num_games: int, *, threads: int = 2, autoreset: bool = True, **config: Any
    ) -> None:
        """Split the batch into :class:`BatchedScandal` shards that share output buffers."""

        def factory(n: int, offset: int, buffers: Any) -> BatchedScandal:
            return BatchedScandal(
                n, autoreset=autoreset, game_offset=offset, buffers=buffers, **config
            )

        super().__init__(factory, num_games, threads=threads)
        self.rules = self.probe.rules
        self.config = self.probe.config

    def observe_as(self, player: Any) -> np.ndarray:
        """A new ``[N, obs_dim]``: each game as ``player`` sees it (see
        :meth:`BatchedScandal.observe_as`; ``player`` an int or ``[N]`` ids)."""
        if isinstance(player, int | np.integer) and not isinstance(player, bool | np.bool_):
            views = [shard.observe_as(player) for shard in self.shards]
        else:
            ids = np.asarray(player)
            if ids.shape != (self.num_games,):
                raise UsageError(
                    f"observe_as: player must be an int or {self.num_games} player ids, "
                    f"got shape {ids.shape}"
                )
            views = [shard.observe_as(ids[s]) for shard, s in zip(self.shards, self.slices)]
        return np.concatenate(views, axis=0)
