"""Several CPU threads stepping one batch: shards of :class:`BatchedScum`.

numpy runs each array operation on one core but releases the GIL while it
works, so the games of one batch split into ``threads`` shards (contiguous
game ranges) step in parallel threads. Each shard deals from the streams of
its games' global indices and writes its observations and masks straight
into rows of shared output arrays, so a sharded batch plays, observes and
rewards exactly like one :class:`BatchedScum` of the same seed and N.
"""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from cardsuite.errors import ConfigError
from scum_env.batched.engine import BatchedScum, StepResult


class ShardedScum:
    """``num_games`` numpy games stepped by ``threads`` threads; :class:`BatchedScum`'s API.

    Args:
        num_games: N.
        threads: worker threads (shards), at most N.
        autoreset: as :class:`BatchedScum`.
        **config: :class:`~scum_env.config.ScumConfig` fields.
    """

    def __init__(
        self, num_games: int, *, threads: int = 2, autoreset: bool = True, **config: Any
    ) -> None:
        """Split the batch into shards that share output buffers."""
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ConfigError(f"threads must be a positive integer, got {threads!r}")
        probe = BatchedScum(1, **config)
        self.rules = probe.rules
        self.num_games = num_games
        self.num_actions = probe.num_actions
        self.obs_dim = probe.obs_dim
        self.obs = np.zeros((num_games, self.obs_dim), dtype=np.float32)
        self.mask = np.zeros((num_games, self.num_actions), dtype=bool)
        bounds = np.linspace(0, num_games, min(threads, num_games) + 1).astype(int)
        self.slices = [slice(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
        self.shards = [
            BatchedScum(
                s.stop - s.start,
                autoreset=autoreset,
                game_offset=s.start,
                buffers=(self.obs[s], self.mask[s]),
                **config,
            )
            for s in self.slices
        ]
        self._pool = ThreadPoolExecutor(max_workers=len(self.shards))

    def reset(self, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start a new game in every slot; ``(obs, mask, to_act)``."""
        outs = list(self._pool.map(lambda sh: sh.reset(seed), self.shards))
        return self.obs, self.mask.view(np.int8), np.concatenate([o[2] for o in outs])

    def step(self, actions: Any, active: Any = None) -> StepResult:
        """One action in every (active) game, the shards in parallel."""
        a = np.asarray(actions, dtype=np.int64).reshape(-1)
        act = None if active is None else np.asarray(active, dtype=bool).reshape(-1)
        if a.shape[0] != self.num_games:
            from cardsuite.errors import IllegalActionError

            raise IllegalActionError(f"step needs {self.num_games} actions, got {a.shape[0]}")

        def run(i: int) -> StepResult:
            s = self.slices[i]
            return self.shards[i].step(a[s], None if act is None else act[s])

        outs = list(self._pool.map(run, range(len(self.shards))))
        return StepResult(
            self.obs,
            self.mask.view(np.int8),
            np.concatenate([o.to_act for o in outs]),
            np.concatenate([o.rewards for o in outs]),
            np.concatenate([o.done for o in outs]),
        )

    def bytes_per_game(self) -> float:
        """Bytes of state, observation and mask held per game."""
        return sum(sh.bytes_per_game() * sh.num_games for sh in self.shards) / self.num_games

    def close(self) -> None:
        """Stop the worker threads."""
        self._pool.shutdown()
