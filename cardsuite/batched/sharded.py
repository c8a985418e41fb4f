"""Several CPU threads stepping one batch: shards of any numpy batched engine.

numpy runs each array operation on one core but releases the GIL while it
works, so the games of one batch split into ``threads`` shards (contiguous
game ranges) step in parallel threads. Each shard is built by the game's
factory with ``game_offset`` (its games' global indices, so it deals from the
same streams) and ``buffers`` (rows of shared output arrays), so a sharded
batch plays, observes and rewards exactly like one engine of the same seed
and N (the :mod:`~cardsuite.batched.protocol` contract).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from cardsuite.batched.protocol import StepResult
from cardsuite.errors import ConfigError, IllegalActionError

ShardFactory = Callable[[int, int, tuple[np.ndarray, np.ndarray] | None], Any]
"""``factory(num_games, game_offset, buffers)``: one numpy engine shard."""


class ShardedEngine:
    """``num_games`` numpy games stepped by ``threads`` threads; the engine API.

    Args:
        factory: builds a shard: ``factory(num_games, game_offset, buffers)``
            with ``buffers=(obs [n, D] float32, mask [n, A] bool)`` or ``None``
            (a probe of one game, to read the sizes).
        num_games: N.
        threads: worker threads (shards), at most N.
    """

    def __init__(self, factory: ShardFactory, num_games: int, *, threads: int = 2) -> None:
        """Split the batch into shards that share output buffers."""
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ConfigError(f"threads must be a positive integer, got {threads!r}")
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise ConfigError(f"num_games must be a positive integer, got {num_games!r}")
        probe = factory(1, 0, None)
        self.probe = probe
        self.xp = probe.xp
        self.num_games = num_games
        self.num_players = probe.num_players
        self.num_actions = probe.num_actions
        self.obs_dim = probe.obs_dim
        self.obs_spec = probe.obs_spec
        self.obs = np.zeros((num_games, self.obs_dim), dtype=np.float32)
        self.mask = np.zeros((num_games, self.num_actions), dtype=bool)
        bounds = np.linspace(0, num_games, min(threads, num_games) + 1).astype(int)
        self.slices = [slice(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
        self.shards = [
            factory(s.stop - s.start, s.start, (self.obs[s], self.mask[s])) for s in self.slices
        ]
        self._pool = ThreadPoolExecutor(max_workers=len(self.shards))

    def reset(self, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start a new game in every slot; ``(obs, mask, to_act)``."""
        outs = list(self._pool.map(lambda sh: sh.reset(seed), self.shards))
        return self.obs, self.mask.view(np.int8), np.concatenate([o[2] for o in outs])

    def step(self, actions: Any, active: Any = None) -> StepResult:
        """One action in every (active) game, the shards in parallel.

        An illegal action raises in its shard; shards that already stepped are
        not rolled back (use one engine where that matters).
        """
        a = np.asarray(actions, dtype=np.int64).reshape(-1)
        act = None if active is None else np.asarray(active, dtype=bool).reshape(-1)
        if a.shape[0] != self.num_games:
            raise IllegalActionError(f"step needs {self.num_games} actions, got {a.shape[0]}")

        def run(i: int) -> Any:
            s = self.slices[i]
            return self.shards[i].step(a[s], None if act is None else act[s])

        outs = list(self._pool.map(run, range(len(self.shards))))
        truncated = getattr(outs[0], "truncated", None)
        return StepResult(
            self.obs,
            self.mask.view(np.int8),
            np.concatenate([o.to_act for o in outs]),
            np.concatenate([o.rewards for o in outs]),
            np.concatenate([o.done for o in outs]),
            None if truncated is None else np.concatenate([o.truncated for o in outs]),
        )

    def to_act(self) -> np.ndarray:
        """``[N]`` player id to act in each game."""
        return np.concatenate([sh.to_act() for sh in self.shards])

    def bytes_per_game(self) -> float:
        """Bytes of state, observation and mask held per game."""
        return sum(sh.bytes_per_game() * sh.num_games for sh in self.shards) / self.num_games

    def close(self) -> None:
        """Stop the worker threads."""
        self._pool.shutdown()
