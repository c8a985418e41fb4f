"""The table between Scandal moves and integer action ids.

Named bases, in id order (`ActionLayout.ranges` says what each range does):
``DRAW_STOCK``, ``DRAW_DISCARD + depth``, ``MELD_START + scandal``,
``MELD_ADD + card``, ``MELD_FINISH``, ``LAYOFF + membership`` and
``DISCARD + card``. The lay-off memberships are the (non-title card, scandal)
pairs ordered by card id then scandal id: a gold card has one per scandal.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from scandal_env.deck import Deck


class Kind(IntEnum):
    """The kind of an action: which range of the layout its id falls in."""

    DRAW_STOCK = 0
    DRAW_DISCARD = 1
    MELD_START = 2
    MELD_ADD = 3
    MELD_FINISH = 4
    LAYOFF = 5
    DISCARD = 6


@dataclass(frozen=True)
class ActionLayout:
    """Named bases of the action ids for one deck.

    Attributes:
        n_cards: number of cards.
        n_scandals: number of scandals.
        n_pairs: number of lay-off memberships.
        DRAW_STOCK, DRAW_DISCARD, MELD_START, MELD_ADD, MELD_FINISH, LAYOFF,
        DISCARD: the first id of each range.
        size: total number of action ids.
    """

    n_cards: int
    n_scandals: int
    n_pairs: int
    DRAW_STOCK: int
    DRAW_DISCARD: int
    MELD_START: int
    MELD_ADD: int
    MELD_FINISH: int
    LAYOFF: int
    DISCARD: int
    size: int

    def ranges(self) -> list[tuple[str, int, int, str]]:
        """``(name, first id, count, meaning)`` of every range, in id order."""
        return [
            ("draw_stock", self.DRAW_STOCK, 1, "take the top of the stock (S3, S4 flip)"),
            ("draw_discard", self.DRAW_DISCARD, self.n_cards, "take the discard at depth d (S3)"),
            ("meld_start", self.MELD_START, self.n_scandals, "start a meld of scandal s (S5)"),
            ("meld_add", self.MELD_ADD, self.n_cards, "add card c to the meld under construction"),
            ("meld_finish", self.MELD_FINISH, 1, "lay the meld under construction on the table"),
            ("layoff", self.LAYOFF, self.n_pairs, "lay off membership p (card, scandal) (S6)"),
            ("discard", self.DISCARD, self.n_cards, "discard card c and end the turn (S7)"),
        ]

    def table(self) -> str:
        """A Markdown table of the action ranges."""
        rows = ["| action | ids | count | meaning |", "|---|---|---|---|"]
        for name, first, count, doc in self.ranges():
            ids = f"{first}" if count == 1 else f"{first}–{first + count - 1}"
            rows.append(f"| `{name}` | {ids} | {count} | {doc} |")
        rows.append(f"| **total** | 0–{self.size - 1} | {self.size} | |")
        return "\n".join(rows)


def make_layout(deck: Deck) -> ActionLayout:
    """The action layout of ``deck`` (fixed size for a given deck)."""
    n, ns, npairs = deck.n_cards, deck.n_scandals, deck.n_pairs
    # the sizes of the ranges DRAW_STOCK .. DISCARD, in id order: their bases, then the size
    bases = itertools.accumulate((1, n, ns, n, 1, npairs, n), initial=0)
    return ActionLayout(n, ns, npairs, *bases)


def pair_index(deck: Deck) -> np.ndarray:
    """int16[n_cards, n_scandals]: the lay-off pair of (card, scandal), -1 if none."""
    out = np.full((deck.n_cards, deck.n_scandals), -1, dtype=np.int16)
    out[deck.pair_card, deck.pair_scandal] = np.arange(deck.n_pairs, dtype=np.int16)
    return out


def decode(layout: ActionLayout, action: int) -> tuple[Kind, int]:
    """The kind of ``action`` and its argument, the offset in its range (depth, scandal,
    card or membership; 0 for the single ids); ValueError outside ``0 .. size - 1``."""
    a = int(action)
    if a < layout.MELD_START:
        if a == layout.DRAW_STOCK:
            return Kind.DRAW_STOCK, 0
        if a >= layout.DRAW_DISCARD:
            return Kind.DRAW_DISCARD, a - layout.DRAW_DISCARD
    elif a < layout.MELD_ADD:
        return Kind.MELD_START, a - layout.MELD_START
    elif a < layout.MELD_FINISH:
        return Kind.MELD_ADD, a - layout.MELD_ADD
    elif a == layout.MELD_FINISH:
        return Kind.MELD_FINISH, 0
    elif a < layout.DISCARD:
        return Kind.LAYOFF, a - layout.LAYOFF
    elif a < layout.size:
        return Kind.DISCARD, a - layout.DISCARD
    raise ValueError(f"action {a} is out of range 0..{layout.size - 1}")


def describe(layout: ActionLayout, deck: Deck, action: int) -> str:
    """The action in words, e.g. ``'discard Richard Nixon (blue)'``."""
    a = int(action)
    if not 0 <= a < layout.size:
        return f"action {a} (out of range 0..{layout.size - 1})"
    kind, x = decode(layout, a)
    if kind is Kind.DRAW_STOCK:
        return "draw from the stock"
    if kind is Kind.DRAW_DISCARD:
        return "draw the top discard" if x == 0 else f"draw the discard at depth {x}"
    if kind is Kind.MELD_START:
        return f"start a meld of {deck.scandal_names[x]!r}"
    if kind is Kind.MELD_ADD:
        return f"add {deck.describe(x)} to the meld"
    if kind is Kind.MELD_FINISH:
        return "finish the meld"
    if kind is Kind.LAYOFF:
        c, s = int(deck.pair_card[x]), int(deck.pair_scandal[x])
        return f"lay off {deck.describe(c)} on {deck.scandal_names[s]!r}"
    return f"discard {deck.describe(x)}"
