"""Invariants of the batched Scandal engine under random play (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scandal_env.batched import BatchedScandal
from tests.scandal_batched.differential import host
from tests.scandal_batched.test_engine import random_actions


def card_places(eng: BatchedScandal) -> np.ndarray:
    """``[N, n]``: in how many places (hands, meld under construction, table,
    pile, stock) each card lies."""
    n = eng.t.n
    count = host(eng.hands).sum(axis=1).astype(np.int64)
    count += host(eng.build)
    count += host(eng.placed_by) >= 0
    count += host(eng.pile_pos) >= 0
    stock, slen = host(eng.stock_arr), host(eng.stock_len)
    live = np.arange(n)[None, :] < slen[:, None]
    rows = np.repeat(np.arange(stock.shape[0]), n).reshape(stock.shape)
    np.add.at(count, (rows[live], stock[live]), 1)
    return count


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    num_players=st.integers(2, 6),
    episode=st.sampled_from(["hand", "game"]),
    max_turns=st.integers(1, 60),
)
def test_random_play_keeps_every_invariant(
    seed: int, num_players: int, episode: str, max_turns: int
) -> None:
    """Every card lies in exactly one place (S1); a running game always has a legal
    action (the look-ahead never dead-ends); observations stay inside the spec's
    bounds; counts match the hands; rewards come only with a hand's end."""
    eng = BatchedScandal(
        24, num_players=num_players, episode=episode, max_turns=max_turns, target_score=80
    )
    low, high = eng.obs_spec.bounds()
    rng = np.random.default_rng(seed)
    obs, mask, _ = eng.reset(seed)
    hand_no = host(eng.hand_no).copy()
    for _ in range(120):
        assert (card_places(eng) == 1).all()
        assert (host(mask).sum(axis=1) > 0).all()
        o = host(obs)
        assert ((o >= low) & (o <= high)).all()
        assert np.array_equal(host(eng.counts), host(eng.hands).sum(axis=2))
        res = eng.step(random_actions(rng, mask))
        obs, mask = res.obs, res.mask
        ended = host(res.done) | (host(eng.hand_no) != hand_no)
        assert not host(res.rewards)[~ended].any()
        assert res.truncated is not None
        assert not (host(res.truncated) & ~host(res.done)).any()
        hand_no = host(eng.hand_no).copy()
