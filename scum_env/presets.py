"""Checks of the preset deals and seatings passed to ``reset(options=...)`` (J3, J4, P2, P3):
a [`PresetError`][cardsuite.errors.PresetError] names the field; nothing is cast silently."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cardsuite.errors import PresetError

MAX_TOTAL = 10**12  # preset totals beyond this are no tournament's (and would overflow)
MAX_HAND = 1000  # more cards than any table's decks hold (P1: four decks, 216 cards)


def short(value: Any, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters for an error message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_whole(value: Any) -> bool:
    """Whether ``value`` is an int (numpy ints too), not a bool."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def whole_numbers(field: str, value: Any, n: int, low: int, high: int) -> list[int]:
    """``value`` as a list of ``n`` whole numbers in ``low .. high``; PresetError otherwise."""
    items = _items(value)
    if items is None or len(items) != n or not all(is_whole(v) and low <= v <= high for v in items):
        raise PresetError(
            f"preset {field} must be {n} integers from {low} to {high}, got {short(value)}"
        )
    return [int(v) for v in items]


def check_roles(n: int, roles: Any, field: str = "roles", top: str = "President") -> list[int]:
    """``roles`` as player ids in role order; PresetError unless a permutation of 0..n-1."""
    items = _items(roles)
    if (
        items is None
        or not all(is_whole(v) for v in items)
        or sorted(int(v) for v in items) != list(range(n))
    ):
        raise PresetError(
            f"preset {field} must list each of the {n} players once ({top} first), "
            f"as player indices 0 to {n - 1}, got {short(roles)}"
        )
    return [int(v) for v in items]


def _items(value: Any) -> list[Any] | None:
    """The items of a list, tuple or 1-d array; None for anything else (text included)."""
    if isinstance(value, np.ndarray):
        return list(value) if value.ndim == 1 else None
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        return None
    return list(value)


def card_lists(field: str, hands: Any, n: int) -> list[list[str]]:
    """``hands`` as ``n`` non-empty lists of card names (text); PresetError otherwise."""
    if isinstance(hands, str | bytes) or not isinstance(hands, Sequence) or len(hands) != n:
        raise PresetError(f"preset {field} must be a list of {n} card lists, one per player")
    out = []
    for player, cards in enumerate(hands):
        if isinstance(cards, Sequence) and len(cards) > MAX_HAND:
            raise PresetError(f"preset hand of player_{player} holds {len(cards)} cards")
        if isinstance(cards, str | bytes) or not isinstance(cards, Sequence) or not cards:
            raise PresetError(
                f"preset hand of player_{player} must be a non-empty list of cards, "
                f"got {short(cards)}"
            )
        for card in cards:
            if not isinstance(card, str):
                raise PresetError(
                    f"preset hand of player_{player}: a card name is text like '7', "
                    f"got {short(card)}"
                )
        out.append(list(cards))
    return out
