"""The masked actor-critic network of the batched PPO trainer, and its safe save format.

Two separate MLPs (cleanrl's ``Agent``): an actor ``actor.0 .. actor.{2L}``
giving action logits and a critic ``critic.*`` giving one value. Illegal
actions are masked with a large negative logit before the softmax, so the
policy never samples them and their probability and entropy terms are 0.

Agents are saved with `cardsuite.agents.learned.safe_io.save_agent` (safetensors
+ ``agent.json``); the metadata's ``trainer`` field is `TRAINER`
(``"cardsuite-ppo"``) and ``network.actor`` lists the actor's layers, so any
``safe_io`` reader (``ppo:PATH``, ``pretrained:NAME``) plays the actor with a
numpy forward pass and needs no torch.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from torch import nn

from cardsuite.agents.learned.features import CountInputs
from cardsuite.agents.learned.netspec import NetworkSpec, actor_prefixes
from cardsuite.agents.learned.safe_io import AgentMeta, load_agent_numpy, save_agent
from cardsuite.errors import CheckpointError, ConfigError

TRAINER = "cardsuite-ppo"
MASKED = -1e8  # logit of an illegal action: exp() underflows to exactly 0


def _mlp(sizes: list[int], activation: str, out_gain: float) -> nn.Sequential:
    act: type[nn.Module] = nn.Tanh if activation == "tanh" else nn.ReLU
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        lin = nn.Linear(sizes[i], sizes[i + 1])
        last = i == len(sizes) - 2
        nn.init.orthogonal_(lin.weight, out_gain if last else float(np.sqrt(2)))
        nn.init.zeros_(lin.bias)
        layers.append(lin)
        if not last:
            layers.append(act())
    return nn.Sequential(*layers)


class ActorCritic(nn.Module):
    """Actor and critic MLPs with ``layers`` hidden layers of ``hidden`` units each.

    ``features`` (`cardsuite.agents.learned.features.CountInputs`) appends derived
    inputs to every (scaled) observation before both networks, computed by
    the same numpy code the saved agent's forward pass runs; they carry no
    gradient.
    """

    def __init__(
        self, obs_size: int, num_actions: int, hidden: int = 128, layers: int = 2,
        activation: str = "tanh", features: CountInputs | None = None,
    ) -> None:  # fmt: skip
        """Build both networks (orthogonal init, small actor output gain)."""
        super().__init__()
        if activation not in ("tanh", "relu"):
            raise ConfigError(f"activation must be 'tanh' or 'relu', got {activation!r}")
        if hidden < 1 or layers < 1:
            raise ConfigError("hidden and layers must be at least 1")
        extra = 0 if features is None else features.size
        sizes = [obs_size + extra] + [hidden] * layers
        self.activation = activation
        self.features = features
        self.obs_size, self.num_actions = obs_size, num_actions
        self.actor = _mlp([*sizes, num_actions], activation, 0.01)
        self.critic = _mlp([*sizes, 1], activation, 1.0)

    def inputs(self, obs: torch.Tensor) -> torch.Tensor:
        """The networks' input of scaled observations: with the derived features, if any."""
        return obs if self.features is None else self.features.extend_torch(obs)

    def prefixes(self) -> tuple[str, ...]:
        """State-dict prefixes of the actor's linear layers, input first (``network.actor``)."""
        return actor_prefixes(
            {k: v for k, v in self.state_dict().items() if k.startswith("actor.")}
        )

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
        """Log-probabilities of ``action``, entropies, values and the whole
        `log_policy` (with gradients; PPO's anchor reads the last)."""
        logp_all = self.log_policy(obs, mask)
        p = logp_all.exp()
        entropy = -(p * logp_all).sum(-1)
        logp = logp_all.gather(1, action[:, None]).squeeze(1)
        return logp, entropy, self.value(obs), logp_all


def agent_meta(
    net: ActorCritic, game: str, options: Mapping[str, Any], step: int, config: Mapping[str, Any],
    layout: str = "table",
) -> AgentMeta:  # fmt: skip
    """The ``agent.json`` metadata of a trained network (``layout``: its input layout,
    ``table`` or the size-generic ``generic``)."""
    return AgentMeta(
        game=game,
        options=dict(options),
        obs_size=net.obs_size,
        num_actions=net.num_actions,
        network=NetworkSpec(
            activation=net.activation, actor=net.prefixes(), layout=layout, features=net.features
        ),
        step=int(step),
        trainer=TRAINER,
        config=dict(config),
    )


def save_network(directory: Any, net: ActorCritic, meta: AgentMeta) -> Any:
    """Write ``net`` (actor and critic) as a safe agent directory."""
    return save_agent(directory, net.state_dict(), meta)


def load_actor(directory: Any) -> tuple[ActorCritic, AgentMeta, bool]:
    """`load_network`, or the actor of an agent saved without its critic (the shipped
    pretrained ones) with a fresh critic (seeded by torch's global generator);
    the flag says whether the critic is fresh."""
    arrays, meta = load_agent_numpy(directory)
    if not any(k.startswith("critic.") for k in arrays):
        return _with_fresh_critic(directory, arrays, meta), meta, True
    net, meta = load_network(directory)
    return net, meta, False


def load_network(directory: Any) -> tuple[ActorCritic, AgentMeta]:
    """A network saved by `save_network` (critic included); CheckpointError otherwise."""
    arrays, meta = load_agent_numpy(directory)
    if meta.trainer != TRAINER:
        raise CheckpointError(
            f"agent {str(directory)!r} was written by {meta.trainer!r}, not {TRAINER!r}"
        )
    first = arrays["actor.0.weight"]
    hidden = int(first.shape[0])
    layers = len(meta.network.actor) - 1
    net = ActorCritic(meta.obs_size, meta.num_actions, hidden, layers, meta.network.activation,
                      meta.network.features)  # fmt: skip
    state = {k: torch.from_numpy(np.array(v)) for k, v in arrays.items()}
    try:
        net.load_state_dict(state)
    except RuntimeError as err:
        raise CheckpointError(f"agent {str(directory)!r}: weights do not fit: {err}") from None
    return net, meta


def _with_fresh_critic(directory: Any, arrays: Mapping[str, Any], meta: AgentMeta) -> ActorCritic:
    """An `ActorCritic` with the actor of ``arrays`` and a new critic (`load_actor`)."""
    if meta.trainer != TRAINER:
        raise CheckpointError(
            f"agent {str(directory)!r} was written by {meta.trainer!r}, not {TRAINER!r}"
        )
    if meta.network.kind != "mlp" or "actor.0.weight" not in arrays:
        raise CheckpointError(
            f"agent {str(directory)!r}: not an MLP actor (network kind {meta.network.kind!r})"
        )
    hidden = int(arrays["actor.0.weight"].shape[0])
    layers = len(meta.network.actor) - 1
    net = ActorCritic(meta.obs_size, meta.num_actions, hidden, layers, meta.network.activation,
                      meta.network.features)  # fmt: skip
    state = net.state_dict()
    actor = {k: v for k, v in state.items() if not k.startswith("critic.")}
    if set(actor) != {k for k in arrays if not k.startswith("critic.")}:
        raise CheckpointError(
            f"agent {str(directory)!r}: its tensors {sorted(arrays)} are not an actor of "
            f"{layers} hidden layers of {hidden} units"
        )
    for k, v in actor.items():
        got = np.asarray(arrays[k])
        if tuple(got.shape) != tuple(v.shape):
            raise CheckpointError(
                f"agent {str(directory)!r}: {k} has shape {got.shape}, expected {tuple(v.shape)}"
            )
        state[k] = torch.from_numpy(got.astype(np.float32))
    net.load_state_dict(state)
    return net
