"""The League at per-game tables: its draw table, a seat's draw and the agent that plays it.

MaskablePPO's per-game envs and RLlib's per-game sampler seat one arena
agent per opponent seat. They get the League's draw table
(`cardsuite.train.core.league.League.seat_table`, rows `SeatMember`), draw a
member per seat from it (`draw_seat`) and play it as an arena agent
(`seat_agent`: the game's real heuristic, random, or a `SnapshotAgent` of
the member's `Snapshot`); each seat's outcome goes back to `League.record`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardsuite.agents.base import Agent, TableInfo
from cardsuite.agents.learned.netspec import Snapshot, obs_scale, pick
from cardsuite.errors import CheckpointError, ConfigError


class SnapshotAgent:
    """An arena agent (`cardsuite.agents.base.Agent`) that plays a `Snapshot`.

    Args:
        snapshot: the frozen policy.
        deterministic: play the most likely legal action instead of sampling.
        seed: seeds the sampling (``reset`` reseeds when given one).
    """

    def __init__(
        self, snapshot: Snapshot, *, deterministic: bool = False, seed: int | None = None
    ) -> None:
        """Wrap ``snapshot``; the observation scale is set at ``reset``."""
        self.name = f"snapshot@{snapshot.step}"
        self.snapshot = snapshot
        self.deterministic = deterministic
        self._layers = snapshot.layers()
        self._rng = np.random.default_rng(seed)
        self._scale: np.ndarray | None = None

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Check the table fits the network; reseed when given a seed."""
        in_size = self._layers[0][0].shape[1]
        out_size = self._layers[-1][0].shape[0]
        if table.obs_spec.size != in_size or table.num_actions != out_size:
            raise CheckpointError(
                f"{self.name}: the policy expects observations of size {in_size} and "
                f"{out_size} actions, but this table has {table.obs_spec.size} and "
                f"{table.num_actions} (different game or rule options)"
            )
        self._scale = obs_scale(table.obs_spec)
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """A legal action drawn from (or the mode of) the masked policy."""
        if self._scale is None:
            raise ConfigError(f"{self.name}: call reset(table) before act()")
        logits = self.snapshot.logits(observation * self._scale)
        return int(pick(logits, action_mask, self.deterministic, self._rng))


@dataclass(frozen=True)
class SeatMember:
    """One row of a League's draw table (`League.seat_table`), sent to per-game envs.

    Attributes:
        id: the member's id (the env reports outcomes against it by this id).
        name: ``"heuristic"``, ``"random"`` or ``"snapshot@STEP"``.
        prob: its draw probability.
        snapshot: the frozen policy of a snapshot member.
    """

    id: int
    name: str
    prob: float
    snapshot: Snapshot | None = None


def draw_seat(table: Sequence[SeatMember], rng: np.random.Generator) -> SeatMember:
    """One member of ``table`` drawn by its probabilities."""
    if not table:
        raise ConfigError("the league has no members to draw from")
    p = np.array([m.prob for m in table], dtype=np.float64)
    return table[int(rng.choice(len(table), p=p / p.sum()))]


def seat_agent(member: SeatMember, game: str) -> Agent:
    """The arena agent that plays ``member`` at one seat of a ``game`` table.

    A snapshot plays its `Snapshot` (`SnapshotAgent`); a fixed member is the
    registry's agent of that name (``heuristic``: the game's real heuristic),
    fresh per seat so seats never share an agent's state.
    """
    if member.snapshot is not None:
        return SnapshotAgent(member.snapshot)
    from cardsuite.agents.registry import make_agent

    return make_agent(member.name, game)
