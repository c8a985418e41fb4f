"""Size-generic learned agents (``network.layout: "generic"``): one network for every table
size of its game; `TrainedAgent` is the ``ppo:PATH`` kind's loader.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.learned.any_table import AnyTableAgent
from cardsuite.agents.learned.layout import (
    check_sizes,
    check_table_fits,
    generic_spec,
    layout_of,
    pad_observation,
)
from cardsuite.agents.learned.netspec import Snapshot, TableView, obs_scale
from cardsuite.agents.learned.policy import PPOAgent
from cardsuite.agents.learned.safe_io import AgentMeta
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.moved import moved_getattr, moved_table


@functools.lru_cache(maxsize=8)
def generic_scale(game: str) -> np.ndarray:
    """Per-entry input factors of ``game``'s size-generic layout (`obs_scale` of its spec)."""
    return obs_scale(generic_spec(game))


def check_generic_meta(meta: AgentMeta, where: str) -> None:
    """A size-generic agent's metadata fits its game's generic layout.

    Raises:
        CheckpointError: naming the field that does not fit.
    """
    if meta.network.layout != "generic":
        raise CheckpointError(
            f"{where}: field 'network.layout' must be 'generic' for a size-generic agent, "
            f"got {meta.network.layout!r}"
        )
    try:
        layout = layout_of(meta.game)
    except ConfigError as err:
        raise CheckpointError(f"{where}: field 'game': {err}") from None
    what = f"the size-generic {meta.game} layout"
    check_sizes(meta, where, what, generic_spec(meta.game).size, layout.num_actions)


@dataclass(frozen=True)
class GenericSnapshot(TableView):
    """A size-generic actor seen at one table: `inputs` undoes the table's `obs_scale`, pads,
    and scales as in training."""

    _bound: np.ndarray = field(default_factory=lambda: np.ones(0, np.float32), repr=False)

    def __post_init__(self) -> None:
        """Precompute the table's scale bounds (what its `obs_scale` divides by)."""
        if self.source is None or not self.game or self.table_actions < 1:
            raise ConfigError("GenericSnapshot needs game, source and table_actions")
        object.__setattr__(self, "_bound", (1.0 / obs_scale(self.source)).astype(np.float32))

    def inputs(self, scaled_obs: np.ndarray) -> np.ndarray:
        """A table-scaled observation (or a batch) as the actor and critic read it."""
        assert self.source is not None  # __post_init__
        raw = np.asarray(scaled_obs, dtype=np.float32) * self._bound
        return pad_observation(raw, self.source, self.game) * generic_scale(self.game)

    padded = inputs

    def input_map(self, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`Snapshot.input_map` of the padded layout: generic entry ``j`` is the raw table entry
        it is copied from times the generic scale, or a constant (``seat_present``, padding)."""
        assert self.source is not None  # __post_init__
        if self.features is not None:
            super().input_map(scale)  # raises: derived inputs are not an affine map
        size = self.source.size
        const = pad_observation(np.zeros(size, np.float32), self.source, self.game)
        moved = pad_observation(np.eye(size, dtype=np.float32), self.source, self.game) - const
        src = np.where(moved.any(axis=0), moved.argmax(axis=0), -1).astype(np.int64)
        gscale = generic_scale(self.game)
        factor = np.where(src >= 0, gscale, 0.0).astype(np.float32)
        return src, factor, (const * gscale).astype(np.float32)


class SizeGenericAgent(PPOAgent):
    """A learned agent that sits at any table size of its game, through a `GenericSnapshot`."""

    generic = True

    def __init__(self, arrays: Any, meta: AgentMeta, **kwargs: Any) -> None:
        """Wrap loaded weights (CheckpointError naming a metadata field that does not fit)."""
        check_generic_meta(meta, f"agent {kwargs.get('name', 'ppo')!r}")
        super().__init__(arrays, meta, **kwargs)

    def _seat(self, table: TableInfo) -> Snapshot:
        """Check the table is of the agent's game and fits its layout; the view there."""
        check_table_fits(self.name, self.game, table)
        return self._network_as(
            GenericSnapshot, game=self.game, source=table.obs_spec, table_actions=table.num_actions
        )


class TrainedAgent:
    """The ``ppo:PATH`` kind: `load` gives a `PPOAgent`, `SizeGenericAgent` or `AnyTableAgent`."""

    @classmethod
    def load(
        cls, path: str | Path, game: str | None = None, seed: int | None = None, *,
        deterministic: bool = True,
    ) -> PPOAgent:  # fmt: skip
        """Load an agent, checkpoint or run directory (as its ``network.layout`` says).

        Raises:
            CheckpointError: as `PPOAgent.load`, or metadata that does not fit the layout.
        """
        agent = PPOAgent.load(path, game, seed, deterministic=deterministic)
        if agent.meta.network.layout == "projected":
            try:
                return AnyTableAgent(agent.weights, agent.meta, deterministic=deterministic,
                                     seed=seed, name=agent.name)  # fmt: skip
            except CheckpointError as err:
                raise CheckpointError(f"{str(path)!r}: {err}") from None
        if agent.meta.network.layout != "generic":
            return agent
        return SizeGenericAgent(agent.weights, agent.meta, deterministic=deterministic,
                                seed=seed, name=agent.name)  # fmt: skip


# 0.2's ``cardsuite.train.size_generic`` (this module now) had the size evaluation, in
# `cardsuite.train.tools.sizes` since 0.3 (loaded only when asked for).
__getattr__ = moved_getattr(
    __name__, moved_table("cardsuite.train.tools.sizes", "evaluate_sizes main")
)
