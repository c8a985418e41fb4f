"""The tables of a Scum Party: split (P2), ladder (P7) and tournament score (P8).

Pure functions over lists of player ids; no engine state.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scum_env.party.cards import MAX_TABLE, MIN_TABLE

ROLE_BONUS_TOP = (2, 1)  # King, Assistant King (P8)
ROLE_BONUS_BOTTOM = (-1, -2)  # Assistant Scum, Scum (P8)


def split_tables(num_players: int) -> tuple[int, ...]:
    """Table sizes, top table first (P2): ``ceil(n / 15)`` tables as equal as possible,
    the larger ones on top."""
    tables = -(-num_players // MAX_TABLE)
    base, extra = divmod(num_players, tables)
    return tuple(base + (1 if t < extra else 0) for t in range(tables))


def swap_sizes(sizes: Sequence[int]) -> tuple[int, ...]:
    """Players swapped between table ``t`` and ``t + 1``, for each adjacent pair (P7)."""
    return tuple(min(sizes[t], sizes[t + 1]) // 2 for t in range(len(sizes) - 1))


def ladder(finish: Sequence[Sequence[int]]) -> list[list[int]]:
    """New seating of every table (King first) from each table's finish order (P7).

    Between adjacent tables the bottom ``m`` of the upper and the top ``m`` of
    the lower swap (`swap_sizes`); a table seats the arrivals from above, those
    who stay, then the arrivals from below, each in finish order.
    """
    sizes = [len(f) for f in finish]
    swaps = swap_sizes(sizes)
    seating = []
    for t, order in enumerate(finish):
        up = swaps[t - 1] if t > 0 else 0  # this table's top `up` move up
        down = swaps[t] if t < len(finish) - 1 else 0  # its bottom `down` move down
        from_above = list(finish[t - 1][len(finish[t - 1]) - up :]) if up else []
        from_below = list(finish[t + 1][:down]) if down else []
        stay = list(order[up : len(order) - down])
        seating.append(from_above + stay + from_below)
    return seating


def seat_bonus(position: int, size: int) -> int:
    """Role points of a seat (P8): King +2, Assistant King +1, Assistant Scum -1, Scum -2."""
    if position < 2:
        return ROLE_BONUS_TOP[position]
    if position >= size - 2:
        return ROLE_BONUS_BOTTOM[position - (size - 2)]
    return 0


def hand_points(seating: Sequence[Sequence[int]], num_players: int) -> np.ndarray:
    """Points of one hand for every player, from the seating after the ladder (P8)."""
    tables = len(seating)
    points = np.zeros(num_players, dtype=np.int64)
    for t, order in enumerate(seating):
        for position, player in enumerate(order):
            points[player] = tables - t + seat_bonus(position, len(order))
    return points


def check_sizes(sizes: Sequence[int]) -> str | None:
    """Why a list of table sizes is impossible, or ``None`` if it is fine (P2)."""
    if not sizes:
        return "needs at least one table"
    bad = [s for s in sizes if not MIN_TABLE <= s <= MAX_TABLE]
    if bad:
        return f"every table seats {MIN_TABLE} to {MAX_TABLE} players (P2), got {bad[0]}"
    return None
