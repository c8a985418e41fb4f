"""Order-free ratings: a Bradley-Terry maximum-likelihood fit to every deal at once.

Used by ``cardsuite leaderboard``, ``cardsuite benchmark`` and the
arena's `TournamentResult` (`rate_units`). The data are
*deal comparisons*: in one duplicate deal two agents played every rotation
of the seats, and the one with the higher mean return over its seats won the
deal (equal means: a tie). Agent ``a`` has strength ``theta_a`` and beats
``b`` on a deal with probability ``1 / (1 + exp(theta_b - theta_a))``
(Bradley-Terry; Plackett-Luce over a two-agent finishing order). A tie
counts half a win for each side.

Fit. The log-likelihood depends on the results only through the matrix
``W[a][b]`` (deals ``a`` won against ``b``, ties half), so the fit is the same
whatever order the deals were played or listed in: ``W`` is a sum of halves
and ones, exact in floating point, and the fit sees nothing else. The
likelihood is concave; scipy's ``trust-exact`` Newton method finds its
maximum from the analytic gradient and Hessian. One *virtual tied deal* is added to every pair that played (a weak
prior), so that an agent that won every deal (random loses every deal to
the heuristic) still gets a finite rating; with the 200+ deals per pair of
a published run it moves a rating by a few points at most.

Scale. Ratings are Elo points: ``400 / ln 10`` per unit of ``theta``, so a
difference of 400 points means 10:1 odds of winning a deal, 0 points means
even odds. The anchor agent is 0: ``random`` where it takes part (the
leaderboard and the benchmark always include it), otherwise the first agent.

Intervals. 95% percentile intervals by bootstrap over deals
(`scipy.stats.bootstrap`): the deals of each pair are resampled with
replacement (each pair is its own sample: a stratified bootstrap, keeping the
design of the round-robin), and the ratings refitted on every resample.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cardsuite.errors import ConfigError

#: Elo points per unit of the Bradley-Terry strength (400 points = 10:1 odds).
ELO_PER_UNIT = 400.0 / math.log(10.0)

#: Weight of the virtual tied deal added to every pair that played.
PRIOR_TIES = 1.0


@dataclass(frozen=True)
class PairDeals:
    """The deal outcomes of one pair of agents.

    Attributes:
        a: index of the first agent.
        b: index of the second agent.
        outcomes: per deal, 1 (``a`` won), 0.5 (tie) or 0 (``b`` won).
    """

    a: int
    b: int
    outcomes: np.ndarray


@dataclass(frozen=True)
class Ratings:
    """Fitted ratings with bootstrap intervals (Elo points, anchor = 0).

    Attributes:
        agents: agent names, in the order given.
        rating: Elo rating per agent.
        low: lower end of the 95% bootstrap interval per agent.
        high: upper end of the 95% bootstrap interval per agent.
        anchor: the agent held at 0.
        resamples: bootstrap resamples behind ``low`` and ``high`` (0: none).
        tiers: per agent, its group of the deals' win graph (`tiers`; 0 = the
            strongest group). The deals measure the rating gaps within a group;
            between two groups they measure nothing (the lower one never won or
            tied a deal against the upper one), and the gap is set by the fit's
            prior (`PRIOR_TIES`). All 0 where every gap is measured.
    """

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
        groups = [
            [self.agents[i] for i in range(len(self.agents)) if self.tiers[i] == t]
            for t in sorted(set(self.tiers))
        ]
        named = [", ".join(f"`{a}`" for a in g) for g in groups]
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
    """Maximum-likelihood Bradley-Terry strengths (natural units) from a win matrix.

    Args:
        wins: ``W[a][b]``, deals ``a`` won against ``b`` (ties half).
        anchor: the agent whose strength is 0 (ignored when ``fixed`` is given).
        fixed: strengths held fixed (natural units), e.g. calibrated
            references; the others are fitted against them.

    Raises:
        ConfigError: an agent that played no deal, or a comparison graph in
            more than one piece (strengths between pieces are not defined).
    """
    from scipy.optimize import minimize

    wins = np.asarray(wins, dtype=np.float64)
    k = wins.shape[0]
    games = wins + wins.T
    played = games > 0
    prior = np.where(played, PRIOR_TIES / 2.0, 0.0)
    w = wins + prior  # a virtual tie: half a win each way
    n = games + np.where(played, PRIOR_TIES, 0.0)
    fixed = dict(fixed) if fixed else {anchor: 0.0}
    _check_connected(played, fixed)
    free = [i for i in range(k) if i not in fixed]
    theta = np.zeros(k)
    for i, v in fixed.items():
        theta[i] = v
    if not free:
        return theta

    def negloglik(x: np.ndarray) -> tuple[float, np.ndarray]:
        t = theta.copy()
        t[free] = x
        d = t[:, None] - t[None, :]
        # -sum_ab W_ab log sigmoid(t_a - t_b), written stably with logaddexp
        loss = float(np.sum(w * np.logaddexp(0.0, -d)))
        p = 0.5 * (1.0 + np.tanh(0.5 * d))  # P(a beats b)
        return loss, (n * p - w).sum(axis=1)[free]

    def hessian(x: np.ndarray) -> np.ndarray:
        t = theta.copy()
        t[free] = x
        d = t[:, None] - t[None, :]
        p = 0.5 * (1.0 + np.tanh(0.5 * d))
        c = n * p * (1.0 - p)
        h = np.diag(c.sum(axis=1)) - c
        return h[np.ix_(free, free)]

    res = minimize(
        negloglik,
        np.zeros(len(free)),
        jac=True,
        hess=hessian,
        method="trust-exact",
        options={"gtol": 1e-9},
    )
    theta[free] = res.x
    return theta


def tiers(wins: np.ndarray, fixed: Sequence[int] = ()) -> list[int]:
    """Per agent, its group of the deals' win graph, 0 the strongest (`Ratings.tiers`).

    Agent ``a`` points at ``b`` where it won or tied at least one deal against
    ``b`` (``wins[a][b] > 0``); agents held at fixed ratings are joined to each
    other. The groups are the graph's strongly connected components: within
    one, the maximum-likelihood gaps exist; across two, the lower group never
    took a deal from the upper, the likelihood rises without end as the gap
    grows, and only the prior (`PRIOR_TIES`) bounds it. Groups are numbered by
    how many agents they reach (more first; equal: first agent first).
    """
    w = np.asarray(wins, dtype=np.float64)
    k = w.shape[0]
    reach = (w > 0) | np.eye(k, dtype=bool)
    pinned = list(fixed)
    for i in pinned:
        reach[i, pinned] = True
    for m in range(k):  # transitive closure (Floyd-Warshall on booleans)
        reach |= reach[:, m : m + 1] & reach[m : m + 1, :]
    same = reach & reach.T
    comp = [int(np.flatnonzero(same[i])[0]) for i in range(k)]  # lowest member names the group
    heads = sorted(set(comp), key=lambda c: (-int(reach[c].sum()), c))
    return [heads.index(c) for c in comp]


def _check_connected(played: np.ndarray, fixed: dict[int, float]) -> None:
    k = played.shape[0]
    for i in range(k):
        if not played[i].any():
            raise ConfigError(f"agent {i} played no deal: it cannot be rated")
    seen = set(fixed)
    todo = list(seen)
    while todo:
        i = todo.pop()
        for j in np.flatnonzero(played[i]).tolist():
            if j not in seen:
                seen.add(j)
                todo.append(j)
    if len(seen) < k:
        raise ConfigError("the agents' comparisons fall into separate groups: no common scale")


def rate(
    agents: Sequence[str],
    pairs: Sequence[PairDeals],
    *,
    anchor: str | None = None,
    fixed: dict[str, float] | None = None,
    resamples: int = 1000,
    seed: int = 0,
) -> Ratings:
    """Fit Elo ratings to every deal at once, with bootstrap intervals over deals.

    Args:
        agents: agent names.
        pairs: the deal outcomes of every pair that played.
        anchor: the agent rated 0 (default: ``random`` if present, else the first).
        fixed: Elo ratings held fixed (calibrated references); ``anchor`` is
            then not used.
        resamples: bootstrap resamples (0: no intervals; ``low == high ==
            rating``).
        seed: seeds the bootstrap.

    Raises:
        ConfigError: an unknown anchor, an agent that played no deal, or
            comparisons that do not connect every agent.
    """
    names = list(agents)
    if anchor is None:
        anchor = "random" if "random" in names else names[0]
    if anchor not in names:
        raise ConfigError(f"rating anchor {anchor!r} is not one of the agents: {', '.join(names)}")
    fix_idx = None
    if fixed:
        unknown = [a for a in fixed if a not in names]
        if unknown:
            raise ConfigError(f"fixed rating for {unknown[0]!r}, which is not one of the agents")
        fix_idx = {names.index(a): v / ELO_PER_UNIT for a, v in fixed.items()}
    k = len(names)
    a_idx = names.index(anchor)

    def fit(outcomes: Sequence[np.ndarray]) -> np.ndarray:
        parts = [PairDeals(p.a, p.b, o) for p, o in zip(pairs, outcomes, strict=True)]
        return fit_strengths(win_matrix(k, parts), anchor=a_idx, fixed=fix_idx) * ELO_PER_UNIT

    samples = [np.asarray(p.outcomes, dtype=np.float64) for p in pairs]
    point = fit(samples)
    low, high = point.copy(), point.copy()
    if resamples > 0:
        low, high = bootstrap_intervals(fit, samples, resamples=resamples, seed=seed)
    groups = tiers(win_matrix(k, pairs), fixed=sorted(fix_idx or {}))
    return Ratings(names, point.tolist(), low.tolist(), high.tolist(), anchor, resamples, groups)


def fit_strengths_batch(
    wins: np.ndarray, played: np.ndarray, *, anchor: int = 0, iterations: int = 100
) -> np.ndarray:
    """`fit_strengths` for many win matrices at once (the bootstrap resamples of one data set).

    The same likelihood, virtual ties and anchor as `fit_strengths`, maximised by
    Newton's method with step halving, batched over the first axis
    (`numpy.linalg.solve` on stacked Hessians): `scipy.optimize.minimize`
    solves one problem per call, and a thousand calls cost seconds where the
    batched solve costs milliseconds. The likelihood is strictly concave
    (the virtual ties keep every strength finite), so the step-halved Newton
    iteration converges to the same maximum; a test holds it to
    `fit_strengths`.

    Args:
        wins: ``(B, k, k)`` win matrices (ties half).
        played: ``(k, k)`` which pairs played (the same for every matrix; it
            decides where the virtual ties go).
        anchor: the agent whose strength is 0.
        iterations: at most this many Newton steps.

    Returns:
        ``(B, k)`` strengths in natural units.
    """
    wins = np.asarray(wins, dtype=np.float64)
    batch, k = wins.shape[0], wins.shape[1]
    played = np.asarray(played, dtype=bool)
    w = wins + np.where(played, PRIOR_TIES / 2.0, 0.0)
    n = w + np.swapaxes(w, 1, 2)
    free = np.array([i for i in range(k) if i != anchor], dtype=np.intp)
    theta = np.zeros((batch, k))

    def loss(t: np.ndarray) -> np.ndarray:
        d = t[:, :, None] - t[:, None, :]
        return np.sum(w * np.logaddexp(0.0, -d), axis=(1, 2))

    current = loss(theta)
    for _ in range(iterations):
        d = theta[:, :, None] - theta[:, None, :]
        p = 0.5 * (1.0 + np.tanh(0.5 * d))
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


def rate_units(
    agents: Sequence[str],
    unit_scores: np.ndarray,
    *,
    anchor: str | None = None,
    resamples: int = 1000,
    seed: int = 0,
) -> Ratings:
    """Elo ratings of agents that all played the same units (a tournament's deals or games).

    In every unit each pair of agents is compared as in the leaderboard: the
    higher score wins, equal scores tie (half each). All the comparisons go
    into one Bradley-Terry fit (`fit_strengths`), so the ratings depend on the
    set of units only, never on the order they were played or listed in.

    Intervals: 95% percentile bootstrap over units (`scipy.stats.bootstrap`),
    each resample drawing whole units, so the comparisons of one unit (which
    share its cards) stay together. The units are put in a canonical order
    (sorted by their comparisons) before resampling, so the intervals too are
    the same for any order of the same units.

    Args:
        agents: agent names.
        unit_scores: ``(units, agents)`` score of every agent in every unit.
        anchor: the agent rated 0 (default: ``random`` if present, else the first).
        resamples: bootstrap resamples (0, or fewer than 2 units: no intervals).
        seed: seeds the bootstrap.

    Raises:
        ConfigError: fewer than 2 agents or 1 unit, a score table of the wrong
            shape, or an unknown anchor.
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
    if anchor is None:
        anchor = "random" if "random" in names else names[0]
    if anchor not in names:
        raise ConfigError(f"rating anchor {anchor!r} is not one of the agents: {', '.join(names)}")
    a_idx = names.index(anchor)
    diff = scores[:, :, None] - scores[:, None, :]
    per_unit = (diff > 0) + 0.5 * (diff == 0)  # (units, k, k): row beat column
    per_unit[:, np.arange(k), np.arange(k)] = 0.0
    flat = per_unit.reshape(len(per_unit), -1)
    per_unit = per_unit[np.lexsort(flat.T[::-1])]  # canonical order of the units
    played = ~np.eye(k, dtype=bool)
    point = fit_strengths(per_unit.sum(axis=0), anchor=a_idx) * ELO_PER_UNIT
    low, high = point.copy(), point.copy()
    if resamples > 0 and len(per_unit) >= 2 and not np.all(per_unit == per_unit[0]):
        from scipy.stats import bootstrap

        def stat(idx: np.ndarray, axis: int = -1) -> np.ndarray:
            idx = np.moveaxis(np.asarray(idx), axis, -1).astype(np.intp)
            shape = idx.shape[:-1]
            rows = idx.reshape(-1, idx.shape[-1])
            units = len(per_unit)
            flat_idx = (rows + units * np.arange(len(rows))[:, None]).ravel()
            counts = np.bincount(flat_idx, minlength=len(rows) * units).reshape(len(rows), units)
            wins = np.einsum("bu,uij->bij", counts.astype(np.float64), per_unit)  # resampled W
            theta = fit_strengths_batch(wins, played, anchor=a_idx) * ELO_PER_UNIT
            return np.moveaxis(theta.reshape(*shape, k), -1, 0)

        res = bootstrap(
            (np.arange(len(per_unit)),),
            stat,
            n_resamples=resamples,
            vectorized=True,
            batch=100,  # resamples per call: bounds the memory of a long tournament
            method="percentile",
            confidence_level=0.95,
            rng=np.random.default_rng(seed),
        )
        low = np.asarray(res.confidence_interval.low, dtype=np.float64)
        high = np.asarray(res.confidence_interval.high, dtype=np.float64)
    else:
        resamples = 0
    groups = tiers(per_unit.sum(axis=0))
    return Ratings(names, point.tolist(), low.tolist(), high.tolist(), anchor, resamples, groups)


def bootstrap_intervals(
    statistic: object, samples: Sequence[np.ndarray], *, resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """95% percentile intervals of a vector ``statistic(samples)`` by a stratified bootstrap.

    Each sample (the deals of one pair) is resampled on its own, through
    `scipy.stats.bootstrap` (independent samples, ``paired=False``).
    """
    from scipy.stats import bootstrap

    def stat(*xs: np.ndarray) -> np.ndarray:
        return np.asarray(statistic(list(xs)))  # type: ignore[operator]

    res = bootstrap(
        tuple(samples),
        stat,
        n_resamples=resamples,
        vectorized=False,
        method="percentile",
        confidence_level=0.95,
        rng=np.random.default_rng(seed),
    )
    low = np.asarray(res.confidence_interval.low, dtype=np.float64)
    high = np.asarray(res.confidence_interval.high, dtype=np.float64)
    return low, high


def mean_interval(
    values: np.ndarray, *, resamples: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """Mean of ``values`` and its 95% percentile bootstrap interval (`scipy.stats.bootstrap`).

    A single value, values all equal, or ``resamples=0`` give the degenerate
    interval (the mean itself).
    """
    from scipy.stats import bootstrap

    x = np.asarray(values, dtype=np.float64)
    mean = float(x.mean())
    if x.size < 2 or np.all(x == x[0]) or resamples <= 0:
        return mean, mean, mean
    res = bootstrap(
        (x,),
        np.mean,
        n_resamples=resamples,
        method="percentile",
        confidence_level=0.95,
        rng=np.random.default_rng(seed),
    )
    return mean, float(res.confidence_interval.low), float(res.confidence_interval.high)


def deals_for_half_width(half_width: float, confidence: float = 0.95) -> int:
    """Deals needed so a share's interval is at most ``± half_width`` in the worst case (p = 1/2).

    ``n = ceil((z / (2 h))^2)`` with ``z`` the normal quantile (`scipy.stats.norm`);
    ties only narrow the interval. ``half_width=0.05`` gives 385.
    """
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + confidence / 2))
    return math.ceil((z / (2.0 * half_width)) ** 2)
