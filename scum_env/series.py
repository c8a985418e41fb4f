"""The series of a climbing-game table: seating, the deal, the trades and the scoring.

The forced events of [`scum_env.engine`][scum_env.engine] (J3–J5, J8; P3–P5
at a Scum Party table): a series seats the players in role order, deals and
runs the forced trades, and ends, when one player still holds cards, with the
J8 points and the next series or the end of the episode.
"""

from __future__ import annotations

import numpy as np

from cardsuite.errors import PresetError, StateError
from scum_env.presets import card_lists
from scum_env.state import OVER, PLAY, TRADE, State, new_stamp


def start_series(
    state: State,
    order: list[int],
    *,
    hands: list[list[str]] | None = None,
    trade: bool = True,
) -> None:
    """Seat players in ``order``, deal (J4/P4) and do the trades (J5/P5)."""
    rules = state.rules
    n = rules.num_players
    state.order = list(order)
    for position, player in enumerate(state.order):
        state.pos[player] = position
    if hands is None:
        _deal(state)
    else:
        _preset_hands(state, hands)
    state.ncards = [int(v) for v in state.hands.sum(axis=1)]
    state.series += 1
    state.stamp = new_stamp()
    state.finish = []
    for counts in (state.played, state.played_by, state.given, state.received):
        counts[:] = 0
    state.trade_log = []
    state.give_left = 0
    state.last_points = np.zeros(n, dtype=np.int64)
    clear_round(state)
    state.pending = list(rules.trades) if trade else []
    run_trades(state)


def continue_game(state: State) -> None:
    """Start the next series of a game whose last series ended (J3, J5)."""
    if state.phase != OVER or state.game_over or len(state.finish) != state.num_players:
        raise StateError("continue_game needs a finished series of a game that is not over")
    start_series(state, state.finish, trade=True)


def _deal(state: State) -> None:
    """Deal every card one at a time from the top seat (J4) or the bottom (P4)."""
    rules = state.rules
    n = rules.num_players
    deck = state.rng.permutation(rules.slot_list)
    state.hands[:] = 0
    seats = state.order[::-1] if rules.deal_from_bottom else state.order
    for i, player in enumerate(seats):
        state.hands[player] = np.bincount(deck[i::n], minlength=rules.num_slots)


def _preset_hands(state: State, hands: list[list[str]]) -> None:
    rules = state.rules
    hands = card_lists("hands", hands, rules.num_players)
    for player, cards in enumerate(hands):
        state.hands[player] = rules.cards.counts(list(cards))
    total = state.hands.sum(axis=0)
    over = np.flatnonzero(total > rules.deck)
    if over.size:
        s = int(over[0])
        raise PresetError(
            f"preset hands hold {int(total[s])} x {rules.cards.names[s]}, "
            f"but the {rules.num_decks}-deck pack has only {int(rules.deck[s])}"
        )


def run_trades(state: State) -> None:
    """Do forced trade steps until a give-back decision is due (J5, P5)."""
    rules = state.rules
    while state.pending:
        step = state.pending[0]
        giver = state.order[step.giver]
        receiver = state.order[step.receiver]
        if step.kind == "choice":
            if state.give_left == 0:
                state.give_left = min(step.count, state.ncards[giver])
            if state.give_left > 0:
                state.phase = TRADE
                state.to_act = giver
                return
            state.pending.pop(0)
            continue
        hand = state.hands[giver]
        slots = (
            range(rules.num_slots - 1, -1, -1) if step.kind == "high" else range(rules.num_slots)
        )
        left = step.count
        for s in slots:
            while left and hand[s] > 0:
                transfer(state, giver, receiver, s, forced=True)
                left -= 1
            if not left:
                break
        state.pending.pop(0)
    state.phase = PLAY
    # Preset hands only (a dealt hand always holds more cards than the trades take):
    # a seat the trades left without cards is out before the first play.
    for player in state.order:
        if state.ncards[player] == 0 and player not in state.finish:
            state.finish.append(player)
    if len(state.finish) >= state.num_players - 1:
        end_series(state)
        return
    # the President (King) leads the first round (J6, P6); the next holder if it is out
    state.to_act = next(p for p in state.order if state.ncards[p] > 0)


def transfer(state: State, giver: int, receiver: int, slot: int, *, forced: bool) -> None:
    """One card of ``slot`` from ``giver`` to ``receiver`` (a forced trade or a give-back)."""
    state.hands[giver, slot] -= 1
    state.hands[receiver, slot] += 1
    state.ncards[giver] -= 1
    state.ncards[receiver] += 1
    state.given[giver, slot] += 1
    state.received[receiver, slot] += 1
    state.trade_log.append((giver, receiver, slot, forced))


def clear_round(state: State) -> None:
    """Clear the round: no top play, nobody has passed or acted."""
    state.top_count = 0
    state.top_slot = -1
    state.top_player = -1
    state.top_cards[:] = 0
    state.passed[:] = False
    state.acted[:] = False
    state.passes = 0


def end_series(state: State) -> None:
    """One player holds cards: score the series (J8) and start the next or stop."""
    rules = state.rules
    n = rules.num_players
    last = next(q for q in range(n) if state.ncards[q] > 0)
    state.finish.append(last)
    points = np.zeros(n, dtype=np.int64)
    for k, player in enumerate(state.finish):
        points[player] = n - k  # the k-th out (1-based) scores n + 1 - k
    state.last_points = points
    state.scores += points
    state.stamp = new_stamp()  # scores changed: observers' cached series block is stale
    clear_round(state)
    if int(state.scores.max()) >= rules.target:
        state.game_over = True
        best = int(state.scores.max())
        # ties broken by this series' finish order (J8)
        state.winner = next(p for p in state.finish if state.scores[p] == best)
    if rules.episode == "series" or state.game_over:
        state.phase = OVER
        return
    start_series(state, state.finish, trade=True)
