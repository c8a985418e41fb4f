"""Order-free ratings: one Bradley-Terry fit to every deal at once (``docs/leaderboard.md``).

The fit sees only the win matrix ``W[a][b]`` plus one virtual tied deal per pair that played:
choix's I-LSR, or `fit_strengths_batch` (stacked Newton, 20 to 40 times faster) for held
references and bootstrap refits. choix and scipy are imported where used (start-up speed).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cardsuite.agents.arena import stats
from cardsuite.agents.arena.stats import percentile_bootstrap
from cardsuite.errors import ConfigError
from cardsuite.moved import moved_getattr, moved_table

#: Elo points per unit of the Bradley-Terry strength (400 points = 10:1 odds).
ELO_PER_UNIT = 400.0 / math.log(10.0)

#: Weight of the virtual tied deal added to every pair that played.
PRIOR_TIES = 1.0


# The other names of 0.2's ``cardsuite.agents.ratings``, by their home now, with a warning (PEP 562).
__getattr__ = moved_getattr(__name__, moved_table(stats, "mean_interval deals_for_half_width"))


@dataclass(frozen=True)
class PairDeals:
    """The deal outcomes of one pair: per deal 1 (``a`` won), 0.5 (tie) or 0 (``b`` won)."""

    a: int
    b: int
    outcomes: np.ndarray


@dataclass(frozen=True)
class Ratings:
    """Fitted Elo ratings with 95% bootstrap intervals (``resamples`` 0: none), ``anchor`` at 0."""

    agents: list[str]
    rating: list[float]
    low: list[float]
    high: list[float]
    anchor: str
    resamples: int
    tiers: list[int]

    def order(self) -> list[int]:
        """Agent indices, best rating first (ties: in the order given)."""
        return sorted(range(len(self.agents)), key=lambda i: (-self.rating[i], i))

    @property
    def identified(self) -> bool:
        """True when the deals measure every rating gap (one tier: `tiers`)."""
        return len(set(self.tiers)) <= 1

    def unmeasured(self, unit: str = "deal") -> str | None:
        """A sentence naming the gaps that the units (``unit``: deal, game) do not measure, or None."""
        if self.identified:
            return None
        named = [
            ", ".join(f"`{a}`" for a, tier in zip(self.agents, self.tiers) if tier == t)
            for t in sorted(set(self.tiers))
        ]
        return (
            "Not measured: the rating gaps between the groups "
            + ", ".join(f"{{{n}}}" for n in named)
            + f" (strongest first). No agent of a lower group won or tied a {unit} against a "
            "higher one, so the distance between groups is set by the fit's prior (one virtual "
            f"tied {unit} per pair), not by the games, and the intervals do not measure it; only "
            "distances within a group are measured"
        )


def win_matrix(num_agents: int, pairs: Sequence[PairDeals]) -> np.ndarray:
    """``W[a][b]``: deals ``a`` won against ``b`` (ties half); the fit's only input."""
    wins = np.zeros((num_agents, num_agents))
    for pair in pairs:
        out = np.asarray(pair.outcomes, dtype=np.float64)
        won = float(out.sum())
        wins[pair.a, pair.b] += won
        wins[pair.b, pair.a] += out.size - won
    return wins


def fit_strengths(
    wins: np.ndarray, *, anchor: int = 0, fixed: dict[int, float] | None = None
) -> np.ndarray:
    """Bradley-Terry strengths (natural units) from ``W``: ``anchor`` at 0, or ``fixed`` ones held.

    ConfigError: an agent that played no deal, or comparisons in more than one piece.
    """
    import choix

    wins = np.asarray(wins, dtype=np.float64)
    played = (wins + wins.T) > 0
    _check_connected(played, fixed or {anchor: 0.0})
    if fixed:
        return fit_strengths_batch(wins[None], played, fixed=fixed)[0]
    theta = choix.ilsr_pairwise_dense(_with_prior(wins, played), max_iter=10_000, tol=1e-12)
    return np.asarray(theta - theta[anchor], dtype=np.float64)


def _with_prior(wins: np.ndarray, played: np.ndarray) -> np.ndarray:
    """The win matrices with the virtual tied deal (half a win each way) of every pair that played."""
    return wins + np.where(played, PRIOR_TIES / 2.0, 0.0)


def fit_strengths_batch(
    wins: np.ndarray,
    played: np.ndarray,
    *,
    anchor: int = 0,
    fixed: dict[int, float] | None = None,
    iterations: int = 100,
) -> np.ndarray:
    """`fit_strengths` for ``(B, k, k)`` win matrices at once: ``(B, k)`` strengths.

    Newton's method with step halving; the virtual ties make the likelihood
    strictly concave, so it reaches choix's maximum (a test holds it there).
    """
    w = _with_prior(np.asarray(wins, dtype=np.float64), np.asarray(played, dtype=bool))
    batch, k = w.shape[0], w.shape[1]
    n = w + np.swapaxes(w, 1, 2)
    pinned = fixed or {anchor: 0.0}
    free = np.array([i for i in range(k) if i not in pinned], dtype=np.intp)
    theta = np.zeros((batch, k))
    theta[:, list(pinned)] = list(pinned.values())

    def loss(t: np.ndarray) -> np.ndarray:
        return np.sum(w * np.logaddexp(0.0, t[:, None, :] - t[:, :, None]), axis=(1, 2))

    current = loss(theta)
    for _ in range(iterations if free.size else 0):
        p = 0.5 * (1.0 + np.tanh(0.5 * (theta[:, :, None] - theta[:, None, :])))  # P(a beats b)
        grad = (n * p - w).sum(axis=2)[:, free]
        c = n * p * (1.0 - p)
        hess = (np.eye(k)[None] * c.sum(axis=2)[:, :, None] - c)[:, free][:, :, free]
        step = np.linalg.solve(hess, grad[:, :, None])[:, :, 0]
        scale = np.ones(batch)
        for _ in range(30):  # halve the step of every row whose loss went up
            trial = theta.copy()
            trial[:, free] -= scale[:, None] * step
            new = loss(trial)
            worse = new > current + 1e-12 * np.abs(current)
            if not worse.any():
                break
            scale = np.where(worse, scale / 2.0, scale)
        theta, current = trial, new
        if np.max(np.abs(scale[:, None] * step)) < 1e-10:
            break
    return theta


def tiers(wins: np.ndarray, fixed: Sequence[int] = ()) -> list[int]:
    """Per agent, its group of the deals' win graph, 0 the strongest (`Ratings.tiers`).

    The groups are the strongly connected components (``a`` points at ``b``
    where it won or tied a deal), numbered by how many agents they reach.
    """
    w = np.asarray(wins, dtype=np.float64)
    k = w.shape[0]
    reach = (w > 0) | np.eye(k, dtype=bool)
    reach[np.ix_(list(fixed), list(fixed))] = True
    for m in range(k):  # transitive closure (Floyd-Warshall on booleans)
        reach |= reach[:, m : m + 1] & reach[m : m + 1, :]
    same = reach & reach.T
    comp = [int(np.flatnonzero(same[i])[0]) for i in range(k)]  # lowest member names the group
    heads = sorted(set(comp), key=lambda c: (-int(reach[c].sum()), c))
    return [heads.index(c) for c in comp]


def _check_connected(played: np.ndarray, fixed: dict[int, float]) -> None:
    from scipy.sparse.csgraph import connected_components

    lonely = [i for i in range(played.shape[0]) if not played[i].any()]
    if lonely:
        raise ConfigError(f"agent {lonely[0]} played no deal: it cannot be rated")
    graph = played.copy()
    pins = list(fixed)
    graph[np.ix_(pins, pins)] = True  # agents held fixed share one scale
    if connected_components(graph, directed=False)[0] > 1:
        raise ConfigError("the agents' comparisons fall into separate groups: no common scale")


def _anchor_index(names: list[str], anchor: str | None) -> tuple[str, int]:
    anchor = anchor or ("random" if "random" in names else names[0])
    if anchor not in names:
        raise ConfigError(f"rating anchor {anchor!r} is not one of the agents: {', '.join(names)}")
    return anchor, names.index(anchor)


def rate(
    agents: Sequence[str],
    pairs: Sequence[PairDeals],
    *,
    anchor: str | None = None,
    fixed: dict[str, float] | None = None,
    resamples: int = 1000,
    seed: int = 0,
) -> Ratings:
    """Elo ratings from every deal of ``pairs`` at once; a stratified bootstrap over deals.

    ``anchor`` (``random`` if present, else the first) is rated 0 unless ``fixed`` ratings are given.
    """
    names = list(agents)
    anchor, a_idx = _anchor_index(names, anchor)
    unknown = [a for a in fixed or {} if a not in names]
    if unknown:
        raise ConfigError(f"fixed rating for {unknown[0]!r}, which is not one of the agents")
    pins = {names.index(a): v / ELO_PER_UNIT for a, v in (fixed or {}).items()} or None
    k = len(names)
    wins = win_matrix(k, pairs)
    point = fit_strengths(wins, anchor=a_idx, fixed=pins) * ELO_PER_UNIT
    low, high = point.copy(), point.copy()
    if resamples > 0:
        played = (wins + wins.T) > 0

        def stat(*outcomes: np.ndarray, axis: int = -1) -> np.ndarray:
            won = [np.moveaxis(o, axis, -1).sum(axis=-1) for o in outcomes]
            shape = won[0].shape
            w = np.zeros((*shape, k, k))
            for p, x, o in zip(pairs, won, outcomes, strict=True):
                w[..., p.a, p.b] += x
                w[..., p.b, p.a] += o.shape[axis] - x
            flat = fit_strengths_batch(w.reshape(-1, k, k), played, anchor=a_idx, fixed=pins)
            return np.moveaxis(flat.reshape(*shape, k), -1, 0) * ELO_PER_UNIT

        samples = [np.asarray(p.outcomes, dtype=np.float64) for p in pairs]
        low, high = percentile_bootstrap(tuple(samples), stat, resamples, seed, batch=None)
    groups = tiers(wins, fixed=sorted(pins or {}))
    return Ratings(names, point.tolist(), low.tolist(), high.tolist(), anchor, resamples, groups)


def rate_units(
    agents: Sequence[str],
    unit_scores: np.ndarray,
    *,
    anchor: str | None = None,
    resamples: int = 1000,
    seed: int = 0,
) -> Ratings:
    """Elo ratings of agents that all played the same ``(units, agents)`` scores, every pair compared.

    The bootstrap draws whole units in a canonical order, so the intervals
    too do not depend on the order (none below 2 distinct units).
    """
    names = list(agents)
    scores = np.asarray(unit_scores, dtype=np.float64)
    k = len(names)
    if k < 2:
        raise ConfigError(f"ratings need at least 2 agents, got {k}")
    if scores.ndim != 2 or scores.shape[1] != k or scores.shape[0] < 1:
        raise ConfigError(
            f"unit scores must be a (units >= 1, {k}) table, got shape {scores.shape}"
        )
    anchor, a_idx = _anchor_index(names, anchor)
    diff = scores[:, :, None] - scores[:, None, :]
    per_unit = (diff > 0) + 0.5 * (diff == 0)  # (units, k, k): row beat column
    per_unit[:, np.arange(k), np.arange(k)] = 0.0
    per_unit = per_unit[np.lexsort(per_unit.reshape(len(per_unit), -1).T[::-1])]  # canonical
    point = fit_strengths(per_unit.sum(axis=0), anchor=a_idx) * ELO_PER_UNIT
    low, high = point.copy(), point.copy()
    if resamples > 0 and len(per_unit) >= 2 and not np.all(per_unit == per_unit[0]):
        played = ~np.eye(k, dtype=bool)

        def stat(idx: np.ndarray, axis: int = -1) -> np.ndarray:
            idx = np.moveaxis(np.asarray(idx), axis, -1).astype(np.intp)
            rows = idx.reshape(-1, idx.shape[-1])
            units = len(per_unit)
            flat = (rows + units * np.arange(len(rows))[:, None]).ravel()
            counts = np.bincount(flat, minlength=len(rows) * units).reshape(len(rows), units)
            wins = np.einsum("bu,uij->bij", counts.astype(np.float64), per_unit)  # resampled W
            theta = fit_strengths_batch(wins, played, anchor=a_idx) * ELO_PER_UNIT
            return np.moveaxis(theta.reshape(*idx.shape[:-1], k), -1, 0)

        low, high = percentile_bootstrap((np.arange(len(per_unit)),), stat, resamples, seed)
    else:
        resamples = 0
    groups = tiers(per_unit.sum(axis=0))
    return Ratings(names, point.tolist(), low.tolist(), high.tolist(), anchor, resamples, groups)


def rate_orders(
    agents: Sequence[str],
    orders: Sequence[Sequence[int]],
    deals: Sequence[int],
    *,
    anchor: str | None = None,
    resamples: int = 200,
    seed: int = 0,
) -> Ratings:
    """Plackett-Luce Elo ratings from finishing orders (each seat's agent, first to finish first).

    Each pair that met gets one virtual pair of two-seat orders (the
    pairwise fit's virtual tie); the bootstrap draws whole ``deals``.
    """
    import choix

    names = list(agents)
    anchor, a_idx = _anchor_index(names, anchor)
    k = len(names)
    met = {(min(a, b), max(a, b)) for o in orders for a in o for b in o if a != b}
    prior = [p for a, b in sorted(met) for p in ((a, b), (b, a))]
    by_deal: dict[int, list[tuple[int, ...]]] = {}
    for order, deal in zip(orders, deals, strict=True):
        by_deal.setdefault(deal, []).append(tuple(int(x) for x in order))
    units = [by_deal[d] for d in sorted(by_deal)]

    def fit(chosen: Sequence[int] | np.ndarray) -> np.ndarray:
        data = [o for u in chosen for o in units[u]] + prior
        theta = choix.ilsr_rankings(k, data, max_iter=10_000, tol=1e-10)
        return np.asarray(theta - theta[a_idx]) * ELO_PER_UNIT

    point = fit(range(len(units)))
    low, high = point.copy(), point.copy()
    if resamples > 0 and len(units) >= 2:

        def stat(idx: np.ndarray, axis: int = -1) -> np.ndarray:
            rows = np.moveaxis(np.asarray(idx), axis, -1).astype(np.intp)
            fits = np.array([fit(r) for r in rows.reshape(-1, rows.shape[-1])])
            return np.moveaxis(fits.reshape(*rows.shape[:-1], k), -1, 0)

        low, high = percentile_bootstrap((np.arange(len(units)),), stat, resamples, seed)
    else:
        resamples = 0
    wins = np.zeros((k, k))
    for order in orders:
        for i, a in enumerate(order):
            for b in order[i + 1 :]:
                wins[a, b] += a != b
    groups = tiers(wins)
    return Ratings(names, point.tolist(), low.tolist(), high.tolist(), anchor, resamples, groups)
