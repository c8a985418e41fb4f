"""A masked PPO RLModule (RLlib's new API stack) for the suite's dict observations.

A policy MLP and a value MLP over the observation scaled by the space's bounds; illegal
actions get `MASKED_LOGIT` (probability exactly 0). ``model_config`` keys: ``hidden``
(layer widths, default ``[256, 256]``) and ``activation`` (``"relu"`` or ``"tanh"``).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule

from cardsuite.errors import ConfigError
from cardsuite.train.core.nets import ACTIVATIONS, mlp

MASKED_LOGIT = -1.0e9
"""The logit given to illegal actions: ``exp`` of it underflows to exactly 0."""

OBS_KEY = "observation"
MASK_KEY = "action_mask"
DEFAULT_HIDDEN = (256, 256)


def check_spaces(obs_space: Any, action_space: Any) -> tuple[int, int]:
    """``(D, A)`` of the suite's dict observation space and a Discrete action space
    (ConfigError for any other layout)."""
    ok = (
        isinstance(obs_space, gym.spaces.Dict)
        and isinstance(action_space, gym.spaces.Discrete)
        and set(obs_space.spaces) == {OBS_KEY, MASK_KEY}
    )
    if ok:
        obs, mask = obs_space[OBS_KEY].shape, obs_space[MASK_KEY].shape
        ok = len(obs or ()) == 1 and mask == (int(action_space.n),)
    if not ok:
        raise ConfigError(f"MaskedPPOTorchRLModule needs the suite's layout: a Dict observation "
                          f"space of a 1-D {OBS_KEY!r} and an {MASK_KEY!r} of one entry per "
                          f"Discrete action, got {obs_space} and {action_space}")  # fmt: skip
    return int(obs_space[OBS_KEY].shape[0]), int(action_space.n)


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every action whose mask entry is 0 set to `MASKED_LOGIT`."""
    return torch.where(mask > 0, logits, torch.full_like(logits, MASKED_LOGIT))


class MaskedPPOTorchRLModule(TorchRLModule, ValueFunctionAPI):
    """PPO actor-critic over ``{"observation", "action_mask"}`` that never picks an illegal action."""

    def setup(self) -> None:
        """Build the policy and value networks from the spaces and ``model_config``."""
        if self.observation_space is None or self.action_space is None:
            raise ConfigError("MaskedPPOTorchRLModule needs its observation and action spaces")
        obs_dim, num_actions = check_spaces(self.observation_space, self.action_space)
        raw = self.model_config
        config: dict[str, Any] = dict(raw) if isinstance(raw, dict) else {}
        # RLlib merges its own defaults (``vf_share_layers`` ...) in: only these two are read
        hidden = [int(h) for h in config.get("hidden", DEFAULT_HIDDEN)]
        if not hidden or min(hidden) < 1:
            raise ConfigError(f"model_config['hidden'] must list positive widths, got {hidden}")
        name = config.get("activation", "relu")
        if name not in ACTIVATIONS:
            raise ConfigError(
                f"model_config['activation'] {name!r} is not one of {sorted(ACTIVATIONS)}"
            )
        box = self.observation_space[OBS_KEY]  # type: ignore[index]
        bound = np.maximum(np.abs(box.low), np.abs(box.high)).astype(np.float64)
        scale = np.where(np.isfinite(bound) & (bound > 0), 1.0 / np.where(bound > 0, bound, 1), 1.0)
        self.register_buffer("obs_scale", torch.as_tensor(scale, dtype=torch.float32))
        self.pi = mlp([obs_dim, *hidden, num_actions], name, 0.01)
        self.vf = mlp([obs_dim, *hidden, 1], name, 1.0)

    def _features(self, batch: dict[str, Any]) -> torch.Tensor:
        return batch[Columns.OBS][OBS_KEY].float() * self.obs_scale

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Masked action logits in every phase (RLlib's training forward calls it too)."""
        logits = self.pi(self._features(batch))
        return {Columns.ACTION_DIST_INPUTS: mask_logits(logits, batch[Columns.OBS][MASK_KEY])}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """State values ``V(observation)``, shape ``(B,)`` or ``(B, T)``."""
        return self.vf(self._features(batch)).squeeze(-1)
