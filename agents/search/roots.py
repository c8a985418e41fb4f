"""The guided search's roots other than PUCT: ``root="gumbel"`` (`HalvingRoot`, Gumbel
AlphaZero's sequential halving without the noise, Danihelka et al., 2022) and ``root="paired"``
(`paired_search`). See docs/search.md, "Search over a learned agent".
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from cardsuite.agents.search.base import Node

#: Gumbel AlphaZero's value scale: ``sigma(q) = (C_VISIT + max visits) * C_SCALE * q``
#: for a normalised mean ``q`` in [0, 1] (Danihelka et al., 2022).
C_VISIT, C_SCALE = 50.0, 1.0


class HalvingRoot:
    """Sequential halving over a root's candidate moves (``root="gumbel"``): ``budget`` split over
    ``ceil(log2(candidates))`` phases, each an equal share per remaining move, then the better
    half by `score` kept. ``log_prior``: ``-inf`` off the legal moves; ``spread``: `score`
    reads the means rescaled."""

    def __init__(
        self, log_prior: np.ndarray, budget: int, candidates: int, spread: bool = True
    ) -> None:
        """Pick the candidates (highest prior, lowest id among equals) and the first quota."""
        self.spread = spread
        legal = np.flatnonzero(np.isfinite(log_prior))
        self.log_prior = log_prior
        self.remaining = candidates_by_prior(log_prior, legal, max(1, candidates))
        self.phases = max(1, math.ceil(math.log2(len(self.remaining))))
        self.budget = budget
        self.quota = 0
        self._raise_quota()

    def _raise_quota(self) -> None:  # the visits each remaining move has by the phase's end
        share = self.budget // (self.phases * len(self.remaining))
        self.quota += max(1, share)

    def pick(self, root: Any) -> int:
        """The remaining move with the fewest visits so far (then the higher prior)."""

        def key(a: int) -> tuple[int, float, int]:
            child = root.children.get(a)
            return 0 if child is None else int(child.visits), -float(self.log_prior[a]), a

        return min(self.remaining, key=key)

    def score(self, root: Any, a: int) -> float:
        """``log prior + sigma(q)``: ``q`` the root mean rescaled to the remaining moves' spread
        (``spread=False``: the mean itself); 0.5 unvisited or without a spread."""
        means = {
            b: c.total / c.visits
            for b, c in root.children.items()
            if c.visits and b in self.remaining
        }
        most = max((root.children[b].visits for b in means), default=0)
        if not self.spread:
            q = means.get(a, 0.5)
        else:
            lo, hi = min(means.values(), default=0.0), max(means.values(), default=0.0)
            q = 0.5 if a not in means or hi <= lo else (means[a] - lo) / (hi - lo)
        return float(self.log_prior[a]) + (C_VISIT + most) * C_SCALE * q

    def after_wave(self, root: Any) -> None:
        """Halve the remaining moves once every one has had its share of this phase."""
        if len(self.remaining) == 1:
            return
        children = root.children
        if any(a not in children or children[a].visits < self.quota for a in self.remaining):
            return
        ranked = sorted(self.remaining, key=lambda a: (-self.score(root, a), a))
        self.remaining = ranked[: math.ceil(len(self.remaining) / 2)]
        self._raise_quota()

    def choose(self, root: Any, allowed: set[int]) -> int | None:
        """The remaining move of highest `score`."""
        moves = [a for a in self.remaining if a in allowed and a in root.children]
        return max(moves, key=lambda a: (self.score(root, a), -a)) if moves else None


def candidates_by_prior(prior: np.ndarray, legal: np.ndarray, count: int) -> list[int]:
    """The ``count`` legal moves of highest prior (the lower id among equals), best first."""
    return sorted((int(a) for a in legal), key=lambda a: (-float(prior[a]), a))[:count]


def paired_choice(rewards: np.ndarray, gate: float) -> int:
    """The column to play of ``rewards`` ``[determinizations, candidates]``: of highest mean gain
    over column 0 among those whose gain is above zero and ``gate`` standard errors, else 0."""
    rewards = np.asarray(rewards, dtype=np.float64)
    rows = rewards.shape[0]
    if rewards.ndim != 2 or rewards.shape[1] < 2 or rows < 2:
        return 0
    gains = rewards[:, 1:] - rewards[:, :1]
    mean = gains.mean(axis=0)
    se = gains.std(axis=0, ddof=1) / math.sqrt(rows)
    ok = (mean > 0) & (mean > gate * se)
    return 1 + int(np.argmax(np.where(ok, mean, -np.inf))) if ok.any() else 0


def paired_search(
    agent: Any, determinize: Callable[[np.random.Generator], Any], prior: np.ndarray,
    legal: np.ndarray,
) -> tuple[Node, int]:  # fmt: skip
    """The root and the move of ``root="paired"``: every candidate of ``agent`` rolled out on
    each of ``budget // candidates`` (at least 2) determinizations, in waves of about ``batch``
    leaves; the root's children hold their rollouts' visits and rewards."""
    game, rng, player = agent._search, agent._rng, agent._player
    moves = candidates_by_prior(prior, legal, agent.candidates)
    root = agent.new_node(-1)
    children = [root.children.setdefault(a, agent.new_node(player)) for a in moves]
    deals = max(2, agent.budget // len(moves))
    per_wave = max(1, agent.batch // len(moves))
    rewards: list[np.ndarray] = []
    start = time.perf_counter()
    while len(rewards) < deals:
        limit = agent.time_limit
        if len(rewards) >= 2 and limit is not None and time.perf_counter() - start >= limit:
            break
        leaves, paths, movers = [], [], []
        for _ in range(min(per_wave, deals - len(rewards))):
            base, me = game.prepare(determinize(rng), player)
            movers.append(me)
            for a, child in zip(moves, children, strict=True):
                state = game.clone(base)
                game.apply(state, a)
                leaves.append(state)
                paths.append([root, child])
        values = agent.evaluate(game, leaves, paths, rng)
        for i, me in enumerate(movers):
            row = values[i * len(moves) : (i + 1) * len(moves)]
            rewards.append(np.array([float(v[me]) for v in row]))
    table = np.stack(rewards)
    for j, child in enumerate(children):
        child.visits = child.avail = table.shape[0]
        child.total = float(table[:, j].sum())
    root.visits = table.size
    return root, moves[paired_choice(table, agent.gate)]
