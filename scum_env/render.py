"""The Scum table as text, as a table model (for the web page) and as an RGB image
(``rgb_array``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cardsuite.rgb import cards_word, draw_table, expand
from scum_env.state import OVER, PHASE_NAMES, TRADE, State


def seat_notes(state: State, player: int) -> list[str]:
    """What a seat shows beside its cards: ``out #k`` once out, ``passed`` this round."""
    notes = [f"out #{state.finish.index(player) + 1}"] if player in state.finish else []
    return [*notes, "passed"] if state.passed[player] else notes


def seat_models(
    state: State, names: Sequence[str], label: str, totals: Any, live: bool, hands: bool
) -> list[dict[str, Any]]:
    """The seats of a table model in role order: table index ``q`` as ``names[q]`` with
    ``label totals[q]`` as its score; ``live``: the table is to act."""
    return [
        {
            "name": names[q],
            "role": state.rules.role_of(position),
            "position": position,
            "count": int(state.ncards[q]),
            "cards": expand(state.rules.cards.names, state.hands[q]) if hands else None,
            "score": f"{label} {int(totals[q])}",
            "notes": seat_notes(state, q),
            "to_act": live and q == state.to_act,
        }
        for position, q in enumerate(state.order)
    ]


def render_table(state: State, *, show_hands: bool = True) -> str:
    """The table as text: seats in turn order, cards, the top play, scores."""
    rules = state.rules
    cards = rules.cards
    lines = [
        f"Scum — series {state.series}, phase {PHASE_NAMES[state.phase]}"
        + ("" if state.phase == OVER else f", player_{state.to_act} to act")
    ]
    for position, player in enumerate(state.order):
        marks = seat_notes(state, player)
        if state.phase != OVER and player == state.to_act:
            marks.append("<- to act")
        hand = cards.describe(state.hands[player]) if show_hands else ""
        lines.append(
            f"  {rules.role_of(position):<15} player_{player:<3} {cards_word(state.ncards[player]):>9}  "
            f"score {int(state.scores[player]):>3}  {hand}  {' '.join(marks)}".rstrip()
        )
    if state.top_count:
        lines.append(f"  top play: {cards.describe(state.top_cards)} by player_{state.top_player}")
    elif state.phase != OVER and state.phase != TRADE:
        lines.append(f"  player_{state.to_act} leads")
    if state.phase == TRADE:
        lines.append(f"  trade: player_{state.to_act} gives back {state.give_left} more card(s)")
    if state.phase == OVER:
        order = ", ".join(f"player_{p}" for p in state.finish)
        lines.append(f"  series over; finish order: {order}")
        if state.game_over:
            lines.append(f"  game over; winner player_{state.winner}")
    return "\n".join(lines)


LEGEND = (
    "Cards, low to high: S = Scum (the lowest), 2 ... 12, P = President, "
    "W = Wild President (the highest); R/O/G/B in front = Red/Orange/Green/Blue (colour clash)"
)


def table_model(state: State, *, hands: bool = True) -> dict[str, Any]:
    """Everything on the table (every hand with ``hands``), as a JSON-able table model.

    Seats are listed ``player_0 ..`` with their role; the top play names its
    player, so the page, the picture and the move log use the same names.
    """
    names = state.rules.cards.names
    over = state.phase == OVER
    players = [f"player_{p}" for p in range(state.num_players)]
    seats = seat_models(state, players, "score", state.scores, not over, hands)
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
