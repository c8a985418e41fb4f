"""A masked PPO RLModule (RLlib's new API stack) for the suite's dict observations.

The suite's observation is ``{"observation": float32[D], "action_mask":
int8[A]}``. RLlib's own masking example expects the key ``"observations"``
and is built on the deprecated ``PPOTorchRLModule``; this module is a plain
`TorchRLModule` with the
`ValueFunctionAPI` that PPO needs:

* a policy MLP and a separate value MLP over the observation, scaled to
  about [-1, 1] by the observation space's finite bounds;
* in every forward pass (exploration, inference and training), the logits of
  illegal actions are replaced by `MASKED_LOGIT`, so the categorical
  distribution gives them probability exactly 0 in float32: sampling and
  argmax never pick them, and the PPO ratio of a legal action is unchanged.
  An all-zero mask (a seat's terminal observation, never acted on) leaves a
  uniform distribution instead of NaNs.

``model_config`` keys: ``hidden`` (list of layer widths, default
``[256, 256]``) and ``activation`` (``"relu"`` or ``"tanh"``, default
``"relu"``); other keys (RLlib adds its defaults) are ignored.
"""

from __future__ import annotations

import itertools
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from torch import nn

from cardsuite.errors import ConfigError

MASKED_LOGIT = -1.0e9
"""The logit given to illegal actions: ``exp`` of it underflows to exactly 0."""

OBS_KEY = "observation"
MASK_KEY = "action_mask"
DEFAULT_HIDDEN = (256, 256)
ACTIVATIONS: dict[str, type[nn.Module]] = {"relu": nn.ReLU, "tanh": nn.Tanh}


def _mlp(sizes: list[int], activation: type[nn.Module], out: int, out_gain: float) -> nn.Sequential:
    """An MLP ``sizes[0] -> ... -> out`` with orthogonal init (small last layer)."""
    layers: list[nn.Module] = []
    for a, b in itertools.pairwise(sizes):
        linear = nn.Linear(a, b)
        nn.init.orthogonal_(linear.weight, gain=float(np.sqrt(2.0)))
        nn.init.zeros_(linear.bias)
        layers += [linear, activation()]
    head = nn.Linear(sizes[-1], out)
    nn.init.orthogonal_(head.weight, gain=out_gain)
    nn.init.zeros_(head.bias)
    layers.append(head)
    return nn.Sequential(*layers)


def check_spaces(
    observation_space: gym.Space[Any], action_space: gym.Space[Any]
) -> tuple[int, int]:
    """``(D, A)`` of a suite dict observation space and Discrete action space.

    Raises:
        ConfigError: the spaces are not the suite's layout.
    """
    if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space.spaces) != {
        OBS_KEY,
        MASK_KEY,
    }:
        raise ConfigError(
            "MaskedPPOTorchRLModule needs a Dict observation space with keys "
            f"{OBS_KEY!r} and {MASK_KEY!r} (the suite's layout), got {observation_space}"
        )
    if not isinstance(action_space, gym.spaces.Discrete):
        raise ConfigError(
            f"MaskedPPOTorchRLModule needs a Discrete action space, got {action_space}"
        )
    obs_shape = tuple(observation_space[OBS_KEY].shape or ())
    mask_shape = tuple(observation_space[MASK_KEY].shape or ())
    if len(obs_shape) != 1 or mask_shape != (int(action_space.n),):
        raise ConfigError(
            f"MaskedPPOTorchRLModule needs a 1-D {OBS_KEY!r} and a {MASK_KEY!r} of shape "
            f"({int(action_space.n)},), got {obs_shape} and {mask_shape}"
        )
    return obs_shape[0], int(action_space.n)


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
        # RLlib merges its own defaults (``vf_share_layers`` ...) into
        # model_config; only the two keys below are read.
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
        self.pi = _mlp([obs_dim, *hidden], ACTIVATIONS[name], num_actions, 0.01)
        self.vf = _mlp([obs_dim, *hidden], ACTIVATIONS[name], 1, 1.0)

    def _features(self, batch: dict[str, Any]) -> torch.Tensor:
        return batch[Columns.OBS][OBS_KEY].float() * self.obs_scale

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Masked action logits (used for exploration and inference)."""
        logits = self.pi(self._features(batch))
        return {Columns.ACTION_DIST_INPUTS: mask_logits(logits, batch[Columns.OBS][MASK_KEY])}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Masked action logits for the PPO loss (same mask as when sampling)."""
        return self._forward(batch, **kwargs)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """State values ``V(observation)``, shape ``(B,)`` or ``(B, T)``."""
        return self.vf(self._features(batch)).squeeze(-1)
