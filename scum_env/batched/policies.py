"""Batched policies for Scum: the lowest-first heuristic, beside the shared ones
(`RandomPolicy`, `sb3_policy`, ``BatchPolicy``, re-exported from `cardsuite.batched.policies`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.batched.policies import BatchPolicy, RandomPolicy, is_torch, sb3_policy
from cardsuite.errors import ConfigError
from scum_env.rules import Rules

__all__ = [
    "BatchPolicy",
    "LowestFirstPolicy",
    "RandomPolicy",
    "is_torch",
    "make_policy",
    "sb3_policy",
]


class LowestFirstPolicy:
    """A simple heuristic: play the lowest cards you can, as many as you can (ties: more
    cards); pass only when nothing can be played; give back the lowest card (J5)."""

    name = "lowest_first"

    def __init__(self, rules: Rules) -> None:
        """Precompute the preference of every action id under ``rules``."""
        k, c = rules.num_slots, rules.max_count
        score = np.zeros(rules.num_actions, dtype=np.float32)
        score[0] = 1.0  # pass: only when nothing else is legal
        low = k - np.arange(k)  # lower slots first
        plays = 2.0 + low[None, :] * (c + 1) + np.arange(1, c + 1)[:, None]  # [count - 1, slot]
        score[1 : rules.give_base] = plays.ravel()  # the play ids (`Rules.play_action`)
        score[rules.give_base :] = 2.0 + low[: rules.num_actions - rules.give_base]
        self._score = score
        self._cache: dict[str, Any] = {}

    def __call__(self, obs: Any, mask: Any) -> Any:
        """The preferred legal action per row."""
        if is_torch(mask):
            key = str(mask.device)
            if key not in self._cache:
                import torch

                self._cache[key] = torch.as_tensor(self._score, device=mask.device)
            return (self._cache[key][None, :] * mask).argmax(dim=1)
        return (self._score[None, :] * mask).argmax(axis=1)


def make_policy(name: str, rules: Rules, seed: int = 0) -> BatchPolicy:
    """A built-in policy by name: ``"random"`` or ``"lowest_first"``."""
    if name == "random":
        return RandomPolicy(seed)
    if name in ("lowest_first", "heuristic"):
        return LowestFirstPolicy(rules)
    raise ConfigError(f"unknown batched policy {name!r}; use 'random' or 'lowest_first'")
