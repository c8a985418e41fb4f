"""Per-game table states into batched rows: `load_states` (the search's state bridge).

A search (``cardsuite.agents.search.batched``) grows its tree on per-game
[`scum_env.state.State`][scum_env.state.State] objects and evaluates the leaves in one
[`BatchedScum`][scum_env.batched.engine.BatchedScum] call: each leaf state is written
into one row of the engine's arrays (per role position, as the engine holds
them), exactly as if the engine had played that row to the same position;
``step`` then continues every row as ``scum_v0`` would (observations, masks
and rewards bit for bit; ``tests/agents/test_search_batched.py`` checks that
against the per-game env).

The engine's deal counters are not carried over: a row whose episode ends
under ``autoreset=True`` deals its next series from the engine's own streams,
so a search builds the engine with ``episode="series"`` and ``autoreset=False``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cardsuite.batched.backend import Array
from cardsuite.errors import UsageError
from scum_env.batched.engine import OVER, BatchedScum
from scum_env.state import State


def state_rows(states: Sequence[State], num_players: int, num_slots: int) -> dict[str, np.ndarray]:
    """The engine's state arrays (host numpy, by role position) of ``states``, one row each."""
    m, n, k = len(states), num_players, num_slots
    out: dict[str, np.ndarray] = {
        "hands": np.zeros((m, n, k), np.int8),
        "given": np.zeros((m, n, k), np.int8),
        "received": np.zeros((m, n, k), np.int8),
        "ncards": np.zeros((m, n), np.int16),
        "order": np.zeros((m, n), np.int64),
        "scores": np.zeros((m, n), np.int64),
        "finish": np.zeros((m, n), np.int8),
        "passed": np.zeros((m, n), bool),
        "acted": np.zeros((m, n), bool),
        "top_cards": np.zeros((m, k), np.int8),
        "played": np.zeros((m, k), np.int8),
        "nfin": np.zeros(m, np.int64),
        "passes": np.zeros(m, np.int64),
        "phase": np.full(m, OVER, np.int64),
        "actor": np.zeros(m, np.int64),
        "top_count": np.zeros(m, np.int64),
        "top_slot": np.full(m, -1, np.int64),
        "top_pos": np.full(m, -1, np.int64),
        "tstep": np.zeros(m, np.int64),
        "give_left": np.zeros(m, np.int64),
        "deals": np.zeros(m, np.int64),
        "series": np.zeros(m, np.int64),
        "game_over": np.zeros(m, bool),
        "winner_pos": np.full(m, -1, np.int64),
    }
    for i, s in enumerate(states):
        if s.hands.shape != (n, k):
            raise UsageError(
                f"load_states: state {i} has hands {s.hands.shape}, the engine {(n, k)}"
            )
        order = np.asarray(s.order, np.int64)
        pos = np.asarray(s.pos, np.int64)
        out["order"][i] = order
        out["hands"][i] = s.hands[order]
        out["given"][i] = s.given[order]
        out["received"][i] = s.received[order]
        out["ncards"][i] = np.asarray(s.ncards)[order]
        out["scores"][i] = np.asarray(s.scores)[order]
        for rank, player in enumerate(s.finish):
            out["finish"][i, pos[player]] = rank + 1
        out["nfin"][i] = len(s.finish)
        out["passed"][i] = np.asarray(s.passed, bool)[order]
        out["acted"][i] = np.asarray(s.acted, bool)[order]
        out["top_cards"][i] = s.top_cards
        out["played"][i] = s.played
        out["passes"][i] = s.passes
        out["phase"][i] = int(s.phase)
        out["actor"][i] = pos[s.to_act]
        out["top_count"][i] = s.top_count
        out["top_slot"][i] = s.top_slot if s.top_count else -1
        out["top_pos"][i] = pos[s.top_player] if s.top_count and s.top_player >= 0 else -1
        out["tstep"][i] = len(s.rules.trades) - len(s.pending)
        out["give_left"][i] = s.give_left
        out["deals"][i] = s.series + 1
        out["series"][i] = s.series + 1
        out["game_over"][i] = s.game_over
    return out


def load_states(eng: BatchedScum, states: Sequence[State]) -> tuple[Array, Array, Array]:
    """Write ``states`` into rows ``0 .. len(states) - 1`` of ``eng``; return ``(obs, mask, to_act)``.

    Rows past the states are set over (still, with an all-zero mask, under
    ``autoreset=False``). The returned buffers are the engine's, as after ``reset``.

    Raises:
        UsageError: more states than rows, or a state of another table size.
    """
    eng.load_rows(len(states), lambda: state_rows(states, eng.P, eng.K), OVER)
    return eng._observe()


__all__ = ["load_states", "state_rows"]
