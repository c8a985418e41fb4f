"""Tournament statistics: finish ranks, confidence intervals, head-to-head, ratings.

Definitions (also in ``docs/arena.md``):

* A *seat result* is one seat's episode return (the sum of its rewards, its *score*) and finish rank
  in one game. An agent sitting in several seats of a game has several seat
  results in that game.
* A *unit* is an independent sample: one game, or with ``duplicate`` one deal
  played in all its rotations. An agent's value in a unit is the mean of its
  seat results in that unit. Means and their 95% confidence intervals are
  taken over units, because seats of one game (and rotations of one deal) are
  not independent: Student's t interval for a mean (`mean_ci`,
  `scipy.stats.t`), and for a share of units won (values in [0, 1]) the
  Wilson score interval (`share_interval`, `scipy.stats.binomtest`) when
  every unit is a plain win or loss, else the t interval clipped to [0, 1].
  Neither collapses to a zero width at two units the way the normal (fixed
  z) and Wald intervals did.
* Head-to-head: the fraction of units in which A's unit score beat B's, ties
  counting one half.
* Ratings: not here; one Bradley-Terry fit to every unit at once
  (`cardsuite.agents.arena.ratings.rate_units`), so they do not depend on the
  order of the games.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class GameResult:
    """The outcome of one tournament game.

    Attributes:
        index: game index in the tournament (0-based).
        deal: deal index (equal to ``index`` without duplicate dealing).
        rotation: which rotation of the agents over the seats was played.
        seating: agent index per seat (seat i is ``player_i``).
        rewards: episode return per seat (sum of its rewards over the episode).
        ranks: finish rank per seat (1 = best; ties share the best rank).
        illegal_seat: the seat whose illegal action ended the game, or -1.
        steps: agent decisions taken.
        record: the game record (see `agents.records`) when recording.
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
    """Finish rank of every seat of a finished game.

    The env's ``finish_position`` where every seat reports one and the
    episode is not a whole game (Scum and Scum Party series); otherwise the
    competition rank of the episode reward (Scandal hand scores, Scum whole
    games: winner 1, the others share 2; a game ended by an illegal action).
    """
    if episode != "game" and all("finish_position" in info for info in infos):
        return [int(info["finish_position"]) for info in infos]
    return competition_ranks(rewards)


def mean_ci(
    values: Sequence[float] | np.ndarray, confidence: float = 0.95
) -> tuple[float, float | None]:
    """Mean and the half-width of its Student t interval (`scipy.stats.t`).

    ``t_{(1+confidence)/2, n-1} * sd / sqrt(n)`` with the sample standard
    deviation (ddof 1): at two values the quantile is 12.7, not the normal
    1.96, so a small sample gets the wide interval it deserves.

    Args:
        values: independent samples (units).
        confidence: the interval's coverage (default 95%).

    Returns:
        ``(mean, half_width)``; the mean is NaN for no values, the half-width
        None below two values.
    """
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
    """The Wilson score interval of a binomial share (`scipy.stats.binomtest`).

    Unlike the Wald interval ``p ± z sqrt(p(1-p)/n)`` it never has zero
    width: 2 wins in 2 trials give (0.342, 1.0), not 1.0 ± 0.

    Args:
        successes: trials won, ``0 <= successes <= trials``.
        trials: independent trials (at least 1).
        confidence: the interval's coverage (default 95%).

    Returns:
        ``(low, high)`` inside [0, 1].
    """
    from scipy.stats import binomtest

    ci = binomtest(int(successes), int(trials)).proportion_ci(
        confidence_level=confidence, method="wilson"
    )
    return float(ci.low), float(ci.high)


def share_interval(
    values: Sequence[float] | np.ndarray, confidence: float = 0.95
) -> tuple[float, float, float]:
    """A share of units won: its mean and a confidence interval inside [0, 1].

    Every value is one unit's outcome in [0, 1] (1 won, 0 lost; a tie, or an
    agent with several seats in a unit, gives a fraction). When every value
    is 0 or 1 the units are binomial trials and the interval is Wilson's
    (`wilson_interval`); otherwise it is Student's t (`mean_ci`), clipped to
    [0, 1].

    Returns:
        ``(share, low, high)``; all NaN for no values; ``(share, 0, 1)`` for
        one fractional value (no interval can be estimated from it).
    """
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
    """Per agent, its value in every unit (deal), in deal order.

    ``which`` is ``"rewards"``, ``"ranks"`` or ``"wins"`` (1 for a seat
    at rank 1, else 0); an agent's value in a unit is the mean over all its
    seats in all the unit's games.
    """
    sums: dict[int, np.ndarray] = {}
    counts: dict[int, np.ndarray] = {}
    for g in games:
        s = sums.setdefault(g.deal, np.zeros(num_agents))
        c = counts.setdefault(g.deal, np.zeros(num_agents))
        seat_values = [float(r == 1) for r in g.ranks] if which == "wins" else getattr(g, which)
        for agent, value in zip(g.seating, seat_values, strict=True):
            s[agent] += value
            c[agent] += 1
    out: dict[int, list[float]] = {a: [] for a in range(num_agents)}
    for deal in sorted(sums):
        for a in range(num_agents):
            out[a].append(float(sums[deal][a] / counts[deal][a]))
    return out


def head_to_head(unit_scores: Mapping[int, Sequence[float]]) -> list[list[float | None]]:
    """``h[a][b]``: fraction of units where a's score beat b's (ties 1/2); diagonal None."""
    k = len(unit_scores)
    table: list[list[float | None]] = [[None] * k for _ in range(k)]
    for a in range(k):
        for b in range(k):
            if a == b:
                continue
            sa = np.asarray(unit_scores[a])
            sb = np.asarray(unit_scores[b])
            table[a][b] = float(np.mean((sa > sb) + 0.5 * (sa == sb)))
    return table
