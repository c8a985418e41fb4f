"""Helpers that let the Scum tests read like scripted hands.

``table(...)`` seats a game with preset roles and hands; ``play(state, p,
"7 7")`` asserts that player ``p`` is to act and plays those cards (the action
id is built from the card names, so a test never hard-codes ids); ``pass_`` and
``give`` likewise.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scum_env import engine as E
from scum_env.config import ScumConfig
from scum_env.rules import Rules, scum_rules


def rules_for(num_players: int = 4, **options: Any) -> Rules:
    """Compiled rules for a config."""
    return scum_rules(ScumConfig(num_players=num_players, **options))


def table(
    hands: list[str],
    *,
    roles: list[int] | None = None,
    trade: bool = False,
    scores: list[int] | None = None,
    seed: int = 0,
    **options: Any,
) -> E.State:
    """A game with preset hands (one space-separated string per player).

    Roles default to ``player_0`` President, ``player_1`` Vice President, ...
    """
    n = len(hands)
    rules = rules_for(n, **options)
    return E.new_game(
        rules,
        seed,
        roles=list(range(n)) if roles is None else roles,
        hands=[h.split() for h in hands],
        trade=trade,
        scores=scores,
    )


def action_of(state: E.State, cards: str) -> int:
    """The play action for space-separated card names (best card = highest slot)."""
    names = cards.split()
    slots = [state.rules.cards.slot(name) for name in names]
    return state.rules.play_action(len(slots), max(slots))


def play(state: E.State, player: int, cards: str) -> None:
    """Player ``player`` (who must be to act) plays ``cards``."""
    assert state.to_act == player, f"expected player_{player} to act, not player_{state.to_act}"
    E.apply(state, action_of(state, cards))


def pass_(state: E.State, player: int) -> None:
    """Player ``player`` (who must be to act) passes."""
    assert state.to_act == player, f"expected player_{player} to act, not player_{state.to_act}"
    E.apply(state, 0)


def give(state: E.State, player: int, card: str) -> None:
    """Player ``player`` (who must be to act) gives back one ``card`` (J5)."""
    assert state.to_act == player, f"expected player_{player} to act, not player_{state.to_act}"
    assert state.phase == E.TRADE
    E.apply(state, state.rules.give_action(state.rules.cards.slot(card)))


def hand(state: E.State, player: int) -> str:
    """A player's hand as card names, lowest first (``"2x7"`` for two 7s)."""
    return state.rules.cards.describe(state.hands[player])


def cards_of(state: E.State, names: str) -> np.ndarray:
    """Count vector of space-separated card names."""
    return state.rules.cards.counts(names.split())


def random_playout(state: E.State, rng: np.random.Generator, steps: int = 10_000) -> int:
    """Play random legal actions until the phase is OVER; return the steps taken."""
    for i in range(steps):
        if state.phase == E.OVER:
            return i
        E.apply(state, int(rng.choice(E.legal_actions(state))))
    raise AssertionError("game did not end")
