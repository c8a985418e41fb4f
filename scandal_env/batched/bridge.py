"""Per-game states into batched rows: `load_states` (the search's state bridge).

A search (``cardsuite.agents.ismcts_batched``) grows its tree on per-game
[`scandal_env.state.State`][scandal_env.state.State] objects and evaluates the leaves in one
[`BatchedScandal`][scandal_env.batched.engine.BatchedScandal] call: each leaf state is
written into one row of the engine's arrays, exactly as if the engine had
played that row to the same position, after which ``step`` continues every
row as ``scandal_v0`` would (observations, masks and rewards bit for bit;
``tests/agents/test_search_batched.py`` checks that against the per-game env).

Only the state of the hand in play is carried over (the engine's deal
counters are not): rows that finish a hand with ``episode="game"`` deal the
next hand from the engine's own streams, so a search that loads states should
build the engine with ``episode="hand"`` and ``autoreset=False``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cardsuite.batched.backend import Array
from cardsuite.errors import UsageError
from scandal_env.batched.consts import END_NONE, OVER
from scandal_env.batched.engine import BatchedScandal
from scandal_env.state import State


def state_rows(states: Sequence[State], num_players: int, n: int, ns: int) -> dict[str, np.ndarray]:
    """The engine's state arrays (host numpy) of ``states``, one row each."""
    m = len(states)
    p = num_players
    out: dict[str, np.ndarray] = {
        "hands": np.zeros((m, p, n), bool),
        "known": np.zeros((m, p, n), bool),
        "counts": np.zeros((m, p), np.int64),
        "placed_by": np.full((m, n), -1, np.int8),
        "meld_owner": np.full((m, ns), -1, np.int8),
        "table_pts": np.zeros((m, p), np.int64),
        "build": np.zeros((m, n), bool),
        "build_scandal": np.full(m, -1, np.int64),
        "pile_arr": np.zeros((m, n), np.int64),
        "pile_pos": np.full((m, n), -1, np.int8),
        "pile_len": np.zeros(m, np.int64),
        "stock_arr": np.zeros((m, n), np.int64),
        "stock_len": np.zeros(m, np.int64),
        "stock_public": np.zeros(m, bool),
        "cur": np.zeros(m, np.int64),
        "phase": np.full(m, OVER, np.int64),
        "duty": np.full(m, -1, np.int64),
        "forbidden": np.full(m, -1, np.int64),
        "turn": np.zeros(m, np.int64),
        "dealer": np.zeros(m, np.int64),
        "hand_no": np.zeros(m, np.int64),
        "deals": np.zeros(m, np.int64),
        "scores": np.zeros((m, p), np.int64),
        "hand_end": np.full(m, END_NONE, np.int64),
        "game_over": np.zeros(m, bool),
    }
    for i, s in enumerate(states):
        if s.hands.shape != (p, n):
            raise UsageError(
                f"load_states: state {i} has hands {s.hands.shape}, the engine {(p, n)}"
            )
        value = s.rules.deck.value.astype(np.int64)
        out["hands"][i] = s.hands
        out["known"][i] = s.known
        out["counts"][i] = s.hand_counts
        out["placed_by"][i] = s.placed_by
        out["meld_owner"][i] = s.meld_owner
        for j in range(p):
            out["table_pts"][i, j] = int(value[s.placed_by == j].sum())
        out["build"][i] = s.build
        out["build_scandal"][i] = s.build_scandal
        k = len(s.pile)
        out["pile_arr"][i, :k] = s.pile
        out["pile_pos"][i, np.asarray(s.pile, np.int64)] = np.arange(k)
        out["pile_len"][i] = k
        k = len(s.stock)
        out["stock_arr"][i, :k] = s.stock
        out["stock_len"][i] = k
        out["stock_public"][i] = s.stock_public
        out["cur"][i] = s.to_act
        live = not (s.done or s.hand_over)
        out["phase"][i] = int(s.phase) if live else OVER
        out["duty"][i] = s.duty
        out["forbidden"][i] = s.forbidden
        out["turn"][i] = s.turn
        out["dealer"][i] = s.dealer
        out["hand_no"][i] = s.hand_number
        out["deals"][i] = s.hand_number + 1
        out["scores"][i] = s.scores
        out["game_over"][i] = s.game_over
    return out


def load_states(eng: BatchedScandal, states: Sequence[State]) -> tuple[Array, Array, Array]:
    """Write ``states`` into rows ``0 .. len(states) - 1`` of ``eng``; return ``(obs, mask, to_act)``.

    Rows past the states are set over (they do not move, and have an all-zero
    mask, when the engine has ``autoreset=False``). A state whose hand is
    over is loaded over too. The returned buffers are the engine's, as after
    ``reset``.

    Raises:
        UsageError: more states than rows, or a state of another player count or deck.
    """
    write_states(eng, states)
    return eng._observe()


def write_states(eng: BatchedScandal, states: Sequence[State]) -> None:
    """`load_states` without the observation and mask: only the state arrays are written.

    For a caller that reads the state arrays alone (the compiled rollouts,
    ``scandal_env.batched.rollout``); ``step`` needs the mask `load_states` writes.

    Raises:
        UsageError: more states than rows, or a state of another player count or deck.
    """
    m = len(states)
    if m > eng.num_games:
        raise UsageError(f"load_states: {m} states for an engine of {eng.num_games} games")
    rows = state_rows(states, eng.P, eng.t.n, eng.t.ns)
    xp = eng.xp
    for name, arr in rows.items():
        target: Any = getattr(eng, name)
        target[:m] = xp.asarray(arr, target.dtype)
        if name == "phase":
            target[m:] = OVER
    eng.done[:] = False
    eng.truncated[:] = False
    eng.rewards[:] = 0.0
    eng._ready = True


__all__ = ["load_states", "state_rows", "write_states"]
