"""A league of opponents for batched training: baselines and frozen snapshots, sampled by PFSP.

Members are batch policies (``policy(obs, mask) -> actions`` over the
engine's arrays): the fixed baselines (``heuristic``: the real Scum heuristic,
vectorised, :class:`~cardsuite.agents.batched_heuristic_scum.BatchedScumHeuristic`;
``random``) and frozen copies of the learner's actor taken during training
(:meth:`League.add_snapshot`), which sample their masked policy.

Each game of the batch that is not pure self-play is assigned one member
for its other seats; a game draws a new member whenever its episode ends
(:meth:`League.draw`), so one batch holds games against many opponents at
once and :meth:`League.act` plays each member's rows in one call.

Prioritised fictitious self-play (PFSP, AlphaStar): the probability of
drawing a member grows with how often it beats the learner. Every finished
game reports the learner's outcome against its member (1 win, 0.5 tie,
0 loss: the learner's episode reward against the mean of the others',
:meth:`League.record`); counts decay by ``decay`` per game so the estimates
follow the learner. Weightings of the member's win rate ``x`` against the
learner: ``hard`` ``x ** power`` (focus on the members that beat it),
``variance`` ``x * (1 - x)`` (members of equal strength), ``uniform``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from cardsuite.batched.policies import call_policy
from cardsuite.errors import ConfigError

WEIGHTINGS = ("hard", "variance", "uniform")


@dataclass
class Member:
    """One league member.

    Attributes:
        id: a stable id (games refer to members by id).
        name: ``"heuristic"``, ``"random"`` or ``"snapshot@STEP"``.
        policy: the batch policy.
        wins: decayed count of games the member beat the learner (ties: half).
        games: decayed count of games played against the learner.
    """

    id: int
    name: str
    policy: Callable[[Any, Any], Any]
    wins: float = 1.0
    games: float = 2.0

    @property
    def win_rate(self) -> float:
        """The member's estimated rate of beating the learner (prior: 1 of 2)."""
        return self.wins / self.games


class SnapshotPolicy:
    """A frozen copy of the learner's actor, sampling its masked policy on a batch."""

    def __init__(self, actor: torch.nn.Module, scale: torch.Tensor, seed: int) -> None:
        """Freeze ``actor`` (a deep copy); observations are multiplied by ``scale``."""
        self.actor = copy.deepcopy(actor).eval()
        for p in self.actor.parameters():
            p.requires_grad_(False)
        self.scale = scale
        self.gen = torch.Generator(device=scale.device)
        self.gen.manual_seed(seed)

    def __call__(self, obs: Any, mask: Any) -> Any:
        """A sampled legal action per row (numpy in, numpy out; torch in, torch out)."""
        numpy_in = isinstance(obs, np.ndarray)
        dev = self.scale.device
        o = torch.from_numpy(obs).to(dev) if numpy_in else obs.to(dev)
        m = torch.from_numpy(mask).to(dev) if numpy_in else mask.to(dev)
        with torch.no_grad():
            logits = self.actor(o * self.scale).masked_fill(~m.bool(), -1e8)
            u = torch.rand(logits.shape, generator=self.gen, device=dev).clamp_(1e-20, 1.0)
            a = torch.argmax(logits - torch.log(-torch.log(u)), dim=-1)
        return a.cpu().numpy() if numpy_in else a.to(mask.device)


class League:
    """Baselines plus the newest ``max_snapshots`` snapshots, drawn by PFSP.

    Args:
        baselines: name -> batch policy of the fixed members.
        max_snapshots: snapshots kept (the oldest leaves first).
        weighting: ``"hard"``, ``"variance"`` or ``"uniform"`` (module doc).
        power: exponent of the ``hard`` weighting.
        decay: per-game decay of a member's counts (1: never forget).
        seed: seeds the draws and the snapshots' sampling.
    """

    def __init__(
        self,
        baselines: dict[str, Callable[[Any, Any], Any]],
        *,
        max_snapshots: int = 8,
        weighting: str = "hard",
        power: float = 2.0,
        decay: float = 0.999,
        seed: int = 0,
    ) -> None:
        """Start with the baselines only."""
        if weighting not in WEIGHTINGS:
            raise ConfigError(f"pfsp weighting must be one of {WEIGHTINGS}, got {weighting!r}")
        if max_snapshots < 0:
            raise ConfigError(f"max_snapshots must be >= 0, got {max_snapshots}")
        if not 0.0 < decay <= 1.0:
            raise ConfigError(f"league decay must be in (0, 1], got {decay}")
        self.weighting, self.power, self.decay = weighting, power, decay
        self.max_snapshots = max_snapshots
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self._next_id = 0
        self.members: list[Member] = []
        self.retired: dict[int, Member] = {}
        for name, policy in baselines.items():
            self._add(name, policy)

    def _add(self, name: str, policy: Callable[[Any, Any], Any]) -> Member:
        m = Member(self._next_id, name, policy)
        self._next_id += 1
        self.members.append(m)
        return m

    def add_snapshot(self, actor: torch.nn.Module, scale: torch.Tensor, step: int) -> Member:
        """Freeze the learner's actor as a new member; retire the oldest snapshot beyond the cap."""
        policy = SnapshotPolicy(actor, scale, self.seed * 7919 + self._next_id)
        member = self._add(f"snapshot@{step}", policy)
        snaps = [m for m in self.members if m.name.startswith("snapshot@")]
        for old in snaps[: max(0, len(snaps) - self.max_snapshots)]:
            self.members.remove(old)
            self.retired[old.id] = old
        return member

    def probabilities(self) -> np.ndarray:
        """The PFSP draw probability of each member (in :attr:`members` order)."""
        x = np.array([m.win_rate for m in self.members], dtype=np.float64)
        if self.weighting == "hard":
            w = x**self.power
        elif self.weighting == "variance":
            w = x * (1 - x)
        else:
            w = np.ones_like(x)
        w = np.maximum(w, 1e-3)
        return w / w.sum()

    def draw(self, n: int) -> np.ndarray:
        """Ids of ``n`` members drawn by PFSP."""
        if not self.members:
            raise ConfigError("the league has no members to draw from")
        ids = np.array([m.id for m in self.members], dtype=np.int64)
        return ids[self.rng.choice(len(ids), size=n, p=self.probabilities())]

    def prune(self, in_use: np.ndarray) -> None:
        """Forget retired members no game refers to any more."""
        used = set(np.unique(in_use).tolist())
        for mid in [i for i in self.retired if i not in used]:
            del self.retired[mid]

    def member(self, mid: int) -> Member:
        """The member with id ``mid`` (active or retired)."""
        for m in self.members:
            if m.id == mid:
                return m
        if mid in self.retired:
            return self.retired[mid]
        raise ConfigError(f"no league member with id {mid}")

    def act(
        self, ids: np.ndarray, obs: Any, mask: Any, games: np.ndarray | None = None,
        players: np.ndarray | None = None,
    ) -> np.ndarray:  # fmt: skip
        """Actions of rows whose games face members ``ids`` (one call per member).

        ``games`` and ``players`` (the rows' game indices and acting player
        ids) are handed to per-game policies
        (:func:`~cardsuite.batched.policies.call_policy`); by default row
        ``i`` is game ``i``.
        """
        out = np.zeros(len(ids), dtype=np.int64)
        g_all = np.arange(len(ids)) if games is None else np.asarray(games)
        for mid in np.unique(ids).tolist():
            rows = np.flatnonzero(ids == mid)
            who = None if players is None else np.asarray(players)[rows]
            acts = call_policy(self.member(mid).policy, obs[rows], mask[rows], g_all[rows], who)
            out[rows] = acts.cpu().numpy() if hasattr(acts, "cpu") else np.asarray(acts)
        return out

    def record(self, ids: np.ndarray, learner_outcome: np.ndarray) -> None:
        """Update the members' win estimates from finished games (learner 1 / 0.5 / 0)."""
        for mid in np.unique(ids).tolist():
            hit = ids == mid
            m = self.member(mid)
            k = int(hit.sum())
            keep = self.decay**k
            m.wins = m.wins * keep + float((1.0 - learner_outcome[hit]).sum())
            m.games = m.games * keep + k

    def describe(self) -> list[dict[str, Any]]:
        """JSON-friendly state: each member's name, win estimate and draw probability."""
        probs = self.probabilities()
        return [
            {"name": m.name, "win_rate": round(m.win_rate, 4), "prob": round(float(p), 4),
             "games": round(m.games, 1)}
            for m, p in zip(self.members, probs)
        ]  # fmt: skip


def snapshot_names(members: Sequence[Member]) -> list[str]:
    """The names of the snapshot members, oldest first."""
    return [m.name for m in members if m.name.startswith("snapshot@")]
