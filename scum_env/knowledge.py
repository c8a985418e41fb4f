"""What a player knows about the hidden hands, and resampling consistent with it.

A Scum player sees their own hand, every card played and by whom, every hand
size and the trades they took part in (J5): cards they gave a player are still
there unless since played or passed on unseen (J5 ``spanish``), a lower bound;
a player forced to give them their highest cards held nothing higher then, an
upper bound. [`resample_hidden`][scum_env.knowledge.resample_hidden] deals the
unseen cards again under these constraints (for ISMCTS).
"""

from __future__ import annotations

import numpy as np

from scum_env.engine import State, clone


def known_cards(state: State, observer: int) -> np.ndarray:
    """Per player and slot, cards ``observer`` knows that player still holds."""
    n, k = state.rules.num_players, state.rules.num_slots
    gave = np.zeros((n, k), dtype=np.int16)
    later = np.zeros((n, 1), dtype=np.int16)
    for giver, receiver, slot, _forced in state.trade_log:
        if giver == observer:
            gave[receiver, slot] += 1
        elif gave[giver].any():
            # J5 spanish: the Scum passes its highest card on to the Vice President
            # after the President's gifts, unseen by the President: any gift may be gone
            later[giver] += 1
    known: np.ndarray = np.maximum(gave - state.played_by - later, 0).astype(np.int16)
    known[observer] = state.hands[observer]
    return known


def caps(state: State, observer: int) -> tuple[list[int], list[int]]:
    """Per player: the highest slot their capped cards can be (``K - 1``: none), and how
    many are uncapped (received after the forced give to ``observer`` from someone else)."""
    n, k = state.rules.num_players, state.rules.num_slots
    cap = [k - 1] * n
    moment = [-1] * n
    for i, (giver, receiver, slot, forced) in enumerate(state.trade_log):
        if forced and receiver == observer and (moment[giver] < 0 or i == moment[giver] + 1):
            cap[giver] = min(cap[giver], slot) if moment[giver] >= 0 else slot
            moment[giver] = i
    free = [0] * n
    for i, (giver, receiver, _slot, _forced) in enumerate(state.trade_log):
        # the observer's own gifts are counted by resample_hidden (known, or unknown_gifts)
        if moment[receiver] >= 0 and i > moment[receiver] and giver != observer:
            free[receiver] += 1
    return cap, free


def deal_to_buckets(
    cards: list[int], buckets: list[list[int]], k: int, rng: np.random.Generator
) -> list[list[int]] | None:
    """Deal ``cards`` (slots, highest first) into ``buckets`` of ``[player, cap, room]``.

    Each card goes to a bucket whose cap is at least its slot, with probability
    proportional to its room left (used up in place): one uniform per card,
    drawn as ``rng.choice(len(buckets), p=...)`` would (a test compares the two).

    Returns:
        Per bucket, the count of each of the ``k`` slots dealt to it; None when a
        card fits no bucket (bounds inconsistent with a preset scenario).
    """
    counts = [[0] * k for _ in buckets]
    draw = rng.random
    for slot in cards:
        total = sum(b[2] for b in buckets if b[1] >= slot)
        if total <= 0:
            return None
        x = draw() * total
        chosen = -1
        for i, b in enumerate(buckets):
            if b[1] >= slot and b[2] > 0:
                chosen = i
                x -= b[2]
                if x < 0:
                    break
        buckets[chosen][2] -= 1
        counts[chosen][slot] += 1
    return counts


def resample_hidden(state: State, observer: int, rng: np.random.Generator) -> State:
    """A copy of ``state`` whose unseen cards are dealt again under the bounds above.

    The observer's hand, played cards, hand sizes and known trade cards are
    kept; the copy gets a fresh generator drawn from ``rng``.
    """
    rules = state.rules
    n, k = rules.num_players, rules.num_slots
    out = clone(state)
    out.rng = np.random.default_rng(int(rng.integers(0, 2**63 - 1)))
    known = known_cards(state, observer)
    cap, free = caps(state, observer)
    others = [p for p in range(n) if p != observer]
    pool = (state.hands[others] - known[others]).sum(axis=0)
    cards = np.repeat(np.arange(k), pool)[::-1]  # highest first
    # buckets: (player, cap slot, capacity); uncapped buckets take any card
    buckets: list[list[int]] = []
    for p in others:
        room = state.ncards[p] - int(known[p].sum())
        unknown_gifts = int(
            sum(1 for g, r, _s, _f in state.trade_log if g == observer and r == p)
        ) - int(known[p].sum())
        loose = min(room, free[p] + max(unknown_gifts, 0)) if cap[p] < k - 1 else room
        if loose:
            buckets.append([p, k - 1, loose])
        if room - loose:
            buckets.append([p, cap[p], room - loose])
    hands = known.copy()
    dealt = deal_to_buckets(cards.tolist(), buckets, k, rng)
    if dealt is not None:
        for (p, _cap, _room), row in zip(buckets, dealt, strict=True):
            if any(row):
                hands[p] += np.asarray(row, dtype=np.int16)
    else:  # bounds inconsistent with a preset scenario: fall back to sizes only
        perm = rng.permutation(cards)
        start = 0
        for p in others:
            room = state.ncards[p] - int(known[p].sum())
            hands[p] += np.bincount(perm[start : start + room], minlength=k).astype(np.int16)
            start += room
    out.hands = hands.astype(np.int16)
    return out
