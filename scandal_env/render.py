"""Scandal as text, as a table model (hands, discard pile, melds by scandal, scores) and as
an RGB image."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.rgb import cards_word, draw_table
from scandal_env.deck import Deck
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
    melded = np.flatnonzero(state.meld_owner >= 0)
    for s in melded:
        cards = [
            f"{deck.names[c]} [P{state.placed_by[c]}]" for c in np.flatnonzero(state.placed_on == s)
        ]
        lines.append(f"    {deck.scandal_names[s]} (P{state.meld_owner[s]}): {', '.join(cards)}")
    if not melded.size:
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


LEGEND = (
    "A card belongs to the scandals listed with it; a gold card to several; the value is "
    "what the card scores laid down (S9); [player_k] = who laid it; depth 1 = top of the pile"
)


def card_info(deck: Deck) -> dict[str, str]:
    """Public facts of every card by name: colour or gold, value, its scandals."""
    info = {}
    for c in range(deck.n_cards):
        kind = "gold" if deck.is_gold[c] else str(deck.colours[c])
        scandals = ", ".join(deck.scandal_names[s] for s in np.flatnonzero(deck.member[c]))
        info[deck.names[c]] = f"{kind} {int(deck.value[c])}; {scandals}"
    return info


def pile_cards(deck: Deck, pile: list[int]) -> list[dict[str, Any]]:
    """The discard pile, top first, each card with its depth (1 = top; deep draws, S3)."""
    return [{"text": deck.names[c], "depth": i + 1} for i, c in enumerate(reversed(pile))]


def meld_piles(deck: Deck, state: State) -> list[dict[str, Any]]:
    """One pile per melded scandal: its owner and every card on it with who laid it."""
    return [
        {
            "title": f"Meld {deck.scandal_names[s]} (player_{state.meld_owner[s]})",
            "kind": "meld",
            "cards": [
                {"text": deck.names[c], "by": f"player_{state.placed_by[c]}"}
                for c in np.flatnonzero(state.placed_on == s)
            ],
        }
        for s in np.flatnonzero(state.meld_owner >= 0)
    ]


def table_model(state: State, *, hands: bool = True) -> dict[str, Any]:
    """Everything on the table (every hand with ``hands``), as a JSON-able table model."""
    deck = state.rules.deck
    seats = []
    for p in range(state.num_players):
        held = [int(c) for c in np.flatnonzero(state.hands[p])]
        public = [deck.names[c] for c in held if state.known[p, c]]
        seats.append(
            {
                "name": f"player_{p}",
                "role": "dealer" if p == state.dealer else None,
                "count": len(held),
                "cards": [deck.names[c] for c in held] if hands else None,
                "public": public,
                "score": f"score {int(state.scores[p])}, this hand {int(state.hand_scores[p])}",
                "notes": [],
                "to_act": not state.done and p == state.to_act,
            }
        )
    piles = [
        {
            "title": f"Discard pile ({len(state.pile)}), top first",
            "kind": "pile",
            "cards": pile_cards(deck, state.pile),
        },
        *meld_piles(deck, state),
    ]
    if state.build_scandal >= 0:
        piles.append(
            {
                "title": f"Meld under way: {deck.scandal_names[state.build_scandal]} "
                f"(player_{state.to_act})",
                "kind": "building",
                "cards": [{"text": deck.names[c]} for c in np.flatnonzero(state.build)],
            }
        )
    lines = [
        f"Stock: {cards_word(len(state.stock))}" + (" (turned over)" if state.stock_public else "")
    ]
    if state.duty >= 0:
        lines.append(f"player_{state.to_act} must meld or lay off {deck.names[state.duty]} (S3)")
    if state.forbidden >= 0:
        lines.append(f"player_{state.to_act} may not discard {deck.names[state.forbidden]} (S7)")
    if state.hand_over:
        lines.append(f"Hand over ({state.hand_end})")
    title = f"Scandal — hand {state.hand_number + 1}, turn {state.turn + 1}"
    if not state.done:
        title += f", player_{state.to_act} to {PHASE_NAMES[state.phase]}"
    return {
        "game": "scandal",
        "compact": True,  # long card names: the picture draws smaller chips
        "title": title,
        "seats": seats,
        "piles": piles,
        "lines": lines,
        "legend": LEGEND,
        "card_info": card_info(deck),
    }


def render_rgb(env: Any) -> np.ndarray:
    """``uint8[H, W, 3]`` picture of the table (every hand shown)."""
    return draw_table(table_model(env.unwrapped.game))
