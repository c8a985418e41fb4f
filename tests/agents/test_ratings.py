"""Order-free ratings (agents/arena/ratings.py): Bradley-Terry maximum likelihood, bootstrap intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardsuite.agents.arena.ratings import (
    ELO_PER_UNIT,
    PairDeals,
    fit_strengths,
    fit_strengths_batch,
    rate,
    rate_orders,
    rate_units,
    tiers,
    win_matrix,
)
from cardsuite.agents.arena.stats import deals_for_half_width
from cardsuite.errors import ConfigError


def _simulated(true: np.ndarray, deals: int, seed: int) -> list[PairDeals]:
    """Every pair plays ``deals``; ``a`` wins with the Bradley-Terry probability (some ties)."""
    rng = np.random.default_rng(seed)
    pairs = []
    for a in range(len(true)):
        for b in range(a + 1, len(true)):
            p = 1.0 / (1.0 + math.exp(true[b] - true[a]))
            out = (rng.random(deals) < p).astype(float)
            out[rng.random(deals) < 0.1] = 0.5
            pairs.append(PairDeals(a, b, out))
    return pairs


def test_simulated_players_are_recovered_in_order() -> None:
    true = np.array([0.0, 1.2, -0.6, 2.4, 0.6])
    names = ["random", "b", "c", "d", "e"]
    r = rate(names, _simulated(true, 600, seed=1), resamples=0)
    assert r.order() == list(np.argsort(-true))
    fitted = np.array(r.rating) / ELO_PER_UNIT
    # ties (10%) pull strengths toward each other; the order and rough size hold
    assert np.allclose(fitted, true * 0.9, atol=0.3)


def test_intervals_cover_the_truth_and_the_point() -> None:
    true = np.array([0.0, 1.0, 2.0])
    r = rate(["random", "b", "c"], _simulated(true, 300, seed=2), resamples=200, seed=0)
    for i in range(3):
        assert r.low[i] <= r.rating[i] <= r.high[i]
    assert r.low[0] == r.high[0] == 0.0  # the anchor
    assert r.high[1] < r.low[2]  # 1 unit = 174 Elo apart, clearly separated at 300 deals


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_shuffling_the_results_gives_identical_ratings(seed: int) -> None:
    """The fit sees only the win matrix: any order of pairs and of deals, the same ratings."""
    names = ["random", "b", "c", "d"]
    pairs = _simulated(np.array([0.0, 0.5, 1.5, -1.0]), 40, seed=7)
    rng = np.random.default_rng(seed)
    shuffled = [PairDeals(p.a, p.b, rng.permutation(p.outcomes)) for p in pairs]
    shuffled = [shuffled[i] for i in rng.permutation(len(shuffled))]
    flipped = [PairDeals(p.b, p.a, 1.0 - p.outcomes) if rng.random() < 0.5 else p for p in shuffled]
    assert rate(names, flipped, resamples=0).rating == rate(names, pairs, resamples=0).rating


def test_an_agent_that_wins_every_deal_gets_a_finite_rating() -> None:
    pairs = [PairDeals(0, 1, np.zeros(50)), PairDeals(1, 2, np.full(50, 0.5))]
    r = rate(["random", "heuristic", "greedy"], pairs, resamples=0)
    assert all(math.isfinite(x) for x in r.rating)
    assert r.rating[1] > 500 and r.rating[1] == pytest.approx(r.rating[2])


def test_fixed_references_rate_only_the_newcomer() -> None:
    """A newcomer that beats a 200-rated reference 3:1 is rated about 200 + 191."""
    wins = win_matrix(2, [PairDeals(0, 1, np.r_[np.ones(3000), np.zeros(1000)])])
    theta = fit_strengths(wins, fixed={1: 200 / ELO_PER_UNIT})
    assert theta[0] * ELO_PER_UNIT == pytest.approx(200 + ELO_PER_UNIT * math.log(3), abs=1.0)


def test_separate_groups_and_unknown_anchor_are_named_errors() -> None:
    pairs = [PairDeals(0, 1, np.ones(5)), PairDeals(2, 3, np.ones(5))]
    with pytest.raises(ConfigError, match="separate groups"):
        rate(["a", "b", "c", "d"], pairs, resamples=0)
    with pytest.raises(ConfigError, match="played no deal"):
        rate(["a", "b", "c"], pairs[:1], resamples=0)
    with pytest.raises(ConfigError, match="anchor"):
        rate(["a", "b"], pairs[:1], anchor="zzz", resamples=0)


def test_deals_for_five_points() -> None:
    assert deals_for_half_width(0.05) == 385  # (1.96 / 0.1)^2 = 384.1
    assert deals_for_half_width(0.10) == 97


# ------------------------------------------------ rate_units (the arena's ratings)
@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 5).flatmap(
        lambda k: st.lists(
            st.lists(st.integers(0, 50), min_size=k * k, max_size=k * k), min_size=1, max_size=6
        ).map(lambda ws: (k, ws))
    )
)
def test_the_batched_newton_fit_is_the_scipy_fit(case: tuple[int, list[list[int]]]) -> None:
    """Differential: `fit_strengths_batch` (bootstrap) finds `fit_strengths`'s (choix) maximum."""
    k, flat = case
    played = ~np.eye(k, dtype=bool)
    wins = np.array(flat, dtype=float).reshape(-1, k, k) / 2.0 + 0.5 * played  # all pairs met
    wins[:, np.arange(k), np.arange(k)] = 0.0
    batch = fit_strengths_batch(wins, played, anchor=1)
    for w, theta in zip(wins, batch, strict=True):
        assert np.allclose(theta, fit_strengths(w, anchor=1), atol=1e-6)


def _unit_table(seed: int, units: int = 30) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 4, (units, 3)).astype(float) + np.array([0.0, 0.5, 1.0])


@settings(max_examples=25, deadline=None)
@given(st.permutations(list(range(30))))
def test_units_in_any_order_give_identical_ratings_and_intervals(order: list[int]) -> None:
    """The same units in another order: the same point ratings and the same intervals."""
    names = ["random", "b", "c"]
    scores = _unit_table(3)
    base = rate_units(names, scores, resamples=200, seed=5)
    again = rate_units(names, scores[order], resamples=200, seed=5)
    assert again == base
    assert base.resamples == 200 and base.low[2] < base.rating[2] < base.high[2]


def test_scripted_units_give_the_expected_order_and_odds() -> None:
    """c beats b in 3 units of 4, b beats a in 3 of 4, c beats a in every unit."""
    scores = np.array(
        [
            [0.0, 1.0, 2.0],
            [0.0, 1.0, 2.0],
            [0.0, 1.0, 2.0],
            [0.0, 2.0, 1.0],
        ]
    )
    r = rate_units(["a", "b", "c"], scores, resamples=0)
    assert r.anchor == "a" and r.rating[0] == 0.0
    assert r.order() == [2, 1, 0]
    wins = np.array([[0, 0, 0], [4, 0, 1], [4, 3, 0]], dtype=float)
    expected = fit_strengths(wins, anchor=0) * ELO_PER_UNIT  # the same fit as the leaderboard
    assert np.allclose(r.rating, expected)
    assert r.low == r.rating == r.high  # resamples=0: no intervals


def test_identical_units_or_one_unit_give_no_interval_and_bad_tables_are_named() -> None:
    one = rate_units(["random", "x"], np.array([[0.0, 1.0]]))
    assert one.resamples == 0 and one.low == one.rating == one.high
    same = rate_units(["random", "x"], np.array([[0.0, 1.0]] * 5))
    assert same.resamples == 0 and same.rating[1] > 0
    with pytest.raises(ConfigError, match=r"\(units >= 1, 2\)"):
        rate_units(["a", "b"], np.zeros((3, 3)))
    with pytest.raises(ConfigError, match="at least 2 agents"):
        rate_units(["a"], np.zeros((3, 1)))
    with pytest.raises(ConfigError, match="anchor"):
        rate_units(["a", "b"], np.zeros((3, 2)), anchor="zzz")


def test_an_agent_that_lost_every_deal_is_named_as_unmeasured() -> None:
    """random lost all 50 deals, heuristic and greedy tied: random's gap is the prior's, not the games'."""
    pairs = [PairDeals(0, 1, np.zeros(50)), PairDeals(1, 2, np.full(50, 0.5))]
    r = rate(["random", "heuristic", "greedy"], pairs, resamples=0)
    assert r.tiers == [1, 0, 0]
    assert not r.identified
    text = r.unmeasured()
    assert text is not None and "{`heuristic`, `greedy`}, {`random`} (strongest first)" in text


def test_a_chain_of_sweeps_gives_one_tier_per_agent() -> None:
    """a swept b and c, b swept c: three tiers; one deal c took from a joins them all."""
    sweep = np.ones(20)
    r = rate(
        ["a", "b", "c"],
        [PairDeals(0, 1, sweep), PairDeals(1, 2, sweep), PairDeals(0, 2, sweep)],
        resamples=0,
    )
    assert r.tiers == [0, 1, 2]
    joined = np.r_[np.ones(19), 0.0]  # c beat a once
    r = rate(
        ["a", "b", "c"],
        [PairDeals(0, 1, sweep), PairDeals(1, 2, sweep), PairDeals(0, 2, joined)],
        resamples=0,
    )
    assert r.tiers == [0, 0, 0] and r.identified and r.unmeasured() is None


def test_mixed_results_are_measured_and_tournament_units_too() -> None:
    r = rate(["random", "b"], [PairDeals(0, 1, np.r_[np.zeros(9), 1.0])], resamples=0)
    assert r.identified and r.tiers == [0, 0]
    units = np.array([[0.0, 1.0, 2.0], [0.0, 2.0, 1.0]])  # random last in every unit
    ru = rate_units(["random", "b", "c"], units, resamples=0)
    assert ru.tiers == [1, 0, 0] and not ru.identified


def test_a_newcomer_against_fixed_references_is_unmeasured_only_when_it_sweeps() -> None:
    fixed = {"r1": 100.0, "r2": 900.0}
    names = ["new", "r1", "r2"]
    won_all = [PairDeals(0, 1, np.ones(30)), PairDeals(0, 2, np.ones(30))]
    lost_all = [PairDeals(0, 1, np.zeros(30)), PairDeals(0, 2, np.zeros(30))]
    mixed = [PairDeals(0, 1, np.ones(30)), PairDeals(0, 2, np.r_[np.ones(10), np.zeros(20)])]
    assert rate(names, won_all, fixed=fixed, resamples=0).tiers == [0, 1, 1]
    assert rate(names, lost_all, fixed=fixed, resamples=0).tiers == [1, 0, 0]
    assert rate(names, mixed, fixed=fixed, resamples=0).identified


@settings(max_examples=30, deadline=None)
@given(
    st.integers(2, 5).flatmap(
        lambda k: st.lists(
            st.integers(0, 6), min_size=k * (k - 1) // 2, max_size=k * (k - 1) // 2
        ).map(lambda ws: (k, ws))
    )
)
def test_tiers_say_which_gaps_the_data_fix(case: tuple[int, list[int]]) -> None:
    """Property: with 100 times the same deals the prior fades; gaps within a tier settle,
    gaps across tiers keep growing (the maximum-likelihood gap there is infinite)."""
    k, won = case
    wins = np.zeros((k, k))
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    for (a, b), w in zip(pairs, won, strict=True):
        wins[a, b], wins[b, a] = w, 6 - w  # every pair met on 6 deals
    groups = tiers(wins)
    small = fit_strengths(wins * 100)
    large = fit_strengths(wins * 10000)
    for a in range(k):
        for b in range(k):
            change = abs((large[a] - large[b]) - (small[a] - small[b]))
            if groups[a] == groups[b]:
                assert change < 0.05
            else:
                assert change > 2.0  # about ln(100) = 4.6 for one sweep


# ------------------------------------------------ Plackett-Luce over finishing orders
def _orders(true: np.ndarray, games: int, seed: int) -> list[list[int]]:
    """Finishing orders of 4 seats (agents 0 1 2 3) drawn from the Plackett-Luce model."""
    rng = np.random.default_rng(seed)
    orders = []
    for _ in range(games):
        left, order = list(range(len(true))), []
        while left:
            w = np.exp(true[left])
            order.append(left.pop(int(rng.choice(len(left), p=w / w.sum()))))
        orders.append(order)
    return orders


def test_plackett_luce_recovers_the_strengths_of_whole_orders() -> None:
    true = np.array([0.0, 0.8, -0.5, 1.6])
    orders = _orders(true, 1500, seed=3)
    r = rate_orders(["random", "b", "c", "d"], orders, list(range(1500)), resamples=20)
    assert r.order() == [3, 1, 0, 2] and r.anchor == "random" and r.rating[0] == 0.0
    assert np.allclose(np.array(r.rating) / ELO_PER_UNIT, true, atol=0.15)
    assert all(lo <= x <= hi for lo, x, hi in zip(r.low, r.rating, r.high, strict=True))
    assert r.identified and r.resamples == 20


def test_plackett_luce_on_two_seats_is_the_pairwise_fit() -> None:
    """Two-seat orders are comparisons: the same maximum as Bradley-Terry with its prior."""
    orders = [[0, 1]] * 30 + [[1, 0]] * 10
    pl = rate_orders(["random", "b"], orders, list(range(40)), resamples=0)
    bt = rate(["random", "b"], [PairDeals(0, 1, np.r_[np.ones(30), np.zeros(10)])], resamples=0)
    # PL's virtual pair of orders is one win each way, BT's virtual tie half a win each way
    assert pl.rating[1] == pytest.approx(-ELO_PER_UNIT * math.log(31 / 11), abs=1e-6)
    assert bt.rating[1] == pytest.approx(-ELO_PER_UNIT * math.log(30.5 / 10.5), abs=1e-6)


def test_a_tournament_offers_plackett_luce_ratings() -> None:
    from cardsuite.agents.arena.tournament import run_tournament

    result = run_tournament("scum", ["heuristic", "random", "greedy"], games=6, seed=1)
    r = result.plackett_luce(resamples=10)
    assert r.agents == result.names and r.anchor == result.rating_anchor == "random"
    assert r.rating[1] == 0.0 and r.resamples == 10 and len(r.low) == 3
