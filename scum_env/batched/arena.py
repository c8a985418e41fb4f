"""Batched arena for Scum: `play_arena` over `BatchedScum`.

A Scum front of [`cardsuite.batched.arena.run_arena`][cardsuite.batched.arena.run_arena]: each slot plays an
equal share of the episodes (running games, so later series have trades) and
then stops moving; each seat's mean episode reward comes with a 95%
confidence half-width.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardsuite.batched.arena import ArenaResult, run_arena
from cardsuite.batched.policies import BatchPolicy
from scum_env.batched.engine import BatchedScum

__all__ = ["ArenaResult", "play_arena"]


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
        **config: [`ScumConfig`][scum_env.config.ScumConfig] fields.
    """

    def make(slots: int) -> BatchedScum:
        return BatchedScum(slots, backend=backend, device=device, **config)

    return run_arena(make, policies, episodes, batch=batch, seed=seed)
