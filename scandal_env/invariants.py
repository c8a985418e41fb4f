"""What every Scandal state reached by the rules satisfies, checked for states from outside.

`check_state` is the gate for saved states (after the field types and ranges):
the fields agree with one another and with the rules, or a
[`StateError`][cardsuite.errors.StateError] names the field.
"""

from __future__ import annotations

import numpy as np

from cardsuite.errors import StateError
from scandal_env.masks import legal_mask
from scandal_env.state import END_MAX_TURNS, END_NONE, Phase, State, card_places


def _fail(name: str, msg: str) -> StateError:
    return StateError(f"state field {name!r}: {msg}")


def check_state(state: State) -> None:
    """Raise StateError (naming the field) unless ``state`` is consistent with the rules."""
    _check_cards(state)
    _check_table(state)
    _check_turn(state)
    _check_scores(state)
    if not state.done and not legal_mask(state).any():
        raise StateError("state leaves the player to act no legal action")


def _check_cards(state: State) -> None:
    """S1: each card in exactly one place; public cards are in their hand."""
    count = card_places(state)
    if not (count == 1).all():
        bad = [state.rules.deck.names[c] for c in np.flatnonzero(count != 1)[:5]]
        raise StateError(
            "state fields 'hands', 'build', 'placed_by', 'pile' and 'stock' must hold every "
            f"card exactly once (S1); cards not in exactly one place: {bad}"
        )
    if (state.known & ~state.hands).any():
        raise _fail("known", "marks a card as known in a hand that does not hold it")


def _check_table(state: State) -> None:
    """S5, S6: melds and lay-offs on the table; the meld under construction."""
    deck = state.rules.deck
    on_table = state.placed_by >= 0
    if (on_table != (state.placed_on >= 0)).any():
        raise _fail("placed_on", "must name a scandal exactly for the cards in 'placed_by'")
    cards = np.flatnonzero(on_table)
    scandals = state.placed_on[cards].astype(np.intp)
    if not deck.member[cards, scandals].all():
        raise _fail("placed_on", "puts a card on a scandal it does not belong to (S6)")
    if (state.meld_owner[scandals] < 0).any():
        raise _fail("placed_on", "puts a card on a scandal nobody melded (S6)")
    for s in range(deck.n_scandals):
        title, owner = int(deck.title_of[s]), int(state.meld_owner[s])
        if owner >= 0 and (state.placed_by[title] != owner or state.placed_on[title] != s):
            raise _fail("meld_owner", f"scandal {s} is melded but its title is not on it (S5)")
        if owner < 0 and on_table[title]:
            raise _fail("meld_owner", f"the title of scandal {s} lies on the table unmelded")
    s = state.build_scandal
    if (s >= 0) != (state.phase == Phase.BUILD):
        raise _fail("build_scandal", "a meld is under construction exactly in the build phase")
    if s < 0:
        if state.build.any():
            raise _fail("build", "holds cards while no meld is under construction")
        return
    if state.meld_owner[s] >= 0:
        raise _fail("build_scandal", f"scandal {s} is already melded (S5)")
    if not state.build[deck.title_of[s]]:
        raise _fail("build", "the meld under construction must hold its title (S5)")
    if not deck.member[state.build, s].all():
        raise _fail("build", "holds a card of another scandal")


def _check_turn(state: State) -> None:
    """S3, S4, S7, S8: the turn, its phase, duty and forbidden card, the end of the hand."""
    cfg, p = state.rules.config, state.num_players
    me = state.to_act
    if state.hand_over != state.done:
        raise _fail("hand_over", "a hand ends the episode or is followed by the next deal")
    if (state.hand_end == END_NONE) == state.hand_over:
        raise _fail("hand_end", "names why the hand ended exactly when it is over")
    if state.truncated and not state.done:
        raise _fail("truncated", "only an episode that is over is truncated")
    if not state.done and state.game_over:
        raise _fail("game_over", "the game is over only when the episode is")
    if state.hand_end == END_MAX_TURNS and state.turn < cfg.max_turns:
        raise _fail("turn", f"a hand cut at the turn limit played {cfg.max_turns} turns (S4)")
    if state.done:
        if state.phase != Phase.DRAW or state.duty >= 0 or state.forbidden >= 0:
            raise _fail("phase", "a finished hand is left in the draw phase with no duty")
        return
    if state.turn >= cfg.max_turns:
        raise _fail("turn", f"a hand in play has played fewer than max_turns={cfg.max_turns} turns")
    if me != (state.dealer + 1 + state.turn) % p:
        raise _fail("to_act", "play starts left of the dealer and passes on every turn (S2)")
    if min(state.hand_counts) < 1:
        raise _fail("hands", "every player in a hand in play holds a card (S8)")
    if state.phase == Phase.DRAW:
        if state.duty >= 0 or state.forbidden >= 0:
            raise _fail("phase", "a duty or forbidden card is cleared by the discard (S3, S7)")
        if not state.stock and not state.pile:
            raise _fail("stock", "a hand in play has something to draw (S4)")
        return
    if state.duty >= 0 and state.forbidden >= 0:
        raise _fail("duty", "one draw gives a duty (S3) or a forbidden card (S7), not both")
    if state.duty >= 0:
        d = state.duty
        if not (state.hands[me, d] or state.build[d]):
            raise _fail("duty", "the card to meld is in the hand or the meld being built (S3)")
    if state.forbidden >= 0:
        f = state.forbidden
        if not (state.hands[me, f] or state.build[f] or state.placed_by[f] == me):
            raise _fail(
                "forbidden", "the top discard drawn is held or laid down by the player (S7)"
            )


def _check_scores(state: State) -> None:
    """S9: no score beyond what the deck can give (keeps observations in their space)."""
    total = int(state.rules.deck.value.astype(np.int64).sum())
    hands = state.hand_number + 1
    for name, bound in (("scores", hands * total), ("hand_scores", total), ("step_scores", total)):
        if (np.abs(getattr(state, name)) > bound).any():
            raise _fail(name, f"a score beyond +-{bound} (the deck is worth {total} a hand, S9)")
    if state.done and state.game_over != bool(
        state.scores.max() >= state.rules.config.target_score
    ):
        raise _fail("game_over", "the game is over exactly when someone reached the target (S9)")
