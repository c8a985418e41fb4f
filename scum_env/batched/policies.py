"""Batched policies: ``[M, obs_dim]`` observations and ``[M, A]`` masks in, ``[M]`` actions out.

A :data:`BatchPolicy` is any callable ``policy(obs, mask) -> actions`` over
arrays of the engine's backend (numpy arrays or torch tensors); it must return
a legal action for every row. The vector env and the arena call one policy per
seat with the rows of the games where that seat is to act.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from scum_env.rules import Rules

BatchPolicy = Callable[[Any, Any], Any]


def _is_torch(x: Any) -> bool:
    return hasattr(x, "device") and hasattr(x, "dtype") and not isinstance(x, np.ndarray)


class RandomPolicy:
    """Uniform over each row's legal actions, seeded (numpy or torch inputs)."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        """Create with a seed; the same seed and inputs give the same actions."""
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        self._gen: Any = None

    def __call__(self, obs: Any, mask: Any) -> Any:
        """A uniformly random legal action per row (rows need at least one legal action).

        One uniform number per row picks the r-th legal action: the first
        column where the running count of legal actions exceeds r.
        """
        if _is_torch(mask):
            import torch

            if self._gen is None or self._gen.device != mask.device:
                self._gen = torch.Generator(device=mask.device)
                self._gen.manual_seed(self.seed)
            running = mask.to(torch.int16).cumsum(dim=1, dtype=torch.int16)
            u = torch.rand(mask.shape[0], generator=self._gen, device=mask.device)
            r = (u * running[:, -1]).to(torch.int16)
            return (running > r[:, None]).to(torch.int8).argmax(dim=1)
        running = np.cumsum(mask, axis=1, dtype=np.int16)
        r = (self._rng.random(mask.shape[0]) * running[:, -1]).astype(np.int16)
        return (running > r[:, None]).argmax(axis=1)


class LowestFirstPolicy:
    """A simple heuristic: play the lowest cards you can, as many of them as you can.

    Among legal actions: the play whose best card is lowest (ties: more
    cards); pass only when nothing can be played; give back the lowest card
    (J5). Strong cards (Presidents, Wild Presidents) are thereby kept for later.
    """

    name = "lowest_first"

    def __init__(self, rules: Rules) -> None:
        """Precompute the preference of every action id under ``rules``."""
        k, c = rules.num_slots, rules.max_count
        score = np.zeros(rules.num_actions, dtype=np.float32)
        score[0] = 1.0  # pass: only when nothing else is legal
        for count in range(1, c + 1):
            for slot in range(k):
                score[rules.play_action(count, slot)] = 2.0 + (k - slot) * (c + 1) + count
        for slot in range(rules.num_actions - rules.give_base):
            score[rules.give_base + slot] = 2.0 + (k - slot)
        self._score = score
        self._cache: dict[str, Any] = {}

    def __call__(self, obs: Any, mask: Any) -> Any:
        """The preferred legal action per row."""
        if _is_torch(mask):
            key = str(mask.device)
            if key not in self._cache:
                import torch

                self._cache[key] = torch.as_tensor(self._score, device=mask.device)
            return (self._cache[key][None, :] * mask).argmax(dim=1)
        return (self._score[None, :] * mask).argmax(axis=1)


def sb3_policy(model: Any, deterministic: bool = True) -> BatchPolicy:
    """A batch policy from a trained ``MaskablePPO`` model (the learner itself, for self-play)."""

    def act(obs: Any, mask: Any) -> Any:
        obs_np = obs.detach().cpu().numpy() if _is_torch(obs) else np.asarray(obs)
        mask_np = mask.detach().cpu().numpy() if _is_torch(mask) else np.asarray(mask)
        actions, _ = model.predict(
            obs_np, action_masks=mask_np.astype(bool), deterministic=deterministic
        )
        if _is_torch(mask):
            import torch

            return torch.as_tensor(actions, device=mask.device)
        return np.asarray(actions)

    return act


def make_policy(name: str, rules: Rules, seed: int = 0) -> BatchPolicy:
    """A built-in policy by name: ``"random"`` or ``"lowest_first"``."""
    from cardsuite.errors import ConfigError

    if name == "random":
        return RandomPolicy(seed)
    if name in ("lowest_first", "heuristic"):
        return LowestFirstPolicy(rules)
    raise ConfigError(f"unknown batched policy {name!r}; use 'random' or 'lowest_first'")
