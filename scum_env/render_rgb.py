"""The Scum table as a table model (for the web page) and as an RGB image (``rgb_array``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.rgb import cards_word, draw_table, expand
from scum_env.engine import OVER, PHASE_NAMES, TRADE, State
from scum_env.render import seat_notes

LEGEND = (
    "Cards, low to high: S = Scum (the lowest), 2 ... 12, P = President, "
    "W = Wild President (the highest); R/O/G/B in front = Red/Orange/Green/Blue (colour clash)"
)


def table_model(state: State, *, hands: bool = True) -> dict[str, Any]:
    """Everything on the table (every hand with ``hands``), as a JSON-able table model.

    Seats are listed ``player_0 ..`` with their role; the top play names its
    player, so the page, the picture and the move log use the same names.
    """
    rules = state.rules
    names = rules.cards.names
    over = state.phase == OVER
    seats: list[dict[str, Any]] = []
    for player in range(rules.num_players):
        position = state.pos[player]
        notes = seat_notes(state, player)
        seats.append(
            {
                "name": f"player_{player}",
                "role": rules.role_of(position),
                "position": position,
                "count": int(state.ncards[player]),
                "cards": expand(names, state.hands[player]) if hands else None,
                "score": f"score {int(state.scores[player])}",
                "notes": notes,
                "to_act": not over and player == state.to_act,
            }
        )
    seats.sort(key=lambda s: s["position"])
    piles = []
    if state.top_count:
        piles.append(
            {
                "title": f"Top play by player_{state.top_player}",
                "cards": [
                    {"text": t, "by": f"player_{state.top_player}"}
                    for t in expand(names, state.top_cards)
                ],
            }
        )
    lines = []
    if over:
        order = ", ".join(f"player_{p}" for p in state.finish)
        lines.append(f"Series over; finish order: {order}")
        if state.game_over:
            lines.append(f"Game over; winner player_{state.winner}")
    elif state.phase == TRADE:
        lines.append(f"Trade: player_{state.to_act} gives back {cards_word(state.give_left)}")
    elif not state.top_count:
        lines.append(f"player_{state.to_act} leads")
    title = f"Scum — series {state.series}, {PHASE_NAMES[state.phase]}"
    if not over:
        title += f", player_{state.to_act} to act"
    return {
        "game": "scum",
        "title": title,
        "seats": seats,
        "piles": piles,
        "lines": lines,
        "legend": LEGEND,
    }


def render_rgb(env: Any) -> np.ndarray:
    """``uint8[H, W, 3]`` picture of the env's table (every hand shown)."""
    return draw_table(table_model(env.unwrapped.game))
