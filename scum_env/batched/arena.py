"""Batched arena: play many episodes of given policies per seat, fast.

Each of ``batch`` game slots of a :class:`BatchedScum` plays an equal share
of the requested episodes (slots restart their games the way ``scum_v0``
does: the next series with trades, or a new game after a game ended), and a
slot that has played its share stops moving (the engine's ``active`` mask),
so short episodes are not over-sampled. Returns each seat's mean episode
reward with a 95% confidence half-width (normal approximation; episodes of
one slot belong to one running game and are mildly correlated).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardsuite.errors import ConfigError
from scum_env.batched.engine import BatchedScum
from scum_env.batched.policies import BatchPolicy


@dataclass(frozen=True)
class ArenaResult:
    """Per-seat results of :func:`play_arena`.

    Attributes:
        mean: mean episode reward of each player id.
        ci95: 95% confidence half-width of each mean.
        episodes: episodes played.
        steps: agent decisions played in all.
    """

    mean: np.ndarray
    ci95: np.ndarray
    episodes: int
    steps: int


def play_arena(
    policies: Sequence[BatchPolicy],
    episodes: int,
    *,
    batch: int = 4096,
    seed: int = 0,
    backend: str = "numpy",
    device: str | None = None,
    **config: Any,
) -> ArenaResult:
    """Play ``episodes`` episodes with ``policies[p]`` in seat ``p``; per-seat mean rewards.

    Args:
        policies: one batch policy per player id (the same object may fill
            several seats; it is then called once per step for all of them).
        episodes: episodes to play in all.
        batch: game slots stepped together.
        seed: seed of the deals.
        backend, device: the engine's backend.
        **config: :class:`~scum_env.config.ScumConfig` fields.
    """
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise ConfigError(f"episodes must be a positive integer, got {episodes!r}")
    slots = min(batch, episodes)
    eng = BatchedScum(slots, backend=backend, device=device, **config)
    n = eng.P
    if len(policies) != n or not all(callable(p) for p in policies):
        raise ConfigError(f"play_arena needs {n} policies, one per player id")
    xp = eng.xp
    quota = np.full(slots, episodes // slots, dtype=np.int64)
    quota[: episodes % slots] += 1
    played = np.zeros(slots, dtype=np.int64)
    total = np.zeros(n, dtype=np.float64)
    total_sq = np.zeros(n, dtype=np.float64)
    obs, mask, to_act = eng.reset(seed)
    groups = _groups(policies)
    steps = 0
    while True:
        active_np = played < quota
        if not active_np.any():
            break
        active = xp.asarray(active_np, xp.bool)
        actions = xp.zeros((slots,), xp.int64)
        for policy, seats in groups:
            hit = to_act < 0
            for s in seats:
                hit = hit | (to_act == s)
            idx = xp.nonzero(hit & active)
            if idx.shape[0]:
                actions[idx] = xp.asarray(policy(obs[idx], mask[idx]), xp.int64)
        steps += int(active_np.sum())
        res = eng.step(actions, active=active)
        done = xp.to_numpy(res.done).astype(bool)
        if done.any():
            rewards = xp.to_numpy(res.rewards)[done].astype(np.float64)
            total += rewards.sum(axis=0)
            total_sq += (rewards**2).sum(axis=0)
            played[done] += 1
        obs, mask, to_act = res.obs, res.mask, res.to_act
    mean = total / episodes
    var = np.maximum(total_sq / episodes - mean**2, 0.0) * episodes / max(episodes - 1, 1)
    ci = 1.96 * np.sqrt(var / episodes)
    return ArenaResult(mean=mean, ci95=ci, episodes=episodes, steps=steps)


def _groups(policies: Sequence[BatchPolicy]) -> list[tuple[BatchPolicy, list[int]]]:
    out: list[tuple[BatchPolicy, list[int]]] = []
    for seat, policy in enumerate(policies):
        for known, seats in out:
            if known is policy:
                seats.append(seat)
                break
        else:
            out.append((policy, [seat]))
    return out
