"""Duplicate matches of two batch policies on the batched Scum engine (fast evaluation).

The same measure as the arena's duplicate head-to-head
(``run_tournament(..., duplicate=True)``, :mod:`cardsuite.agents.arena`):
each deal (the role draw and hands of a fresh game's first series, no
trades) is played once per rotation of the two agents over the seats (seat
``s`` gets agent ``((s + r) mod n) mod 2``), and agent A *beats* B on a deal
when its mean episode reward over its seats of all rotations is higher
(ties count one half). All deals and rotations are played at once as one
batch. Deals come from the batched engine's counter-based streams keyed by
``seed``: use a seed training never used (the trainer trains on its own
``seed``, evaluates on ``eval_seed``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from cardsuite.errors import ConfigError
from scum_env.batched import BatchedScum

BatchPolicy = Callable[[Any, Any], Any]


@dataclass(frozen=True)
class DuelResult:
    """Outcome of :func:`duplicate_match`.

    Attributes:
        deals: deals played (each in every rotation).
        beats: share of deals where A's mean reward beat B's (ties: half).
        beats_ci: 95% half-width of ``beats`` (normal approximation).
        mean_a, mean_b: mean episode reward per seat-game of A and B.
        margin: mean over deals of A's minus B's mean reward.
        margin_ci: 95% half-width of ``margin``.
    """

    deals: int
    beats: float
    beats_ci: float
    mean_a: float
    mean_b: float
    margin: float
    margin_ci: float

    def to_dict(self) -> dict[str, float]:
        """As a plain dict."""
        return {k: float(v) for k, v in self.__dict__.items()}


class GreedyActor:
    """The most likely legal action of an actor network (the evaluated agent's play)."""

    def __init__(self, actor: torch.nn.Module, scale: torch.Tensor) -> None:
        """Play ``actor`` on observations multiplied by ``scale``."""
        self.actor, self.scale = actor, scale

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One action per row."""
        dev = self.scale.device
        with torch.no_grad():
            o = torch.from_numpy(np.ascontiguousarray(obs)).to(dev) * self.scale
            m = torch.from_numpy(np.ascontiguousarray(mask)).to(dev).bool()
            logits = self.actor(o).masked_fill(~m, -1e8)
            return logits.argmax(dim=-1).cpu().numpy()


def duplicate_match(
    policy_a: BatchPolicy, policy_b: BatchPolicy, *, deals: int, seed: int, **config: Any
) -> DuelResult:
    """Play ``deals`` duplicate deals of A against B (module doc); numpy engine."""
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise ConfigError(f"deals must be a positive integer, got {deals!r}")
    ref = BatchedScum(deals, **config)
    ref.reset(seed)
    n = ref.P
    rows = np.arange(deals)[:, None]
    by_player = np.zeros((deals, n, ref.K), dtype=np.int64)
    by_player[rows, ref.order] = ref.hands
    rot = 2 if n % 2 == 0 else n
    games = deals * rot
    agent = np.zeros((games, n), dtype=np.int64)  # agent index of each player id
    for r in range(rot):
        agent[r * deals : (r + 1) * deals] = [((s + r) % n) % 2 for s in range(n)]
    eng = BatchedScum(games, autoreset=False, **config)
    obs, mask, to_act = eng.reset(
        seed, hands=np.tile(by_player, (rot, 1, 1)), roles=np.tile(ref.order, (rot, 1))
    )
    total = np.zeros((games, n), dtype=np.float64)
    live = np.ones(games, dtype=bool)
    g_ar = np.arange(games)
    while live.any():
        who = agent[g_ar, to_act]
        actions = np.zeros(games, dtype=np.int64)
        for k, policy in ((0, policy_a), (1, policy_b)):
            idx = np.flatnonzero(live & (who == k))
            if idx.size:
                actions[idx] = np.asarray(policy(obs[idx], mask[idx]))
        res = eng.step(actions, active=live)
        total += res.rewards
        live &= ~res.done
        obs, mask, to_act = res.obs, res.mask, res.to_act
    score = np.zeros((deals, 2))
    seats = np.zeros((deals, 2))
    for r in range(rot):
        part = slice(r * deals, (r + 1) * deals)
        for k in (0, 1):
            hit = agent[part] == k
            score[:, k] += (total[part] * hit).sum(axis=1)
            seats[:, k] += hit.sum(axis=1)
    mean = score / seats
    diff = mean[:, 0] - mean[:, 1]
    won = (diff > 0) + 0.5 * (diff == 0)
    beats = float(won.mean())
    return DuelResult(
        deals=deals,
        beats=beats,
        beats_ci=1.96 * math.sqrt(max(beats * (1 - beats), 0.0) / deals),
        mean_a=float(score[:, 0].sum() / seats[:, 0].sum()),
        mean_b=float(score[:, 1].sum() / seats[:, 1].sum()),
        margin=float(diff.mean()),
        margin_ci=float(1.96 * diff.std(ddof=1) / math.sqrt(deals)) if deals > 1 else 0.0,
    )
