"""The RLlib trainer's League: the core's `League` on the driver, its draw table on the runners.

At every snapshot and checkpoint the driver records every runner's outcomes, adds the
learner's snapshot and sends the draw table back (`sync_league`); a runner RLlib restarts
gets it again (`LeagueCallbacks`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback

from cardsuite.agents.learned.netspec import Snapshot
from cardsuite.agents.learned.rllib import spec_scale
from cardsuite.moved import moved_getattr, moved_table
from cardsuite.train.core.league import League
from cardsuite.train.rllib.batched_env import make_engine
from cardsuite.train.rllib.config import ILLEGAL_ACTIONS, RLlibTrainConfig


def make_league(config: RLlibTrainConfig) -> League:
    """The run's League: its ``baselines``, ``max_snapshots`` snapshots kept, ``pfsp``, the
    run's seed; snapshots play on the game's observation scale."""
    c, options = config, config.env_options()
    return League.of(c.game, make_engine(c.game, 1, options), c.names("baselines"), seed=c.seed,
                     max_snapshots=c.max_snapshots, pfsp=c.pfsp,
                     scale=spec_scale(c.game, options))  # fmt: skip


def runner_envs(env_runner: Any) -> list[Any]:
    """The suite envs of one env runner (the per-game envs, or the batched games)."""
    env = getattr(env_runner, "env", None)
    subs = getattr(env, "envs", None) or getattr(getattr(env, "unwrapped", None), "envs", None)
    return [] if env is None else [e.unwrapped for e in subs] if subs else [env.unwrapped]


def merge_outcomes(league: League, parts: Iterable[tuple[np.ndarray, np.ndarray]]) -> int:
    """Record every ``(member ids, learner outcomes)`` in ``league`` (members it no longer
    knows are skipped); the number of games recorded."""
    return sum(league.record_known(ids, outcomes) for ids, outcomes in parts)


def push_table(group: Any, league: League, runner_ids: list[int] | None = None) -> None:
    """Send ``league``'s draw table to every env of the env runners (all, or ``runner_ids``)."""
    table = league.seat_table()
    some = {} if runner_ids is None else {"remote_worker_ids": list(runner_ids)}
    group.foreach_env_runner(lambda r: [e.set_table(table) for e in runner_envs(r)],
                             local_env_runner=runner_ids is None, **some)  # fmt: skip


def sync_league(algo: Any, league: League, snapshot: Snapshot | None = None) -> int:
    """Merge the runners' outcomes into ``league``, add ``snapshot`` (None: none), send the
    table back; the number of games merged."""
    group = algo.env_runner_group
    parts = group.foreach_env_runner(lambda r: [e.take_outcomes() for e in runner_envs(r)],
                                     local_env_runner=True)  # fmt: skip
    games = merge_outcomes(league, [p for runner in parts for p in runner])
    if snapshot is not None:
        league.add_snapshot(snapshot)
    league.prune(np.zeros(0, dtype=np.int64))  # the driver plays no game: retired ones go
    push_table(group, league)
    return games


class LeagueCallbacks(RLlibCallback):
    """The ``illegal_actions`` metric (0 with the masked module), and the League's table for
    every env runner RLlib recreates."""

    def on_episode_start(self, *, metrics_logger: Any = None, **kwargs: Any) -> None:
        """Log 0, so the metric reads 0 before any episode has ended."""
        if metrics_logger is not None:
            metrics_logger.log_value(ILLEGAL_ACTIONS, 0, reduce="lifetime_sum")

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        """Log 1 if the episode's last infos report an illegal action, else 0."""
        infos = episode.get_infos(-1)
        illegal = any(isinstance(i, Mapping) and "illegal_action" in i for i in infos.values())
        if metrics_logger is not None:
            metrics_logger.log_value(ILLEGAL_ACTIONS, int(illegal), reduce="lifetime_sum")

    def on_env_runners_recreated(
        self, *, algorithm: Any, env_runner_group: Any, env_runner_indices: list[int],
        is_evaluation: bool, **kwargs: Any,
    ) -> None:  # fmt: skip
        """Send the driver League's table to the restarted runners (they start with baselines)."""
        league: League | None = getattr(algorithm, "cardsuite_league", None)
        if league is not None and not is_evaluation:
            push_table(env_runner_group, league, list(env_runner_indices))


# 0.2's saved-League names, in `cardsuite.train.rllib.legacy` now (PEP 562).
__getattr__ = moved_getattr(
    __name__, moved_table("cardsuite.train.rllib.legacy", "LEAGUE_FILE LEAGUE_STATE load_league")
)
