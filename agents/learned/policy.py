"""A trained policy as an arena agent (``ppo:PATH``), loaded without pickle or torch.

[`PPOAgent`][cardsuite.agents.learned.policy.PPOAgent] loads an agent in the safe format of
`cardsuite.agents.learned.safe_io` (safetensors weights + validated JSON): an
agent directory, a checkpoint (its ``agent/``) or a run directory (its latest
checkpoint). It plays the policy's masked action distribution, exactly
``model.predict(obs, action_masks=mask)`` of the MaskablePPO it came from,
computed by a numpy forward pass of the actor (0.05 ms per decision, against
2-40 ms for a torch call on a busy machine), so ``cardsuite play`` and
tournaments are fast and need no torch. The tests check both give the same
actions.

A stable-baselines3 ``model.zip`` is refused: its ``data`` entry may hold
pickled ``:serialized:`` values that run code on load. ``cardsuite export``
converts a zip you trust, with an explicit opt-in flag
(`cardsuite.train.tools.export`).

`snapshot_of` freezes a MaskablePPO policy into a numpy
`cardsuite.agents.learned.netspec.Snapshot` for the opponent pool, and
`agent_meta` describes one for `save_agent`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.learned.files import SB3_ZIP_REFUSAL, find_checkpoint
from cardsuite.agents.learned.netspec import (
    NetworkSpec,
    Snapshot,
    actor_logits,
    actor_prefixes,
    obs_scale,
    pick,
)
from cardsuite.agents.learned.safe_io import AgentMeta, is_agent_dir, load_agent_numpy
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.games import get_game

SB3_TRAINER = "sb3-maskable-ppo"


def resolve_agent_dir(path: str | Path) -> Path:
    """The agent directory behind ``path``: itself, a checkpoint's or a run's latest.

    Raises:
        CheckpointError: nothing there, an SB3 ``model.zip`` (refused, see the
            module doc), or no agent inside.
    """
    p = Path(path)
    if p.is_file():
        with open(p, "rb") as fh:
            magic = fh.read(2)
        if p.suffix == ".zip" or magic == b"PK":
            raise CheckpointError(f"{str(p)!r} {SB3_ZIP_REFUSAL}")
        raise CheckpointError(
            f"{str(p)!r} is a file; a ppo agent is a directory (agent.json + "
            "weights.safetensors), a checkpoint or a run directory"
        )
    if is_agent_dir(p):
        return p
    ckpt = find_checkpoint(p)
    if (ckpt / "model.zip").exists():
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: its model.zip {SB3_ZIP_REFUSAL}")
    if not is_agent_dir(ckpt / "agent"):
        raise CheckpointError(f"checkpoint {str(ckpt)!r} has no agent/ (agent.json)")
    return ckpt / "agent"


class PPOAgent:
    """A trained policy playing one seat (numpy forward pass of its actor).

    At a table other than its own a subclass plays through a *view* of the
    network there (`_seat` returns a `Snapshot` that reads that table's
    observations: `SizeGenericAgent`, `AnyTableAgent`); ``logits``,
    ``value``, ``act`` and ``snapshot`` all go through it.

    Args:
        arrays: the network's tensors by state-dict name (numpy).
        meta: the agent's metadata (game, sizes, architecture).
        deterministic: play the most likely legal action (default), or sample.
        seed: seeds the sampling when ``deterministic`` is False (``reset``
            reseeds when given a seed).
        name: the agent's display name.
    """

    #: Whether the network reads the game's size-generic layout (it needs a view to play).
    generic = False

    def __init__(
        self,
        arrays: Mapping[str, np.ndarray],
        meta: AgentMeta,
        *,
        deterministic: bool = True,
        seed: int | None = None,
        name: str = "ppo",
    ) -> None:
        """Wrap loaded weights; the observation scaling is set at ``reset``."""
        self.name = name
        self.meta = meta
        self.game = meta.game
        self.deterministic = deterministic
        self.seed = seed
        self._arrays = _layers(arrays, meta.network.actor)
        # The critic, where the agent was saved with it (a PPO run's agent/;
        # most shipped pretrained agents keep their actor only; scandal2 carries one).
        critic = tuple("critic" + p.removeprefix("actor") for p in meta.network.actor)
        self._critic: dict[str, np.ndarray] = {}
        self._critic_spec: Any = None
        if all(f"{p}.{part}" in arrays for p in critic for part in ("weight", "bias")):
            self._critic = _layers(arrays, critic)
            self._critic_spec = dataclasses.replace(meta.network, actor=critic)
        self._scale: np.ndarray | None = None
        self._view: Snapshot | None = None
        self._rng = np.random.default_rng(seed)

    @classmethod
    def load(
        cls,
        path: str | Path,
        game: str | None = None,
        seed: int | None = None,
        *,
        deterministic: bool = True,
    ) -> PPOAgent:
        """Load an agent, checkpoint or run directory (safe format only).

        Raises:
            CheckpointError: nothing loadable at ``path``, a refused SB3 zip, a
                malformed agent, or one trained on another game than ``game``.
        """
        arrays, meta = load_agent_numpy(resolve_agent_dir(path))
        if game is not None:
            try:
                wanted = get_game(game).name
            except ConfigError as err:
                raise CheckpointError(str(err)) from None
            if wanted != meta.game:
                raise CheckpointError(
                    f"checkpoint {str(path)!r} was trained on {meta.game!r}, not {game!r}"
                )
        return cls(arrays, meta, deterministic=deterministic, seed=seed)

    @property
    def weights(self) -> dict[str, np.ndarray]:
        """The actor's arrays and, where it was saved with one, the critic's (float32)."""
        return {**self._arrays, **self._critic}

    @property
    def obs_scale(self) -> np.ndarray | None:
        """The observation scaling set at `reset` (``logits`` takes ``obs * obs_scale``); None before."""
        return self._scale

    @property
    def snapshot(self) -> Snapshot:
        """The actor at the table of the last `reset`, as a frozen `Snapshot` (for batch
        play and evaluation); before any `reset`, or at its own table, the network itself."""
        if self._view is not None:
            return self._view
        network = self.meta.network
        return Snapshot(
            self.meta.step, self._arrays, network.activation, network.actor, network.features
        )

    def _seated(self, what: str) -> None:
        if self.generic and self._view is None:
            raise CheckpointError(f"{self.name}: call reset(table) before {what}()")

    def logits(self, scaled_obs: np.ndarray) -> np.ndarray:
        """The table's action logits of table-scaled observations (or a batch), as `act`
        sees them (the guided search's priors and rollouts call it with ``obs * obs_scale``)."""
        self._seated("logits")
        if self._view is not None:
            return self._view.logits(scaled_obs)
        return actor_logits(self._arrays, self.meta.network, scaled_obs)

    @property
    def has_value(self) -> bool:
        """Whether the agent carries its critic (a PPO run's agent does)."""
        return self._critic_spec is not None

    def value(self, scaled_obs: np.ndarray) -> np.ndarray:
        """The critic's value of table-scaled observations (``[M, D]`` -> ``[M]``): the
        return the seat expects from here, in the training env's reward units.

        Raises:
            CheckpointError: the agent was saved without its critic.
        """
        if self._critic_spec is None:
            raise CheckpointError(
                f"{self.name} has no critic (its weights hold the actor only); train one "
                "with cardsuite ppo (e.g. --init pretrained:NAME --set critic_warmup=...)"
            )
        self._seated("value")
        x = scaled_obs if self._view is None else self._view.inputs(scaled_obs)
        out = actor_logits(self._critic, self._critic_spec, x)
        return np.asarray(out, dtype=np.float64)[..., 0]

    def _seat(self, table: TableInfo) -> Snapshot | None:
        """Check that the agent can sit at ``table``; the view it plays through there
        (None: the network itself). A `PPOAgent` sits at its own table only."""
        if table.game != self.game:
            raise CheckpointError(
                f"{self.name} was trained on {self.game!r}, not {table.game!r}; "
                f"use a {self.game} table or an agent trained on {table.game}"
            )
        if self.meta.obs_size != table.obs_spec.size or self.meta.num_actions != table.num_actions:
            raise CheckpointError(
                f"{self.name}: the model expects observations ({self.meta.obs_size},) and "
                f"{self.meta.num_actions} actions, this table has ({table.obs_spec.size},) and "
                f"{table.num_actions} (different rule options or player count)"
                + _ANY_TABLE_HINT.get(self.game, "")
            )
        return None

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Check the table (`_seat`), set the observation scaling; seed sampling if asked."""
        self._view = self._seat(table)
        if self.meta.network.obs_scale == "obs_spec" or self.generic:
            self._scale = obs_scale(table.obs_spec)
        else:
            self._scale = np.ones(table.obs_spec.size, dtype=np.float32)
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """The policy's action among the legal ones (the mode, or a sample)."""
        if self._scale is None or (self.generic and self._view is None):
            raise CheckpointError(f"{self.name}: call reset(table) before act()")
        if self._view is None:
            logits = self.logits(observation * self._scale)
        else:
            logits = self._view.logits(np.asarray(observation, dtype=np.float32) * self._scale)
        return int(pick(logits, action_mask, self.deterministic, self._rng))


def _layers(arrays: Mapping[str, np.ndarray], prefixes: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The weight and bias of each layer of ``prefixes``, as float32."""
    return {
        f"{prefix}.{part}": np.asarray(arrays[f"{prefix}.{part}"], dtype=np.float32)
        for prefix in prefixes
        for part in ("weight", "bias")
    }


#: What a table-sized agent's size error adds where the game lets it sit at every size.
_ANY_TABLE_HINT = {
    game: "; to seat it at every size of the game, copy it marked any-table: "
    "python -m cardsuite.agents.learned.any_table AGENT_DIR NEW_DIR"
    for game in ("scum_party", "scandal")
}


# ------------------------------------------------------ MaskablePPO policies
def policy_activation(policy: Any) -> str:
    """A MaskablePPO policy's hidden activation as a snapshot names it."""
    import torch

    if policy.activation_fn is torch.nn.Tanh:
        return "tanh"
    if policy.activation_fn is torch.nn.ReLU:
        return "relu"
    raise CheckpointError(
        f"unsupported activation {policy.activation_fn.__name__}; trained policies use Tanh or ReLU"
    )


def agent_meta(
    policy: Any, *, game: str, options: Mapping[str, Any], step: int, config: Mapping[str, Any]
) -> AgentMeta:
    """The safe-format metadata of a MaskablePPO ``policy`` (MLP, obs_spec scaling)."""
    state = policy.state_dict()
    return AgentMeta(
        game=game,
        options=dict(options),
        obs_size=int(policy.observation_space.shape[0]),
        num_actions=int(policy.action_space.n),
        network=NetworkSpec(activation=policy_activation(policy), actor=actor_prefixes(state)),
        step=int(step),
        trainer=SB3_TRAINER,
        config=dict(config),
    )


def snapshot_of(policy: Any, step: int, activation: str) -> Snapshot:
    """A numpy `Snapshot` of a MaskablePPO policy's actor network."""
    params = {
        name: tensor.detach().cpu().numpy().astype(np.float32, copy=True)
        for name, tensor in policy.state_dict().items()
        if name.startswith("mlp_extractor.policy_net.") or name.startswith("action_net.")
    }
    return Snapshot(step, params, activation, actor_prefixes(params))
