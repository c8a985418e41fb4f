"""Tournament statistics: finish ranks, confidence intervals, head-to-head (``docs/arena.md``).

A *unit* is a game, or with ``duplicate`` a deal in all its rotations; an
agent's value in a unit is the mean over its seats there.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class GameResult:
    """The outcome of one tournament game: its place, and per seat its agent, reward and rank.

    ``illegal_seat``: the seat whose illegal action ended the game, or -1.
    """

    index: int
    deal: int
    rotation: int
    seating: tuple[int, ...]
    rewards: tuple[float, ...]
    ranks: tuple[int, ...]
    illegal_seat: int = -1
    steps: int = 0
    record: dict[str, Any] | None = field(default=None, compare=False)


def competition_ranks(values: Sequence[float], *, higher_is_better: bool = True) -> list[int]:
    """Standard competition ranks ("1224"): 1 = best, ties share the best rank."""
    keyed = [(-v if higher_is_better else v) for v in values]
    return [1 + sum(other < mine for other in keyed) for mine in keyed]


def seat_ranks(
    rewards: Sequence[float], infos: Sequence[Mapping[str, Any]], episode: str | None
) -> list[int]:
    """Finish rank of every seat: ``finish_position`` in a Scum series, else by reward."""
    if episode != "game" and all("finish_position" in info for info in infos):
        return [int(info["finish_position"]) for info in infos]
    return competition_ranks(rewards)


def mean_ci(
    values: Sequence[float] | np.ndarray, confidence: float = 0.95
) -> tuple[float, float | None]:
    """``(mean, half-width of its Student t interval)``: NaN for no values, None below two."""
    from scipy.stats import t

    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return math.nan, None
    mean = float(arr.mean())
    if arr.size < 2:
        return mean, None
    quantile = float(t.ppf(0.5 + confidence / 2, arr.size - 1))
    return mean, quantile * float(arr.std(ddof=1)) / math.sqrt(arr.size)


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval ``(low, high)`` of a binomial share (never of zero width)."""
    from scipy.stats import binomtest

    ci = binomtest(int(successes), int(trials)).proportion_ci(
        confidence_level=confidence, method="wilson"
    )
    return float(ci.low), float(ci.high)


def share_interval(
    values: Sequence[float] | np.ndarray, confidence: float = 0.95
) -> tuple[float, float, float]:
    """``(share, low, high)`` of units won: Wilson's interval for wins and losses, else t clipped."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return math.nan, math.nan, math.nan
    share = float(arr.mean())
    if np.all((arr == 0.0) | (arr == 1.0)):
        low, high = wilson_interval(int(arr.sum()), int(arr.size), confidence)
        return share, low, high
    _, half = mean_ci(arr, confidence)
    if half is None:
        return share, 0.0, 1.0
    return share, max(0.0, share - half), min(1.0, share + half)


def unit_values(games: Sequence[GameResult], num_agents: int, which: str) -> dict[int, list[float]]:
    """Per agent, its mean ``"rewards"``, ``"ranks"`` or ``"wins"`` over its seats in every unit."""
    row = {deal: i for i, deal in enumerate(sorted({g.deal for g in games}))}
    sums = np.zeros((len(row), num_agents))
    counts = np.zeros((len(row), num_agents))
    for g in games:
        seat_values = [float(r == 1) for r in g.ranks] if which == "wins" else getattr(g, which)
        np.add.at(sums, (row[g.deal], list(g.seating)), seat_values)
        np.add.at(counts, (row[g.deal], list(g.seating)), 1.0)
    return dict(enumerate((sums / counts).T.tolist()))


def head_to_head(unit_scores: Mapping[int, Sequence[float]]) -> list[list[float | None]]:
    """``h[a][b]``: fraction of units where a's score beat b's (ties 1/2); diagonal None."""
    s = [np.asarray(unit_scores[a]) for a in range(len(unit_scores))]
    return [
        [None if a == b else float(np.mean((sa > sb) + 0.5 * (sa == sb))) for b, sb in enumerate(s)]
        for a, sa in enumerate(s)
    ]


def percentile_bootstrap(
    data: tuple[np.ndarray, ...],
    stat: Callable[..., np.ndarray],
    resamples: int,
    seed: int,
    batch: int | None = 100,
) -> tuple[np.ndarray, np.ndarray]:
    """95% percentile interval of a vectorized ``stat``; ``batch`` bounds the memory (and the draws)."""
    from scipy.stats import bootstrap

    ci = bootstrap(
        data,
        stat,
        n_resamples=resamples,
        vectorized=True,
        batch=batch,
        method="percentile",
        confidence_level=0.95,
        rng=np.random.default_rng(seed),
    ).confidence_interval
    return np.asarray(ci.low, dtype=np.float64), np.asarray(ci.high, dtype=np.float64)


def mean_interval(
    values: np.ndarray, *, resamples: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """Mean of ``values`` and its 95% percentile bootstrap interval (the mean if constant)."""
    x = np.asarray(values, dtype=np.float64)
    mean = float(x.mean())
    if x.size < 2 or np.all(x == x[0]) or resamples <= 0:
        return mean, mean, mean
    low, high = percentile_bootstrap((x,), np.mean, resamples, seed, batch=None)
    return mean, float(low), float(high)


def deals_for_half_width(half_width: float, confidence: float = 0.95) -> int:
    """Deals needed so a share's interval is at most ``± half_width`` at worst (p = 1/2; 0.05: 385)."""
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + confidence / 2))
    return math.ceil((z / (2.0 * half_width)) ** 2)
