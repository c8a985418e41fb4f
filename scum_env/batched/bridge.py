"""Per-game table states into batched rows: `load_states` (the search's state bridge).

A search grows its tree on per-game [`scum_env.state.State`][scum_env.state.State]
objects and evaluates the leaves in one [`BatchedScum`][scum_env.batched.engine.BatchedScum]
call: each leaf is written into one row (by role position), after which
``step`` continues every row as ``scum_v0`` would. The deal counters are not
carried over, so a search builds the engine with ``episode="series"`` and
``autoreset=False``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from cardsuite.batched.backend import Array
from cardsuite.errors import UsageError
from scum_env.batched.engine import OVER, BatchedScum
from scum_env.state import State


def state_rows(states: Sequence[State], num_players: int, num_slots: int) -> dict[str, np.ndarray]:
    """The engine's state arrays (host numpy, by role position) of ``states``, one row each."""
    m, n, k = len(states), num_players, num_slots
    for i, s in enumerate(states):
        if s.hands.shape != (n, k):
            raise UsageError(
                f"load_states: state {i} has hands {s.hands.shape}, the engine {(n, k)}"
            )

    def rows(get: Callable[[State], Any], dtype: Any, *shape: int) -> np.ndarray:
        return np.array([get(s) for s in states], dtype).reshape(m, *shape)

    def by_pos(name: str, dtype: Any, *shape: int) -> np.ndarray:
        return rows(lambda s: np.asarray(getattr(s, name))[s.order], dtype, n, *shape)

    finish = np.zeros((m, n), np.int8)
    for i, s in enumerate(states):
        for rank, player in enumerate(s.finish):
            finish[i, s.pos[player]] = rank + 1
    deals = rows(lambda s: s.series + 1, np.int64)
    return {
        "hands": by_pos("hands", np.int8, k),
        "given": by_pos("given", np.int8, k),
        "received": by_pos("received", np.int8, k),
        "ncards": by_pos("ncards", np.int16),
        "order": rows(lambda s: s.order, np.int64, n),
        "scores": by_pos("scores", np.int64),
        "finish": finish,
        "passed": by_pos("passed", bool),
        "acted": by_pos("acted", bool),
        "top_cards": rows(lambda s: s.top_cards, np.int8, k),
        "played": rows(lambda s: s.played, np.int8, k),
        "nfin": rows(lambda s: len(s.finish), np.int64),
        "passes": rows(lambda s: s.passes, np.int64),
        "phase": rows(lambda s: int(s.phase), np.int64),
        "actor": rows(lambda s: s.pos[s.to_act], np.int64),
        "top_count": rows(lambda s: s.top_count, np.int64),
        "top_slot": rows(lambda s: s.top_slot if s.top_count else -1, np.int64),
        "top_pos": rows(
            lambda s: s.pos[s.top_player] if s.top_count and s.top_player >= 0 else -1, np.int64
        ),
        "tstep": rows(lambda s: len(s.rules.trades) - len(s.pending), np.int64),
        "give_left": rows(lambda s: s.give_left, np.int64),
        "deals": deals,
        "series": deals.copy(),
        "game_over": rows(lambda s: s.game_over, bool),
        "winner_pos": np.full(m, -1, np.int64),
    }


def load_states(eng: BatchedScum, states: Sequence[State]) -> tuple[Array, Array, Array]:
    """Write ``states`` into rows ``0 .. len(states) - 1`` of ``eng`` (the rows past them are
    set over); return ``(obs, mask, to_act)``.

    Raises:
        UsageError: more states than rows, or a state of another table size.
    """
    eng.load_rows(len(states), lambda: state_rows(states, eng.P, eng.K), OVER)
    return eng._observe()


__all__ = ["load_states", "state_rows"]
