"""`resample_hidden` against its previous, plainer form (the search's determinizations).

`resample_hidden` deals the hidden cards with one permutation of the pool
and reseeds the copy's generator from the caller's ``rng``; a search's
choices depend on both. The array form must draw the same numbers in the
same order and deal the same hands, stock and generator as the list form it
replaced (kept here verbatim as the truth), for every observer of positions
of real play at 2 to 4 players. The cached legal mask it keeps when the
observer is to act must be the mask of the copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from scandal_env.masks import legal_mask
from scandal_env.state import State, clone, resample_hidden
from tests.scandal.real_play import random_positions


def previous(state: State, observer: int, rng: np.random.Generator) -> State:
    """``resample_hidden`` before its array form (the reference)."""
    out = clone(state)
    p = state.num_players
    hidden_slots: list[tuple[int, int]] = []  # (seat, count); seat -1 = stock
    pool: list[int] = []
    for off in range(1, p):
        seat = (observer + off) % p
        secret = np.flatnonzero(state.hands[seat] & ~state.known[seat])
        pool.extend(int(c) for c in secret)
        hidden_slots.append((seat, len(secret)))
        out.hands[seat, secret] = False
    if not state.stock_public:
        pool.extend(state.stock)
        hidden_slots.append((-1, len(state.stock)))
    order = [pool[int(i)] for i in rng.permutation(len(pool))]
    pos = 0
    for seat, count in hidden_slots:
        chunk = order[pos : pos + count]
        pos += count
        if seat < 0:
            out.stock = chunk
        else:
            out.hands[seat, chunk] = True
    out.rng = np.random.default_rng(int(rng.integers(2**63 - 1)))
    out.mask_cache = None
    return out


def positions(num_players: int, seed: int) -> list[State]:
    """States of random play, every fifth move; the stock is drawn mostly, so it runs out and
    the pile is turned over (S4, a public stock)."""
    return random_positions(num_players, seed, moves=900, every=5, max_turns=150, draw_stock=0.9)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_same_deals_and_generators_as_before(num_players: int) -> None:
    states = positions(num_players, seed=num_players)
    assert any(s.stock_public for s in states), "a public stock is kept"
    kept = 0
    for i, state in enumerate(states):
        legal_mask(state)  # cached, as the env's observation leaves it
        for observer in range(num_players):
            a, b = np.random.default_rng(i), np.random.default_rng(i)
            got, want = resample_hidden(state, observer, a), previous(state, observer, b)
            assert a.bit_generator.state == b.bit_generator.state, "the same numbers drawn"
            assert np.array_equal(got.hands, want.hands)
            assert got.stock == want.stock and all(type(c) is int for c in got.stock)
            assert got.rng.bit_generator.state == want.rng.bit_generator.state
            assert got.rng is not state.rng and got.hands is not state.hands
            if got.mask_cache is not None:
                kept += 1
                assert observer == state.to_act
                fresh = clone(got)
                fresh.mask_cache = None
                assert np.array_equal(got.mask_cache, legal_mask(fresh))
    assert kept >= len(states) - 1


def _reseeded(state: State) -> Any:
    return state.rng.bit_generator.state


def test_a_copy_never_shares_its_generator_or_arrays() -> None:
    state = positions(2, seed=9)[5]
    copy = resample_hidden(state, state.to_act, np.random.default_rng(0))
    before = _reseeded(state)
    copy.rng.integers(10)
    copy.hands[:] = False
    assert _reseeded(state) == before
    assert state.hands.any()
