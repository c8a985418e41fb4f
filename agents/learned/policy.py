"""A trained policy as an arena agent (``ppo:PATH``), loaded without pickle or torch.

`PPOAgent` loads an agent, checkpoint or run directory in the safe agent format and plays
its masked action distribution by a numpy forward pass. An SB3 ``model.zip`` is refused
(its pickles may run code; ``cardsuite export`` converts one you trust).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo, describe_table
from cardsuite.agents.learned.files import SB3_ZIP_REFUSAL, find_checkpoint
from cardsuite.agents.learned.layout import LAYOUTS, check_game
from cardsuite.agents.learned.netspec import Snapshot, actor_logits, obs_scale, pick
from cardsuite.agents.learned.safe_io import AgentMeta, is_agent_dir, load_agent_numpy
from cardsuite.errors import CheckpointError, ConfigError, TableMismatchError
from cardsuite.games import get_game


def resolve_agent_dir(path: str | Path) -> Path:
    """The agent directory behind ``path``: itself, a checkpoint's or a run's latest.

    Raises:
        CheckpointError: nothing there, an SB3 ``model.zip`` (refused), or no agent inside.
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
    """A trained policy playing one seat; a subclass plays other tables through a view
    of the network there (`_seat`'s `Snapshot`).

    Args:
        arrays, meta: the network's tensors by state-dict name (numpy), its metadata.
        deterministic: play the most likely legal action, or sample (seeded by ``seed``).
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
        # the critic, where the agent was saved with it (a PPO run's agent/, scandal2)
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
            CheckpointError: nothing loadable, or a refused SB3 zip.
            TableMismatchError: another game's agent (a `CheckpointError` too).
        """
        arrays, meta = load_agent_numpy(resolve_agent_dir(path))
        if game is not None:
            try:
                wanted = get_game(game).name
            except ConfigError as err:
                raise CheckpointError(str(err)) from None
            if wanted != meta.game:
                raise TableMismatchError(
                    f"checkpoint {str(path)!r} was trained on {meta.game!r}, not {game!r}; "
                    f"seat it at a {meta.game} table"
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
        return self._view if self._view is not None else self._network_as()

    def _network_as(self, cls: type[Snapshot] = Snapshot, **fields: Any) -> Any:
        """The agent's actor as a ``cls`` (a `Snapshot`, or a `TableView` with its ``fields``)."""
        net = self.meta.network
        return cls(self.meta.step, self._arrays, net.activation, net.actor, net.features, **fields)

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
        """The critic's value of table-scaled observations (``[M, D]`` -> ``[M]``), in the
        training env's reward units.

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
        """Check that the agent can sit at ``table`` (a `PPOAgent`: its own only); the view it
        plays through there (None: the network itself)."""
        check_game(self.name, self.game, table)
        meta = self.meta
        if meta.obs_size != table.obs_spec.size or meta.num_actions != table.num_actions:
            raise TableMismatchError(
                f"{self.name}: the model expects observations ({meta.obs_size},) and "
                f"{meta.num_actions} actions (it trained at {self.game} with {meta.options}), "
                f"this table has ({table.obs_spec.size},) and {table.num_actions} (different "
                f"rule options or player count: {describe_table(table)}); seat it at its own "
                f"table, or pick an agent for this one (cardsuite agents --game {table.game})"
                + (ANY_TABLE_HINT if self.game in LAYOUTS else "")
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


#: What a table-sized agent's size error adds where the game has a size-generic layout.
ANY_TABLE_HINT = (
    "; to seat it at every size of the game, copy it marked any-table: "
    "python -m cardsuite.agents.learned.any_table AGENT_DIR NEW_DIR"
)
