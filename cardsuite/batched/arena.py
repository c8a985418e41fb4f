"""Batched arena: play many episodes of given policies per seat on any batched engine, fast.

Each game slot plays an equal share of the episodes and then stops moving
(the engine's ``active`` mask), so short episodes are not over-sampled. An
episode's return is the sum of a seat's rewards during it; each seat gets its
mean return with a 95% confidence half-width (episodes of one slot belong to
one running game and may be mildly correlated).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import t

from cardsuite.batched.policies import BatchPolicy, fill_actions, seat_groups
from cardsuite.errors import ConfigError


@dataclass(frozen=True)
class ArenaResult:
    """Per-seat results of an arena run.

    Attributes:
        mean: mean episode return of each player id.
        ci95: 95% confidence half-width of each mean (Student t, `scipy.stats.t`).
        episodes: episodes played.
        steps: agent decisions played in all.
    """

    mean: np.ndarray
    ci95: np.ndarray
    episodes: int
    steps: int


def run_arena(
    make_engine: Callable[[int], Any],
    policies: Sequence[BatchPolicy],
    episodes: int,
    *,
    batch: int = 4096,
    seed: int = 0,
    **engine_options: Any,
) -> ArenaResult:
    """Play ``episodes`` episodes with ``policies[p]`` in seat ``p``; per-seat mean returns.

    Args:
        make_engine: builds the batched engine for a number of game slots:
            ``make_engine(slots, **engine_options)`` (an engine class will do).
        policies: one batch policy per player id (the same object may fill
            several seats; it is then called once per step for all of them).
        episodes: episodes to play in all.
        batch: game slots stepped together (at most ``episodes``).
        seed: seed of the deals.
        **engine_options: the engine's ``backend``, ``device`` and config fields.
    """
    for name, value in (("episodes", episodes), ("batch", batch)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"{name} must be a positive integer, got {value!r}")
    slots = min(batch, episodes)
    eng = make_engine(slots, **engine_options)
    n = eng.num_players
    if len(policies) != n or not all(callable(p) for p in policies):
        raise ConfigError(f"the arena needs {n} policies, one per player id")
    xp = eng.xp
    quota = np.full(slots, episodes // slots, dtype=np.int64)
    quota[: episodes % slots] += 1
    played = np.zeros(slots, dtype=np.int64)
    running = np.zeros((slots, n), dtype=np.float64)
    total = np.zeros(n, dtype=np.float64)
    total_sq = np.zeros(n, dtype=np.float64)
    obs, mask, to_act = eng.reset(seed)
    groups = seat_groups(list(policies))
    steps = 0
    while True:
        active_np = played < quota
        if not active_np.any():
            break
        active = xp.asarray(active_np, xp.bool)
        actions = fill_actions(xp, groups, obs, mask, to_act, active)
        steps += int(active_np.sum())
        res = eng.step(actions, active=active)
        running += xp.to_numpy(res.rewards)
        done = xp.to_numpy(res.done).astype(bool)
        if done.any():
            returns = running[done]
            total += returns.sum(axis=0)
            total_sq += (returns**2).sum(axis=0)
            running[done] = 0.0
            played[done] += 1
        obs, mask, to_act = res.obs, res.mask, res.to_act
    mean = total / episodes
    var = np.maximum(total_sq / episodes - mean**2, 0.0) * episodes / max(episodes - 1, 1)
    ci = float(t.ppf(0.975, max(episodes - 1, 1))) * np.sqrt(var / episodes)  # Student t
    return ArenaResult(mean=mean, ci95=ci, episodes=episodes, steps=steps)
