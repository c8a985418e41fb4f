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

    The cards of the opponents' hands that are not public and the stock (unless
    it was made by turning over the discard pile, S4, and so is public) are
    shuffled and dealt back into the same places: hand sizes, the stock size,
    the observer's hand, the table, the pile and every public card in an
    opponent's hand (one taken from the discard pile) are kept.

    Args:
        state: the true state.
        observer: the seat whose knowledge is kept.
        rng: the randomness of the re-deal; the copy's own RNG is reseeded from it.
    """
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
