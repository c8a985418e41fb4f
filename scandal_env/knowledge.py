"""What a Scandal player cannot see, and resampling consistent with what they can.

A player sees their own hand, the table, the discard pile, every hand size,
and the cards an opponent took from the discard pile (public while in that
hand, I5). A stock made by turning the pile over (S4) is public too. Search
agents (ISMCTS) deal the rest again with [`resample_hidden`][scandal_env.knowledge.resample_hidden].
"""

from __future__ import annotations

import numpy as np

from scandal_env.state import State, clone


def resample_hidden(state: State, observer: int, rng: np.random.Generator) -> State:
    """A copy of ``state`` with what ``observer`` cannot see dealt anew.

    The opponents' secret cards and the stock (unless public, S4) are shuffled
    and dealt back into the same places; sizes and public cards are kept. The
    copy's RNG is reseeded from ``rng``; when ``observer`` is to act it keeps
    the cached legal mask, which reads nothing dealt anew.
    """
    p = state.num_players
    seats = [(observer + off) % p for off in range(1, p)]
    # per opponent (from the observer's left): the cards nobody else has seen
    secret = [np.flatnonzero(state.hands[seat] & ~state.known[seat]) for seat in seats]
    parts = list(secret)
    if not state.stock_public:
        parts.append(np.asarray(state.stock, dtype=np.int64))
    pool = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    order = pool[rng.permutation(len(pool))]
    out = clone(state, rng=np.random.default_rng(int(rng.integers(2**63 - 1))))
    pos = 0
    for seat, cards in zip(seats, secret, strict=True):
        out.hands[seat, cards] = False
        out.hands[seat, order[pos : pos + cards.size]] = True
        pos += cards.size
    if not state.stock_public:
        out.stock = order[pos : pos + len(state.stock)].tolist()
    out.mask_cache = state.mask_cache if observer == state.to_act else None
    return out
