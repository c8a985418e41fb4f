"""The masked actor-critic of the batched PPO trainer (cleanrl's ``Agent``: actor ``actor.*``,
critic ``critic.*``), saved in the safe format so ``ppo:PATH`` plays it without torch."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from cardsuite.agents.learned.features import CountInputs
from cardsuite.agents.learned.safe_io import AgentMeta, load_agent_numpy, save_agent
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.core.nets import ActorNet, mlp

TRAINER = "cardsuite-ppo"
MASKED = -1e8  # logit of an illegal action: exp() underflows to exactly 0


class ActorCritic(ActorNet):
    """Actor and critic MLPs with ``layers`` hidden layers of ``hidden`` units each;
    ``features`` (`CountInputs`) appends derived inputs (no gradient) to the observations."""

    def __init__(
        self, obs_size: int, num_actions: int, hidden: int = 128, layers: int = 2,
        activation: str = "tanh", features: CountInputs | None = None,
    ) -> None:  # fmt: skip
        if activation not in ("tanh", "relu"):
            raise ConfigError(f"activation must be 'tanh' or 'relu', got {activation!r}")
        if hidden < 1 or layers < 1:
            raise ConfigError("hidden and layers must be at least 1")
        super().__init__(obs_size, num_actions, activation, features)
        sizes = [self.in_size] + [hidden] * layers
        self.actor = mlp([*sizes, num_actions], activation, 0.01)
        self.critic = mlp([*sizes, 1], activation, 1.0)

    def logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Masked action logits ``[B, A]`` (``mask`` bool ``[B, A]``)."""
        return self.actor(self.inputs(obs)).masked_fill(~mask, MASKED)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """State values ``[B]``."""
        return self.critic(self.inputs(obs)).squeeze(-1)

    def act(
        self, obs: torch.Tensor, mask: torch.Tensor, gen: torch.Generator | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sampled actions, their log-probabilities and the values (no gradient)."""
        with torch.no_grad():
            logits = self.logits(obs, mask)
            logp_all = torch.log_softmax(logits, dim=-1)
            u = torch.rand(logits.shape, generator=gen, device=logits.device)
            gumbel = -torch.log(-torch.log(u.clamp_(1e-20, 1.0)))
            action = torch.argmax(logits + gumbel, dim=-1)
            logp = logp_all.gather(1, action[:, None]).squeeze(1)
            return action, logp, self.value(obs)

    def log_policy(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Log-probabilities ``[B, A]`` of every action under the masked policy."""
        return torch.log_softmax(self.logits(obs, mask), dim=-1)

    def evaluate(
        self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Log-probabilities of ``action``, entropies, values and `log_policy` (with gradients)."""
        logp_all = self.log_policy(obs, mask)
        p = logp_all.exp()
        entropy = -(p * logp_all).sum(-1)
        logp = logp_all.gather(1, action[:, None]).squeeze(1)
        return logp, entropy, self.value(obs), logp_all


def agent_meta(
    net: ActorCritic, game: str, options: Mapping[str, Any], step: int, config: Mapping[str, Any],
    layout: str = "table",
) -> AgentMeta:  # fmt: skip
    """The ``agent.json`` metadata of a trained network (``layout``: table or generic)."""
    return net.meta(TRAINER, game, options, step, config, layout)


def save_network(directory: Any, net: ActorCritic, meta: AgentMeta) -> Any:
    """Write ``net`` (actor and critic) as a safe agent directory."""
    return save_agent(directory, net.state_dict(), meta)


def load_actor(directory: Any) -> tuple[ActorCritic, AgentMeta, bool]:
    """A network saved by `save_network`, or an actor saved without its critic (the shipped
    agents) with a fresh one (torch's global generator), and whether the critic is fresh;
    CheckpointError if the files do not fit."""
    arrays, meta = load_agent_numpy(directory)
    where = f"agent {str(directory)!r}"
    if meta.trainer != TRAINER:
        raise CheckpointError(f"{where} was written by {meta.trainer!r}, not {TRAINER!r}")
    if meta.network.kind != "mlp" or "actor.0.weight" not in arrays:
        raise CheckpointError(f"{where}: not an MLP actor (network kind {meta.network.kind!r})")
    hidden, layers = int(arrays["actor.0.weight"].shape[0]), len(meta.network.actor) - 1
    net = ActorCritic(meta.obs_size, meta.num_actions, hidden, layers, meta.network.activation,
                      meta.network.features)  # fmt: skip
    fresh = not any(k.startswith("critic.") for k in arrays)
    state = net.state_dict()
    wanted = {k for k in state if not (fresh and k.startswith("critic."))}
    if set(arrays) != wanted:
        raise CheckpointError(f"{where}: its tensors {sorted(arrays)} are not a network of "
                              f"{layers} hidden layers of {hidden} units")  # fmt: skip
    for k in wanted:
        got = np.asarray(arrays[k])
        if tuple(got.shape) != tuple(state[k].shape):
            raise CheckpointError(f"{where}: {k} has shape {got.shape}, expected "
                                  f"{tuple(state[k].shape)}")  # fmt: skip
        state[k] = torch.from_numpy(got.astype(np.float32))
    net.load_state_dict(state)
    return net, meta, fresh


def load_network(directory: Any) -> tuple[ActorCritic, AgentMeta]:
    """A network saved by `save_network` (critic included); CheckpointError otherwise."""
    net, meta, fresh = load_actor(directory)
    if fresh:
        raise CheckpointError(f"agent {str(directory)!r} has no critic (an actor-only agent)")
    return net, meta
