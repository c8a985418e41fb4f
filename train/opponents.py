"""The opponent pool: who plays the other seats of a self-play env.

Each episode, every seat other than the learner's gets an opponent drawn from
the pool: ``random``, ``heuristic`` (through :mod:`agents.registry`) or a
frozen *snapshot* of the learner, with the probabilities of the training
config. Snapshots are plain numpy copies of the learner's policy network
(:class:`Snapshot`), so they pickle cheaply to worker processes and act
without torch (:class:`SnapshotAgent`, a numpy forward pass that gives the
same action distribution as the torch policy).

The observation scaling shared by the learner, snapshots and
:class:`~train.policy.PPOAgent` lives here too (:func:`obs_scale`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardsuite.agents.base import Agent, TableInfo
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.obsspec import ObsSpec


def obs_scale(spec: ObsSpec) -> np.ndarray:
    """Per-entry factors that bring every observation entry into [-1, 1].

    Each entry is divided by the larger of 1 and its declared bound, so raw
    counts (cards left, up to 54) do not saturate the first tanh layer.
    """
    low, high = spec.bounds()
    bound = np.maximum(np.maximum(np.abs(low), np.abs(high)), 1.0)
    bound[~np.isfinite(bound)] = 1.0
    return (1.0 / bound).astype(np.float32)


def masked_logits(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``logits`` with illegal actions at ``-inf`` (the mask is never all zero)."""
    return np.where(np.asarray(mask, dtype=bool), logits, -np.inf)


@dataclass(frozen=True)
class Snapshot:
    """A frozen copy of the learner's policy network.

    Attributes:
        step: the learner's step count when the snapshot was taken.
        params: the policy net's parameters by state-dict name
            (``mlp_extractor.policy_net.{i}.weight|bias`` and
            ``action_net.weight|bias``), float32 arrays.
        activation: the hidden activation, ``"tanh"`` or ``"relu"``.
    """

    step: int
    params: Mapping[str, np.ndarray]
    activation: str

    def layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(weight, bias) of each hidden layer in order, then the action layer."""
        hidden = sorted(
            {
                int(name.split(".")[2])
                for name in self.params
                if name.startswith("mlp_extractor.policy_net.")
            }
        )
        try:
            layers = [
                (
                    self.params[f"mlp_extractor.policy_net.{i}.weight"],
                    self.params[f"mlp_extractor.policy_net.{i}.bias"],
                )
                for i in hidden
            ]
            layers.append((self.params["action_net.weight"], self.params["action_net.bias"]))
        except KeyError as err:
            raise CheckpointError(f"policy snapshot lacks parameter {err.args[0]!r}") from None
        return layers

    def logits(self, scaled_obs: np.ndarray) -> np.ndarray:
        """Action logits of a (scaled) observation, or a batch of them."""
        x = np.asarray(scaled_obs, dtype=np.float32)
        layers = self.layers()
        act = np.tanh if self.activation == "tanh" else _relu
        for weight, bias in layers[:-1]:
            x = act(x @ weight.T + bias)
        weight, bias = layers[-1]
        return np.asarray(x @ weight.T + bias)


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


class SnapshotAgent:
    """An :class:`~agents.base.Agent` that plays a :class:`Snapshot`.

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
        logits = masked_logits(self.snapshot.logits(observation * self._scale), action_mask)
        if self.deterministic:
            return int(np.argmax(logits))
        z = logits - logits.max()
        p = np.exp(z)
        p /= p.sum()
        return int(self._rng.choice(len(p), p=p))


@dataclass
class OpponentPool:
    """Draw probabilities per opponent kind and the kept snapshots.

    Attributes:
        game: the game's registry name (baselines are built for it).
        probs: probability of ``"random"``, ``"heuristic"``, ``"snapshot"``.
        max_snapshots: how many snapshots to keep (the oldest leave first).
        snapshots: the kept snapshots, oldest first.
    """

    game: str
    probs: Mapping[str, float]
    max_snapshots: int
    snapshots: list[Snapshot] = field(default_factory=list)

    def add(self, snapshot: Snapshot) -> None:
        """Keep ``snapshot``, dropping the oldest beyond :attr:`max_snapshots`."""
        self.snapshots.append(snapshot)
        del self.snapshots[: max(0, len(self.snapshots) - self.max_snapshots)]

    def set_snapshots(self, snapshots: list[Snapshot]) -> None:
        """Replace the kept snapshots (the trainer's refresh of a worker's pool)."""
        self.snapshots = list(snapshots)[-self.max_snapshots :]

    def kinds(self) -> list[str]:
        """The kinds with positive probability that can be drawn now."""
        return [
            kind
            for kind, p in self.probs.items()
            if p > 0 and (kind != "snapshot" or self.snapshots)
        ]

    def draw_kind(self, rng: np.random.Generator) -> tuple[str, Snapshot | None]:
        """A kind by probability, and for ``"snapshot"`` a snapshot drawn uniformly.

        While the pool has no snapshot yet, the snapshot share goes to the
        other kinds in proportion (or to ``random`` if they have none).
        """
        kinds = self.kinds()
        if not kinds:
            kinds = ["random"]
            weights = np.ones(1)
        else:
            weights = np.array([self.probs[k] for k in kinds], dtype=np.float64)
        kind = kinds[int(rng.choice(len(kinds), p=weights / weights.sum()))]
        if kind == "snapshot":
            return kind, self.snapshots[int(rng.integers(len(self.snapshots)))]
        return kind, None

    def draw(self, rng: np.random.Generator) -> Agent:
        """An opponent agent drawn as :meth:`draw_kind` says."""
        kind, snap = self.draw_kind(rng)
        if snap is not None:
            return SnapshotAgent(snap)
        return self._baseline(kind)

    def _baseline(self, kind: str) -> Agent:
        """A fresh baseline (one per seat, so seats never share an agent's state)."""
        from cardsuite.agents.registry import make_agent

        return make_agent(kind, self.game)

    def describe(self) -> dict[str, Any]:
        """JSON-friendly metadata: probabilities and the snapshots' steps."""
        return {
            "probs": dict(self.probs),
            "max_snapshots": self.max_snapshots,
            "snapshot_steps": [s.step for s in self.snapshots],
        }
