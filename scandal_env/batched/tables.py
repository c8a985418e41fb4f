"""Static lookup tables of one Scandal deck, on a batched backend.

Everything the batched mask, apply and observation steps read about cards and
scandals (S1): memberships, colours, values, the lay-off pairs of the action
layout, and padded index tables that turn "for each card of this scandal" and
"for each scandal of this card" into one gather.
"""

from __future__ import annotations

import numpy as np

from cardsuite.batched.backend import Array, Backend
from cardsuite.errors import ConfigError
from scandal_env.actions import ActionLayout
from scandal_env.deck import Deck

#: A depth larger than any pile (cards not in the pile, requirements not met), int8.
BIG8 = 127


class DeckTables:
    """The deck's tables as backend arrays (built once per engine).

    Attributes:
        n, ns, npairs: cards, scandals, lay-off pairs.
        member: bool[n, ns]; member_t: bool[ns, n] (its transpose).
        is_title, is_bg: bool[n]; value: int64[n] (S1 points).
        title_of: int64[ns] the title card of each scandal.
        pair_card, pair_scandal: int64[npairs] the lay-off layout (S6).
        nt_pad, bg_pad: int64[ns, *] the non-title and the blue/green cards of
            each scandal, padded with ``n`` (a column past the last card).
        first_scandal: int64[n] the first scandal of each card.
        multi, multi_scandals: the cards of several scandals (gold, S1) and
            their scandals, padded with ``ns``.
        layout: the action layout.
    """

    def __init__(self, deck: Deck, layout: ActionLayout, xp: Backend) -> None:
        """Build the tables of ``deck`` on ``xp``."""
        n, ns = deck.n_cards, deck.n_scandals
        if n >= BIG8:
            raise ConfigError(f"the batched engine holds pile depths in a byte: at most "
                              f"{BIG8 - 1} cards, the deck has {n}")  # fmt: skip
        self.n, self.ns, self.npairs = n, ns, deck.n_pairs
        self.layout = layout
        member = np.asarray(deck.member, dtype=bool)
        is_title = np.asarray(deck.is_title, dtype=bool)
        is_bg = np.asarray(deck.is_bg, dtype=bool)
        nt_pad = _padded([np.flatnonzero(member[:, s] & ~is_title) for s in range(ns)], n)
        bg_pad = _padded([np.flatnonzero(member[:, s] & is_bg) for s in range(ns)], n)
        gold = np.flatnonzero(member.sum(axis=1) > 1)
        scandals_pad = _padded([np.flatnonzero(member[c]) for c in range(n)], ns)
        as_ = xp.asarray
        self.member: Array = as_(member, xp.bool)
        self.member_t: Array = as_(member.T.copy(), xp.bool)
        self.is_title: Array = as_(is_title, xp.bool)
        self.is_bg: Array = as_(is_bg, xp.bool)
        self.is_bg_i: Array = as_(is_bg, xp.int64)
        self.value: Array = as_(deck.value, xp.int64)
        self.title_of: Array = as_(deck.title_of, xp.int64)
        self.pair_card: Array = as_(deck.pair_card, xp.int64)
        self.pair_scandal: Array = as_(deck.pair_scandal, xp.int64)
        self.pair_card8: Array = as_(deck.pair_card, xp.int8)
        pcard = np.asarray(deck.pair_card, dtype=np.int64)
        run = 0
        while run < pcard.size and pcard[run] == pcard[0] + run:
            run += 1
        #: pairs ``0 .. run-1`` are cards ``lo .. hi-1`` in order (the one-scandal cards)
        self.pair_run = (int(pcard[0]), int(pcard[0]) + run) if pcard.size else (0, 0)
        self.first_scandal: Array = as_(scandals_pad[:, 0].copy(), xp.int64)
        self.nt_pad: Array = as_(nt_pad, xp.int64)
        self.bg_pad: Array = as_(bg_pad, xp.int64)
        self.nt_pad_t: Array = as_(nt_pad.T.copy(), xp.int64)
        self.bg_pad_t: Array = as_(bg_pad.T.copy(), xp.int64)
        self.multi: Array = as_(gold, xp.int64)
        self.multi_scandals: Array = as_(scandals_pad[gold], xp.int64)
        self.card_ar: Array = xp.arange(n)
        self.depth8: Array = as_(np.arange(n), xp.int8)
        self.scandal_ar: Array = xp.arange(ns)


def _padded(rows: list[np.ndarray], pad: int) -> np.ndarray:
    """Index rows of unequal length as one int64 array padded with ``pad``."""
    out = np.full((len(rows), max(len(r) for r in rows)), pad, dtype=np.int64)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out
