"""Tournament intervals (issue 23): Student t for means, Wilson for win shares.

The old fixed-z normal and Wald intervals gave "± 0.000" at two units; these
come from scipy and widen honestly when the sample is small.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sps

from cardsuite.agents.arena.stats import (
    GameResult,
    mean_ci,
    share_interval,
    unit_values,
    wilson_interval,
)


def test_wilson_has_width_where_wald_had_none() -> None:
    low, high = wilson_interval(2, 2)
    assert low == pytest.approx(0.3424, abs=1e-4) and high == 1.0  # Wald: 1.0 ± 0.000
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson_interval(5, 10)
    assert (low, high) == pytest.approx((0.2366, 0.7634), abs=1e-4)


def test_the_t_interval_is_scipys_and_wide_at_two_units() -> None:
    values = [1.0, 3.0]
    mean, half = mean_ci(values)
    low, high = sps.t.interval(0.95, 1, loc=2.0, scale=sps.sem(values))
    assert mean == 2.0 and half == pytest.approx(high - mean) and mean - half == pytest.approx(low)
    assert half == pytest.approx(12.7062 * 1.0, rel=1e-4)  # t(0.975, 1) * sd / sqrt(2)
    assert mean_ci([4.0]) == (4.0, None)
    m, h = mean_ci([])
    assert math.isnan(m) and h is None


def test_share_interval_picks_wilson_for_plain_wins_and_t_for_fractions() -> None:
    assert share_interval([1.0, 1.0]) == pytest.approx((1.0, *wilson_interval(2, 2)))
    share, low, high = share_interval([0.5, 1.0, 0.0, 0.5])  # ties count one half
    _, half = mean_ci([0.5, 1.0, 0.0, 0.5])
    assert share == 0.5 and (low, high) == pytest.approx(
        (max(0.0, 0.5 - half), min(1.0, 0.5 + half))
    )
    assert share_interval([0.5]) == (0.5, 0.0, 1.0)
    assert all(math.isnan(v) for v in share_interval([]))


@given(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=1, max_size=60))
def test_a_share_interval_holds_the_share_inside_zero_one(values: list[float]) -> None:
    share, low, high = share_interval(values)
    assert 0.0 <= low <= share <= high <= 1.0
    assert share == pytest.approx(float(np.mean(values)))


@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_holds_the_share_and_never_collapses(kn: tuple[int, int]) -> None:
    k, n = kn
    low, high = wilson_interval(k, n)
    assert 0.0 <= low <= k / n <= high <= 1.0 and high - low > 0.0


def test_unit_wins_are_each_agents_share_of_first_places() -> None:
    games = [
        GameResult(0, 0, 0, (0, 1, 0, 1), (0.0,) * 4, (1, 2, 3, 4)),
        GameResult(1, 1, 0, (1, 0, 1, 0), (0.0,) * 4, (2, 1, 3, 4)),
    ]
    assert unit_values(games, 2, "wins") == {0: [0.5, 0.5], 1: [0.0, 0.0]}
