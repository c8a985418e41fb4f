"""The torch pieces of every trainer's network: `mlp` and `ActorNet` (an ``actor`` that
``ppo:PATH`` plays, derived inputs, its ``agent.json`` metadata)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from torch import nn

from cardsuite.agents.learned.features import CountInputs
from cardsuite.agents.learned.netspec import NetworkSpec, actor_prefixes
from cardsuite.agents.learned.safe_io import AgentMeta

ACTIVATIONS: dict[str, type[nn.Module]] = {"relu": nn.ReLU, "tanh": nn.Tanh}


def mlp(sizes: list[int], activation: str, out_gain: float | None = None) -> nn.Sequential:
    """Linear layers ``sizes[0] -> ... -> sizes[-1]`` with ``activation`` between them; with
    ``out_gain``, cleanrl's init: orthogonal weights (gain √2, the last layer ``out_gain``)
    and zero biases."""
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        linear = nn.Linear(sizes[i], sizes[i + 1])
        if out_gain is not None:
            nn.init.orthogonal_(linear.weight, out_gain if i == len(sizes) - 2 else 2**0.5)
            nn.init.zeros_(linear.bias)
        layers += [linear, ACTIVATIONS[activation]()]
    return nn.Sequential(*layers[:-1])


class ActorNet(nn.Module):
    """A trained network whose ``actor`` scores the actions of scaled observations of
    ``obs_size``; ``features`` (`CountInputs`) appends derived inputs (no gradient)."""

    def __init__(
        self, obs_size: int, num_actions: int, activation: str, features: CountInputs | None
    ) -> None:
        super().__init__()
        self.obs_size, self.num_actions = obs_size, num_actions
        self.activation, self.features = activation, features
        self.in_size = obs_size + (0 if features is None else features.size)

    def inputs(self, obs: torch.Tensor) -> torch.Tensor:
        """The networks' input of scaled observations: with the derived features, if any."""
        return obs if self.features is None else self.features.extend_torch(obs)

    def prefixes(self) -> tuple[str, ...]:
        """State-dict prefixes of the actor's linear layers, input first (``network.actor``)."""
        state = self.state_dict()
        return actor_prefixes({k: v for k, v in state.items() if k.startswith("actor.")})

    def meta(
        self,
        trainer: str,
        game: str,
        options: Mapping[str, Any],
        step: int,
        config: Mapping[str, Any],
        layout: str = "table",
    ) -> AgentMeta:
        """The ``agent.json`` metadata of the network (``layout``: table or generic)."""
        return AgentMeta(
            game=game,
            options=dict(options),
            obs_size=self.obs_size,
            num_actions=self.num_actions,
            network=NetworkSpec(
                self.activation, self.prefixes(), layout=layout, features=self.features
            ),
            step=int(step),
            trainer=trainer,
            config=dict(config),
        )
