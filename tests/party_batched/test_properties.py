"""Invariants of the batched Scum Party engine under random play (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scum_env.party.batched import BatchedParty
from scum_env.party.engine import table_rules

CONFIGS = [
    {"num_players": 5},
    {"num_players": 9},
    {"num_players": 16},
    {"num_players": 23, "num_hands": 2},
    {"num_players": 31, "table_sizes": "6,5,5,5,5,5"},
    {"num_players": 50, "num_hands": 1},
]


def check_invariants(eng: BatchedParty) -> None:
    """Cards are conserved, seats hold every player once, the turn is at a playing table."""
    lay = eng.lay
    hands = eng.hands.astype(np.int64)
    for g in range(eng.num_games):
        view = eng.game_view(g)
        seated = sorted(p for members in view["members"] for p in members)
        assert seated == list(range(lay.n))  # P2/P7: every player at exactly one seat
        if view["over"]:
            continue
        assert not eng.tover[g * lay.T + view["current"]]  # the table to act is playing
        for t, size in enumerate(lay.sizes):
            r = g * lay.T + t
            pack = table_rules(size).deck.astype(np.int64)
            held = hands[r, :size].sum(axis=0) + eng.played[r].astype(np.int64)
            assert np.array_equal(held, pack)  # P1: the table's decks, no card lost or made
            assert not hands[r, size:].any()  # padding stays empty
            assert np.array_equal(hands[r].sum(axis=1), eng.ncards[r])
            given = eng.given[r].astype(np.int64).sum()
            assert given == eng.received[r].astype(np.int64).sum() == 6  # P5: 2+2+1+1 cards
    mask = eng._mask
    assert mask is not None
    assert (mask.any(axis=1) | eng.over).all()  # never an all-zero mask while running


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.sampled_from(CONFIGS),
    seed=st.integers(0, 2**64 - 1),
    steps=st.integers(1, 900),
    autoreset=st.booleans(),
)
def test_random_play_keeps_the_invariants(
    config: dict, seed: int, steps: int, autoreset: bool
) -> None:
    eng = BatchedParty(3, autoreset=autoreset, **config)
    _, mask, _ = eng.reset(seed)
    rng = np.random.default_rng(seed % 2**32)
    total = np.zeros(3)
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        res = eng.step(actions)
        total += res.rewards.sum(axis=1)
        mask = res.mask
    check_invariants(eng)
    # P8: every hand hands out the same points in all; a tournament's totals are their sum
    per_hand = int(eng.lay.hand_points.sum())
    if not autoreset:
        assert np.array_equal(eng.scores.sum(axis=1), eng.hand * per_hand)
    assert np.all(total % per_hand == 0)
