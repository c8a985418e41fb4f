"""Legal moves of a Scum table: the action mask and why an action is illegal (J5, J6, J9).

Pure functions of a [`scum_env.state.State`][scum_env.state.State]; the engine
([`scum_env.engine`][scum_env.engine]) re-exports them and applies the moves.
"""

from __future__ import annotations

import numpy as np

from scum_env.rules import ActionKind
from scum_env.state import OVER, TRADE, State


def available(state: State, player: int) -> np.ndarray:
    """Per slot, the most cards a play whose best card is that slot can hold."""
    hand: np.ndarray = state.hands[player]
    if not state.rules.colour_mode:
        return hand
    k = state.rules.num_slots
    out = np.zeros(k, dtype=np.int16)
    coloured = hand[: k - 1].reshape(-1, 4)
    out[: k - 1] = np.where(coloured > 0, coloured.cumsum(axis=1), 0).ravel()
    out[k - 1] = hand[k - 1]
    return out


def legal_mask(state: State) -> np.ndarray:
    """The int8 mask over the action table for ``state.to_act`` (J5, J6)."""
    rules = state.rules
    k = rules.num_slots
    mask = np.zeros(rules.num_actions, dtype=np.int8)
    if state.phase == OVER:
        return mask
    hand = state.hands[state.to_act]
    if state.phase == TRADE:
        mask[rules.give_base : rules.give_base + k] = hand > 0
        return mask
    avail = available(state, state.to_act)
    if state.top_count == 0:
        plays = mask[1 : rules.give_base].reshape(rules.max_count, k)
        np.greater_equal(avail, rules.count_col, out=plays, casting="unsafe")
        return mask
    mask[0] = 1
    c, t = state.top_count, state.top_slot
    base = 1 + (c - 1) * k
    mask[base + t + 1 : base + k] = avail[t + 1 :] >= c
    if c > 1:
        special = rules.special_slots
        beats = special[special > t]
        mask[1 + beats] = avail[beats] >= 1
    return mask


def legal_actions(state: State) -> list[int]:
    """Legal action ids in increasing order."""
    return [int(a) for a in np.flatnonzero(legal_mask(state))]


def why_illegal(state: State, action: int) -> str | None:
    """Why ``action`` is illegal now, in words; ``None`` if it is legal."""
    rules = state.rules
    if not 0 <= action < rules.num_actions:
        return f"action ids run from 0 to {rules.num_actions - 1}"
    if legal_mask(state)[action]:
        return None
    what = rules.describe_action(action)
    kind, c, s = rules.decode(action)
    if state.phase == OVER:
        return "the game is over"
    if state.phase == TRADE:
        if kind != ActionKind.GIVE:
            return f"{what}: a give-back card must be chosen now (J5)"
        return f"{what}: that card is not in hand"
    if kind == ActionKind.GIVE:
        return f"{what}: cards are given back only during the trades (J5)"
    if kind == ActionKind.PASS:
        return "the leader must play a set; passing is not allowed when leading (J6)"
    if available(state, state.to_act)[s] < c:
        return f"{what}: not enough such cards in hand"
    top = rules.describe_action(rules.play_action(state.top_count, state.top_slot))[5:]
    if c != state.top_count and not (c == 1 and rules.cards.special[s]):
        return f"{what}: must play {state.top_count} cards to follow {top} (J6)"
    return f"{what}: does not beat {top} (J6)"
