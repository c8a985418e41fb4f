"""Table-sized agents that sit at any table of their game (``network.layout: projected``).

At its own table such an agent is the `PPOAgent` it is; at another the observation is padded
into the size-generic layout and cut back to its own seats and tables (missing ones read
zero, each entry keeps the table's scaling), and a larger table's further actions get the
logit `FAR_BELOW`. `mark_any_table` (``python -m cardsuite.agents.learned.any_table``) marks
a copy of an agent; how well it plays off its size: ``docs/results.md``.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.learned.layout import (
    LAYOUTS,
    check_sizes,
    check_table_fits,
    pad_observation,
    table_spec,
    unpad_observation,
)
from cardsuite.agents.learned.netspec import FAR_BELOW as FAR_BELOW  # the module doc's
from cardsuite.agents.learned.netspec import Snapshot, TableView
from cardsuite.agents.learned.policy import PPOAgent
from cardsuite.agents.learned.safe_io import AgentMeta, load_agent_numpy, save_agent
from cardsuite.errors import CardsuiteError, CheckpointError, ConfigError
from cardsuite.obsspec import ObsSpec


def own_table(meta: AgentMeta, where: str) -> tuple[ObsSpec, int]:
    """The observation spec and action count of the table ``meta.options`` describes.

    Raises:
        CheckpointError: naming the field (``network.layout``, ``options``, ``obs_size``,
            ``num_actions``) that does not fit.
    """
    if meta.game not in LAYOUTS:
        raise CheckpointError(
            f"{where}: field 'network.layout': 'projected' needs a game with a size-generic "
            f"layout ({', '.join(LAYOUTS)}), not {meta.game!r}"
        )
    try:
        spec, actions = table_spec(meta.game, json.dumps(meta.options, sort_keys=True))
    except (CardsuiteError, TypeError, ValueError) as err:
        raise CheckpointError(f"{where}: field 'options' does not build a table: {err}") from None
    check_sizes(meta, where, "its options' table", spec.size, actions)
    return spec, actions


def as_projected(meta: AgentMeta, where: str) -> AgentMeta:
    """``meta`` marked ``network.layout: projected``; CheckpointError where it is not
    table-sized or `own_table`'s checks fail."""
    if meta.network.layout != "table":
        raise CheckpointError(
            f"{where}: field 'network.layout' is {meta.network.layout!r}; only a table-sized "
            "network ('table') can be made any-table"
        )
    network = dataclasses.replace(meta.network, layout="projected")
    marked = dataclasses.replace(meta, network=network)
    own_table(marked, where)
    return marked


def mark_any_table(source: str | Path, target: str | Path) -> Path:
    """Copy the agent folder ``source`` to the new folder ``target``, marked any-table.

    Raises:
        CheckpointError: ``source`` is not a loadable table-sized agent of a game with a
            size-generic layout, or ``target`` exists and is not empty.
    """
    arrays, meta = load_agent_numpy(source)
    return save_agent(target, arrays, as_projected(meta, f"agent {str(source)!r}"))


@dataclass(frozen=True)
class ProjectedSnapshot(TableView):
    """A table-sized actor at another table: `inputs` projects onto ``own``, its table's spec."""

    own: ObsSpec | None = None
    _src: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)

    def __post_init__(self) -> None:
        """Check the fields; network entry ``j`` is table entry ``_src[j]`` (-1: zero)."""
        if self.source is None or self.own is None or not self.game or self.table_actions < 1:
            raise ConfigError("ProjectedSnapshot needs game, source, own and table_actions")
        eye = np.eye(self.source.size, dtype=np.float32)
        moved = unpad_observation(pad_observation(eye, self.source, self.game), self.own, self.game)
        src = np.where(moved.any(axis=0), moved.argmax(axis=0), -1).astype(np.int64)
        object.__setattr__(self, "_src", src)

    def inputs(self, scaled_obs: np.ndarray) -> np.ndarray:
        """The network's input (its own table's layout) of table-scaled observations."""
        x = np.asarray(scaled_obs, dtype=np.float32)
        return np.where(self._src >= 0, x[..., np.maximum(self._src, 0)], np.float32(0.0))

    project = inputs

    def input_map(self, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`Snapshot.input_map` of the projection: network entry ``j`` is the table's raw entry
        ``src[j]`` times the table's ``scale`` there, or zero (``src[j] = -1``)."""
        if self.features is not None:
            super().input_map(scale)  # raises: derived inputs are not an affine map
        src = self._src.copy()
        factor = np.where(src >= 0, np.asarray(scale, np.float32).reshape(-1)[src], 0.0)
        return src, factor.astype(np.float32), np.zeros(src.size, np.float32)


class AnyTableAgent(PPOAgent):
    """A table-sized learned agent at any table of its game, through a `ProjectedSnapshot`."""

    def __init__(self, arrays: Any, meta: AgentMeta, **kwargs: Any) -> None:
        """Wrap loaded weights (CheckpointError naming a metadata field that does not fit)."""
        where = f"agent {kwargs.get('name', 'ppo')!r}"
        if meta.network.layout != "projected":
            raise CheckpointError(
                f"{where}: field 'network.layout' must be 'projected' for an any-table agent, "
                f"got {meta.network.layout!r}"
            )
        self._own, _ = own_table(meta, where)
        super().__init__(arrays, meta, **kwargs)

    def _seat(self, table: TableInfo) -> Snapshot | None:
        """Accept a table of its game that fits the generic layout; the projection (None: own)."""
        check_table_fits(self.name, self.game, table)
        if table.obs_spec.size == self.meta.obs_size and table.num_actions == self.meta.num_actions:
            return None
        return self._network_as(
            ProjectedSnapshot,
            game=self.game,
            source=table.obs_spec,
            own=self._own,
            table_actions=table.num_actions,
        )


def main(argv: list[str] | None = None) -> int:
    """``python -m cardsuite.agents.learned.any_table SOURCE TARGET``: `mark_any_table`."""
    import argparse

    p = argparse.ArgumentParser(description="copy a table-sized agent folder, marked any-table")
    p.add_argument("source", help="a table-sized agent folder (RUN/agent)")
    p.add_argument("target", help="the new agent folder (must not exist)")
    a = p.parse_args(argv)
    try:
        out = mark_any_table(a.source, a.target)
    except CardsuiteError as err:
        p.exit(2, f"error: {err}\n")
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
