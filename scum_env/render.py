"""Text view of a Scum table."""

from __future__ import annotations

from cardsuite.rgb import cards_word
from scum_env.state import OVER, PHASE_NAMES, TRADE, State


def seat_notes(state: State, player: int) -> list[str]:
    """What a seat shows beside its cards: ``out #k`` once out, ``passed`` this round."""
    notes = [f"out #{state.finish.index(player) + 1}"] if player in state.finish else []
    return [*notes, "passed"] if state.passed[player] else notes


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
