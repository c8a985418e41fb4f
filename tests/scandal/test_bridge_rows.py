"""``bridge.state_rows`` against its previous, row-by-row form (the search's leaf loading).

Every wave of a batched search writes its leaf states into engine rows
through `state_rows`. Its stacked form must give the same arrays, dtypes
included, as the row-by-row form it replaced (kept here verbatim), on
positions of real 2- to 4-player play, hands that are over among them, and
on no state at all; a state of another size is refused, naming it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from cardsuite.errors import UsageError
from scandal_env.batched.bridge import state_rows
from scandal_env.batched.consts import END_NONE, OVER
from scandal_env.state import State
from tests.scandal.real_play import random_positions


def previous_rows(
    states: Sequence[State], num_players: int, n: int, ns: int
) -> dict[str, np.ndarray]:
    """``state_rows`` before its stacked form (verbatim; the truth)."""
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


def positions(num_players: int, seed: int) -> list[State]:
    """States of random play over two hands (the last one over), every fourth move."""
    return random_positions(num_players, seed, moves=500, every=4, max_turns=60, keep_last=True)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_same_rows_as_before(num_players: int) -> None:
    states = positions(num_players, seed=num_players)
    n, ns = states[0].rules.deck.n_cards, states[0].rules.deck.n_scandals
    assert states[-1].done, "a finished state is loaded too"
    for chunk in (states, states[:1], states[5:17], []):
        got = state_rows(chunk, num_players, n, ns)
        want = previous_rows(chunk, num_players, n, ns)
        assert got.keys() == want.keys()
        for name, arr in want.items():
            assert got[name].dtype == arr.dtype, name
            assert np.array_equal(got[name], arr), name
    rows = state_rows(states, num_players, n, ns)
    assert (rows["phase"] == OVER).any() and (rows["table_pts"] > 0).any()


def test_a_state_of_another_size_is_named() -> None:
    two, three = positions(2, seed=1)[:2], positions(3, seed=1)[:1]
    n, ns = two[0].rules.deck.n_cards, two[0].rules.deck.n_scandals
    with pytest.raises(UsageError, match="state 2 has hands"):
        state_rows([*two, *three], 2, n, ns)
