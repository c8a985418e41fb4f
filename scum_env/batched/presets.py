"""Checks of a batched Scum game's preset reset options: roles, scores and hands.

Every preset is checked before any game changes (a refused
[`reset`][scum_env.batched.engine.BatchedScum.reset] changes nothing); a bad
one is a `PresetError` naming the option.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from cardsuite.batched.checks import preset_array
from cardsuite.errors import PresetError

if TYPE_CHECKING:
    from scum_env.batched.engine import BatchedScum


def check_roles(eng: BatchedScum, roles: Any) -> np.ndarray:
    arr = preset_array("roles", roles)
    n = eng.P
    if arr.shape != (eng.num_games, n) or not np.issubdtype(arr.dtype, np.integer):
        raise PresetError(f"preset roles must be integer player ids of shape [N, P] = "
                          f"[{eng.num_games}, {n}], got shape {arr.shape}")  # fmt: skip
    if not np.array_equal(np.sort(arr, axis=1), np.broadcast_to(np.arange(n), arr.shape)):
        raise PresetError(f"each row of preset roles must list the {n} players once")
    return arr


def check_scores(eng: BatchedScum, scores: Any) -> np.ndarray:
    arr = preset_array("scores", scores)
    shape = (eng.num_games, eng.P)
    if arr.shape != shape or not np.issubdtype(arr.dtype, np.integer):
        raise PresetError(f"preset scores must be integers of shape {list(shape)}")
    if arr.min() < 0 or arr.max() >= eng.rules.target:
        raise PresetError(f"preset scores must be from 0 to {eng.rules.target - 1}")
    return arr


def check_hands(eng: BatchedScum, hands: Any) -> np.ndarray:
    arr = preset_array("hands", hands)
    shape = (eng.num_games, eng.P, eng.K)
    if arr.shape != shape or not np.issubdtype(arr.dtype, np.integer):
        raise PresetError(f"preset hands must be card counts of shape [N, P, K] = {list(shape)}")
    if arr.min() < 0 or np.any(arr.sum(axis=1) > eng.rules.deck[None, :]):
        raise PresetError("preset hands hold more cards of some slot than the pack")
    if np.any(arr.sum(axis=2) == 0):
        raise PresetError("every preset hand must hold at least one card")
    return arr


def check_trades_leave_cards(
    eng: BatchedScum, preset: np.ndarray, order: np.ndarray, trade: np.ndarray
) -> None:
    """PresetError if the trades would leave the President without cards (J5).

    From five players the President receives the Scum's two highest and
    gives two back; with one card of its own and a one-card Scum it would
    lead with an empty hand. Every other seat keeps at least one card.
    """
    if eng.P < 5:
        return
    rows = np.arange(eng.num_games)
    president = preset[rows, order[:, 0]].sum(axis=1)
    scum = preset[rows, order[:, -1]].sum(axis=1)
    bad = np.flatnonzero(trade & (president == 1) & (scum == 1))
    if bad.size:
        raise PresetError(
            f"game {int(bad[0])}: preset hands leave the President with no cards once "
            "the trades are done (J5); give the President or the Scum a second card"
        )
