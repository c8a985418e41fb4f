"""Frozen snapshots at play (`SnapshotPolicy` on a batch, `SnapshotAgent` at one seat), and
the League's draw table at per-game tables (`SeatMember`, `draw_seat`, `seat_agent`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardsuite.agents.base import Agent, TableInfo
from cardsuite.agents.learned.netspec import Snapshot, obs_scale, pick
from cardsuite.errors import CheckpointError, ConfigError


class SnapshotPolicy:
    """A frozen snapshot playing a batch (numpy or torch in, numpy out): it samples its
    masked policy, or with ``greedy`` plays the legal action of highest output."""

    def __init__(self, snapshot: Snapshot, scale: Any, seed: int, greedy: bool = False) -> None:
        self.snapshot = snapshot
        self.scale = np.asarray(scale.cpu().numpy() if hasattr(scale, "cpu") else scale,
                                dtype=np.float32)  # fmt: skip
        self.rng = np.random.default_rng(seed)
        self.greedy = greedy

    def __call__(self, obs: Any, mask: Any) -> np.ndarray:
        o = np.asarray(obs.cpu().numpy() if hasattr(obs, "cpu") else obs, dtype=np.float32)
        m = mask.cpu().numpy() if hasattr(mask, "cpu") else np.asarray(mask)
        logits = self.snapshot.logits(o * self.scale)
        return np.asarray(pick(logits, m, greedy=self.greedy, rng=self.rng), dtype=np.int64)


class SnapshotAgent:
    """An arena agent that plays a `Snapshot`: it samples (seeded by ``seed``, or by
    ``reset``'s) or, ``deterministic``, plays the most likely legal action."""

    def __init__(
        self, snapshot: Snapshot, *, deterministic: bool = False, seed: int | None = None
    ) -> None:
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
    """One row of a League's draw table (`League.seat_table`): the member's ``id`` (outcomes
    are reported by it), ``name``, draw probability ``prob`` and a snapshot's ``snapshot``."""

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
    """The arena agent that plays ``member`` at one seat of a ``game`` table: a
    `SnapshotAgent`, or the registry's agent of its name, fresh per seat."""
    if member.snapshot is not None:
        return SnapshotAgent(member.snapshot)
    from cardsuite.agents.registry import make_agent

    return make_agent(member.name, game)
