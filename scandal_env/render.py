"""A text view of a Scandal state."""

from __future__ import annotations

import numpy as np

from cardsuite.rgb import cards_word
from scandal_env.engine import PHASE_NAMES, State


def render(state: State) -> str:
    """Hands, melds, discard pile, stock size and scores, as plain text."""
    deck = state.rules.deck
    lines = [
        f"Scandal - hand {state.hand_number + 1}, turn {state.turn + 1}, dealer P{state.dealer}, "
        f"P{state.to_act} to act ({PHASE_NAMES[state.phase]})"
    ]
    for p in range(state.num_players):
        cards = [
            deck.names[c] + ("*" if state.known[p, c] else "")
            for c in np.flatnonzero(state.hands[p])
        ]
        lines.append(
            f"  P{p} score {int(state.scores[p]):>5}  hand ({len(cards)}): {', '.join(cards)}"
        )
    lines.append("  melds:")
    any_meld = False
    for s in range(deck.n_scandals):
        if state.meld_owner[s] < 0:
            continue
        any_meld = True
        cards = [
            f"{deck.names[c]} [P{state.placed_by[c]}]" for c in np.flatnonzero(state.placed_on == s)
        ]
        lines.append(f"    {deck.scandal_names[s]} (P{state.meld_owner[s]}): {', '.join(cards)}")
    if not any_meld:
        lines.append("    (none)")
    if state.build_scandal >= 0:
        cards = [deck.names[c] for c in np.flatnonzero(state.build)]
        lines.append(f"  building {deck.scandal_names[state.build_scandal]}: {', '.join(cards)}")
    top = deck.names[state.pile[-1]] if state.pile else "(empty)"
    lines.append(
        f"  discard top: {top} ({cards_word(len(state.pile))})   "
        f"stock: {cards_word(len(state.stock))}"
    )
    if state.duty >= 0:
        lines.append(f"  must meld first (S3): {deck.names[state.duty]}")
    if state.forbidden >= 0:
        lines.append(f"  may not discard (S7): {deck.names[state.forbidden]}")
    if state.hand_over:
        lines.append(f"  hand over ({state.hand_end}); hand scores {state.hand_scores.tolist()}")
    lines.append("  (* = public card, taken from the discard pile)")
    return "\n".join(lines)
