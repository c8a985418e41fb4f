"""Per-game states into batched rows: `load_states` (the search's state bridge).

A search grows its tree on per-game [`scandal_env.state.State`][scandal_env.state.State]
objects and evaluates the leaves in one [`BatchedScandal`][scandal_env.batched.engine.BatchedScandal]
call: each leaf is written into one row, after which ``step`` continues every
row as ``scandal_v0`` would. Only the hand in play is carried over (not the
deal counters), so a search builds the engine with ``episode="hand"`` and
``autoreset=False``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from cardsuite.batched.backend import Array
from cardsuite.errors import UsageError
from scandal_env.batched.consts import END_NONE, OVER
from scandal_env.batched.engine import BatchedScandal
from scandal_env.state import State


def state_rows(states: Sequence[State], num_players: int, n: int, ns: int) -> dict[str, np.ndarray]:
    """The engine's state arrays (host numpy) of ``states``, one row each.

    Raises:
        UsageError: a state of another player count or deck size.
    """
    m = len(states)
    p = num_players
    for i, s in enumerate(states):
        if s.hands.shape != (p, n):
            raise UsageError(
                f"load_states: state {i} has hands {s.hands.shape}, the engine {(p, n)}"
            )
    # the piles and stocks, bottom first: every row's cards at once
    pile_len, rows, cols, cards = _ragged([s.pile for s in states])
    pile_arr = np.zeros((m, n), np.int64)
    pile_arr[rows, cols] = cards
    pile_pos = np.full((m, n), -1, np.int8)
    pile_pos[rows, cards] = cols
    stock_len, rows, cols, cards = _ragged([s.stock for s in states])
    stock_arr = np.zeros((m, n), np.int64)
    stock_arr[rows, cols] = cards
    placed_by = np.array([s.placed_by for s in states], np.int8).reshape(m, n)
    # each player's table points (S9): the values of the cards they placed
    table_pts = np.zeros((m, p), np.int64)
    decks = {id(s.rules.deck): s.rules.deck for s in states}
    for deck in decks.values():
        rows = np.array([i for i, s in enumerate(states) if s.rules.deck is deck])
        value = deck.value.astype(np.int64)
        mine = placed_by[rows, None, :] == np.arange(p, dtype=np.int8)[None, :, None]
        table_pts[rows] = (mine * value[None, None, :]).sum(axis=2)
    live = [not (s.done or s.hand_over) for s in states]
    hand_numbers = np.array([s.hand_number for s in states], np.int64)
    return {
        "hands": np.array([s.hands for s in states], bool).reshape(m, p, n),
        "known": np.array([s.known for s in states], bool).reshape(m, p, n),
        "counts": np.array([s.hand_counts for s in states], np.int64).reshape(m, p),
        "placed_by": placed_by,
        "meld_owner": np.array([s.meld_owner for s in states], np.int8).reshape(m, ns),
        "table_pts": table_pts,
        "build": np.array([s.build for s in states], bool).reshape(m, n),
        "build_scandal": np.array([s.build_scandal for s in states], np.int64),
        "pile_arr": pile_arr,
        "pile_pos": pile_pos,
        "pile_len": pile_len,
        "stock_arr": stock_arr,
        "stock_len": stock_len,
        "stock_public": np.array([s.stock_public for s in states], bool),
        "cur": np.array([s.to_act for s in states], np.int64),
        "phase": np.array(
            [int(s.phase) if ok else OVER for s, ok in zip(states, live, strict=True)], np.int64
        ),
        "duty": np.array([s.duty for s in states], np.int64),
        "forbidden": np.array([s.forbidden for s in states], np.int64),
        "turn": np.array([s.turn for s in states], np.int64),
        "dealer": np.array([s.dealer for s in states], np.int64),
        "hand_no": hand_numbers,
        "deals": hand_numbers + 1,
        "scores": np.array([s.scores for s in states], np.int64).reshape(m, p),
        "hand_end": np.full(m, END_NONE, np.int64),
        "game_over": np.array([s.game_over for s in states], bool),
    }


def _ragged(lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Lists of cards as ``(lengths, rows, columns, cards)``: card ``k`` of list ``i`` at
    ``(i, k)``."""
    lengths = np.array([len(x) for x in lists], np.int64)
    cards = np.fromiter(itertools.chain.from_iterable(lists), np.int64, int(lengths.sum()))
    rows = np.repeat(np.arange(len(lists)), lengths)
    starts = np.cumsum(lengths) - lengths
    cols = np.arange(cards.size) - np.repeat(starts, lengths)
    return lengths, rows, cols, cards


def load_states(eng: BatchedScandal, states: Sequence[State]) -> tuple[Array, Array, Array]:
    """Write ``states`` into rows ``0 .. len(states) - 1`` of ``eng``; return ``(obs, mask, to_act)``.

    Rows past the states, and states whose hand is over, are set over.

    Raises:
        UsageError: more states than rows, or a state of another player count or deck.
    """
    write_states(eng, states)
    return eng._observe()


def write_states(eng: BatchedScandal, states: Sequence[State]) -> None:
    """`load_states` without the observation and mask, for a caller that reads the state
    arrays alone (the compiled rollouts; ``step`` needs the mask `load_states` writes).

    Raises:
        UsageError: more states than rows, or a state of another player count or deck.
    """
    eng.load_rows(len(states), lambda: state_rows(states, eng.P, eng.t.n, eng.t.ns), OVER)
    eng._mask = eng.mask


__all__ = ["load_states", "state_rows", "write_states"]
