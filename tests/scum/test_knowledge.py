"""What a player knows about hidden hands after the J5 trades, and resampling."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scum_env.knowledge import caps, deal_to_buckets, known_cards, resample_hidden
from tests.scum.scripted import give, hand, pass_, play, table

# p0 President, p1 VP, p2 Middle Class, p3 Next to Scum, p4 Scum
HANDS = ["11 12 4 5", "6 7 10", "2 10 10", "3 5 6 W", "S 2 3 8 9"]


def traded(**options: object):
    state = table(HANDS, trade=True, **options)
    give(state, 0, "12")
    give(state, 0, "11")
    return state


def test_knowledge_own_hand_and_the_cards_given_are_known() -> None:
    state = traded()
    give(state, 1, "6")  # the VP gives Next to Scum a 6
    known = known_cards(state, 0)
    np.testing.assert_array_equal(known[0], state.hands[0])
    assert state.rules.cards.describe(known[4]) == "11 12"  # the President's gifts
    assert not known[1].any() and not known[3].any()  # not the President's trades
    known_vp = known_cards(state, 1)
    assert state.rules.cards.describe(known_vp[3]) == "6"


def test_knowledge_a_gift_that_was_played_is_no_longer_known() -> None:
    state = traded()
    give(state, 1, "6")
    play(state, 0, "4")
    pass_(state, 1)
    pass_(state, 2)
    pass_(state, 3)
    play(state, 4, "11")  # the Scum plays one of the President's gifts
    assert state.rules.cards.describe(known_cards(state, 0)[4]) == "12"
    assert hand(state, 4) == "S 2 3 12"


def test_knowledge_scum_forced_to_give_its_two_highest_holds_nothing_higher() -> None:
    state = traded()
    cap, free = caps(state, 0)
    assert cap[4] == state.rules.cards.slot("8")  # it gave 9 and 8: the rest is at most 8
    assert free[4] == 0  # the President's own gifts are counted as known, not as free
    for seed in range(30):
        sample = resample_hidden(state, 0, np.random.default_rng(seed))
        scum = sample.hands[4]
        # exactly the two gifts are above 8: every unknown card of the Scum is 8 or lower
        above = scum.copy()
        above[: cap[4] + 1] = 0
        assert state.rules.cards.describe(above) == "11 12"
        assert int(scum.sum()) == 5


def test_knowledge_vice_president_caps_next_to_scum_after_its_forced_card() -> None:
    state = traded()
    give(state, 1, "6")
    cap, _free = caps(state, 1)
    assert cap[3] == state.rules.cards.slot("W")  # Next to Scum gave a Wild: no bound
    cap0, _ = caps(state, 0)
    assert cap0[3] == state.rules.num_slots - 1  # the President saw no trade of p3


def test_knowledge_spanish_a_gift_passed_on_to_the_vice_president_is_not_known() -> None:
    state = table(HANDS, trade=True, trade_rules="spanish")
    give(state, 0, "12")
    give(state, 0, "4")
    # the Scum's highest card is now the President's 12: it goes on to the VP
    assert hand(state, 4) == "S 2 3 4"
    assert hand(state, 1) == "6 7 10 12"
    known = known_cards(state, 0)
    # the President cannot see that trade: it knows no card of the Scum for sure
    assert not known[4].any()
    assert (known <= state.hands).all()
    for seed in range(10):
        sample = resample_hidden(state, 0, np.random.default_rng(seed))
        np.testing.assert_array_equal(sample.hands[0], state.hands[0])
        assert [int(v) for v in sample.hands.sum(axis=1)] == state.ncards


def test_knowledge_resampling_uses_a_fresh_generator_and_keeps_the_real_one() -> None:
    state = traded()
    before = state.rng.bit_generator.state
    sample = resample_hidden(state, 2, np.random.default_rng(0))
    assert state.rng.bit_generator.state == before
    assert sample.rng.bit_generator.state != before
    again = resample_hidden(state, 2, np.random.default_rng(0))
    np.testing.assert_array_equal(sample.hands, again.hands)


def test_knowledge_without_trades_every_hidden_card_is_dealt_in_proportion_to_room() -> None:
    # No trade: the observer knows only its own hand, so a resample is a uniform deal
    # of the other hands' cards over their sizes. Then every hidden card of slot s
    # lands with player p in expectation pool[s] * size[p] / hidden cards.
    state = table(HANDS)
    pool = state.hands[1:].sum(axis=0).astype(float)
    sizes = np.asarray(state.ncards[1:], dtype=float)
    expected = np.outer(sizes / sizes.sum(), pool)
    draws = 4000
    rng = np.random.default_rng(7)
    total = np.zeros_like(expected)
    for _ in range(draws):
        sample = resample_hidden(state, 0, rng)
        np.testing.assert_array_equal(sample.hands[0], state.hands[0])
        np.testing.assert_array_equal(sample.hands[1:].sum(axis=0), pool)  # the same cards
        np.testing.assert_array_equal(sample.hands.sum(axis=1), state.ncards)  # the same sizes
        total += sample.hands[1:]
    mean = total / draws
    # a count of one slot in one hand is at most 4: its standard error is below 2 / sqrt(draws)
    assert np.abs(mean - expected).max() < 4 * 2 / np.sqrt(draws)
    assert np.abs(mean - expected).max() > 0  # sampled, not the expectation itself


@settings(max_examples=200, deadline=None)
@given(
    rooms=st.lists(st.integers(0, 6), min_size=1, max_size=8),
    caps_=st.lists(st.integers(0, 12), min_size=8, max_size=8),
    cards=st.lists(st.integers(0, 12), max_size=30),
    seed=st.integers(0, 2**32 - 1),
)
def test_knowledge_bucket_deal_is_the_per_card_weighted_choice(
    rooms: list[int], caps_: list[int], cards: list[int], seed: int
) -> None:
    # deal_to_buckets draws one uniform per card exactly as rng.choice(p=room left)
    # did, so the determinizations (and the searches' choices for a seed) did not
    # change when it replaced that call
    k = 13
    cards = sorted(cards, reverse=True)
    buckets = [[i, caps_[i], room] for i, room in enumerate(rooms)]
    expected: list[list[int]] | None = [[0] * k for _ in buckets]
    left = [b[2] for b in buckets]
    rng = np.random.default_rng(seed)
    for slot in cards:
        weights = np.array(
            [left[i] if b[1] >= slot else 0 for i, b in enumerate(buckets)], dtype=float
        )
        if weights.sum() <= 0:
            expected = None
            break
        i = int(rng.choice(len(buckets), p=weights / weights.sum()))
        left[i] -= 1
        assert expected is not None
        expected[i][slot] += 1
    other = np.random.default_rng(seed)
    assert deal_to_buckets(cards, [list(b) for b in buckets], k, other) == expected
    assert other.random() == rng.random()  # the same stream position after it (or its failure)
