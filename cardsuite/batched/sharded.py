"""Several CPU threads stepping one batch: shards of any numpy batched engine.

numpy releases the GIL while it works, so the games of one batch, split into
``threads`` shards of contiguous games, step in parallel threads. Each shard
is built with ``game_offset`` (it deals from its games' global streams) and
``buffers`` (its rows of shared outputs), so a sharded batch plays exactly
like one engine of the same seed and N.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

import numpy as np

from cardsuite.batched.checks import check_players
from cardsuite.batched.protocol import StepResult
from cardsuite.errors import ConfigError, IllegalActionError, UsageError

_GAME = re.compile(r"^game (\d+):")


class _Snapshot:
    """A shard's state before a step: copies of its arrays, restored in place (views stay views)."""

    def __init__(self, shard: Any, shared: tuple[np.ndarray, ...]) -> None:
        self.shard = shard
        self.attrs = dict(vars(shard))
        arrays = [
            v
            for v in self.attrs.values()
            if isinstance(v, np.ndarray) and not any(np.may_share_memory(v, b) for b in shared)
        ]  # views of the shared rows are restored through those rows, copied once
        self.arrays = [(arr, arr.copy()) for arr in (*arrays, *shared)]

    def restore(self) -> None:
        for arr, saved in self.arrays:
            arr[...] = saved
        for name, value in self.attrs.items():
            if getattr(self.shard, name, None) is not value:
                setattr(self.shard, name, value)
        for name in set(vars(self.shard)) - set(self.attrs):
            delattr(self.shard, name)


def _in_batch(err: Exception, offset: int) -> Exception:
    """``err`` with a shard's game index (``game 3: ...``) made the batch's."""
    if offset == 0 or not isinstance(err, IllegalActionError):
        return err
    text = _GAME.sub(lambda m: f"game {int(m[1]) + offset}:", str(err), count=1)
    return IllegalActionError(text)


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
        for name, value in (("threads", threads), ("num_games", num_games)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
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
        """One action in every (active) game, the shards in parallel; all or nothing.

        Each shard copies its state before it steps (about a tenth of a Scum
        step); if any shard raises, every shard is put back as it was and the
        first error in game order is raised.

        Raises:
            IllegalActionError: not ``N`` actions, or an action a shard refuses
                (the message names the game by its index in the whole batch).
            UsageError: ``active`` is not ``N`` bools (from the shard).
        """
        try:
            a = np.asarray(actions).reshape(-1)  # each shard checks the ids and dtype
        except (TypeError, ValueError):
            raise IllegalActionError(
                f"step needs {self.num_games} integer action ids, got {type(actions).__name__}"
            ) from None
        act = None if active is None else np.asarray(active).reshape(-1)
        if a.shape[0] != self.num_games:
            raise IllegalActionError(f"step needs {self.num_games} actions, got {a.shape[0]}")
        if a.dtype.kind == "f" and not np.all(np.isfinite(a) & (a == np.round(a))):
            bad = int(np.flatnonzero(~(np.isfinite(a) & (a == np.round(a))))[0])
            raise IllegalActionError(
                f"game {bad}: action {float(a[bad])} is not a whole-number id (no game was changed)"
            )

        def run(i: int) -> tuple[_Snapshot, Any, Exception | None]:
            s = self.slices[i]
            snap = _Snapshot(self.shards[i], (self.obs[s], self.mask[s]))
            try:
                return snap, self.shards[i].step(a[s], None if act is None else act[s]), None
            except Exception as err:  # every shard is restored below, then it is raised
                return snap, None, err

        runs = list(self._pool.map(run, range(len(self.shards))))
        failed = [(i, err) for i, (_, _, err) in enumerate(runs) if err is not None]
        if failed:
            for snap, _, _ in runs:
                snap.restore()
            i, err = failed[0]
            raise _in_batch(err, self.slices[i].start) from err
        outs = [out for _, out, _ in runs]
        truncated = getattr(outs[0], "truncated", None)
        return StepResult(
            self.obs,
            self.mask.view(np.int8),
            np.concatenate([o.to_act for o in outs]),
            np.concatenate([o.rewards for o in outs]),
            np.concatenate([o.done for o in outs]),
            None if truncated is None else np.concatenate([o.truncated for o in outs]),
        )

    @property
    def autoreset(self) -> bool:
        """Whether the shards restart finished games inside `step` (settable)."""
        return all(bool(sh.autoreset) for sh in self.shards)

    @autoreset.setter
    def autoreset(self, value: bool) -> None:
        for sh in self.shards:
            sh.autoreset = bool(value)

    def restart_games(self, games: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Restart the games flagged in ``games`` (``[N]`` bools); ``(obs, mask, to_act)``."""
        flags = np.asarray(games, dtype=bool).reshape(-1)
        if flags.shape[0] != self.num_games:
            raise UsageError(f"restart_games needs {self.num_games} flags, got {flags.shape[0]}")
        outs = [sh.restart_games(flags[s]) for sh, s in zip(self.shards, self.slices, strict=True)]
        return self.obs, self.mask.view(np.int8), np.concatenate([o[2] for o in outs])

    def observe_as(self, player: Any) -> np.ndarray:
        """A new ``[N, obs_dim]``: each game as ``player`` sees it (an int or ``[N]`` ids)."""
        ids = check_players(self.xp, player, self.num_games, self.num_players)
        views = [sh.observe_as(ids[s]) for sh, s in zip(self.shards, self.slices, strict=True)]
        return np.concatenate([np.asarray(v) for v in views], axis=0)

    def to_act(self) -> np.ndarray:
        """``[N]`` player id to act in each game."""
        return np.concatenate([sh.to_act() for sh in self.shards])

    def bytes_per_game(self) -> float:
        """Bytes of state, observation and mask held per game."""
        return sum(sh.bytes_per_game() * sh.num_games for sh in self.shards) / self.num_games

    def close(self) -> None:
        """Stop the worker threads."""
        self._pool.shutdown()


class ShardedGames(ShardedEngine):
    """`ShardedEngine` over a game's engine class ``ENGINE``, with the engine's API.

    Args:
        num_games: N.
        threads: worker threads (shards), at most N.
        autoreset: as the engine's.
        **config: the game's config fields.
    """

    #: The game's batched engine class (an `ArrayGames`).
    ENGINE: ClassVar[Callable[..., Any]]

    def __init__(
        self, num_games: int, *, threads: int = 2, autoreset: bool = True, **config: Any
    ) -> None:
        """Split the batch into engine shards that share output buffers."""
        engine = self.ENGINE

        def factory(n: int, offset: int, buffers: Any) -> Any:
            return engine(n, autoreset=autoreset, game_offset=offset, buffers=buffers, **config)

        super().__init__(factory, num_games, threads=threads)
        self.rules = self.probe.rules
        self.config = self.probe.config
