"""J5: trades from the second series on (english, spanish, four players)."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.errors import IllegalActionError
from scum_env import engine as E
from tests.scum.scripted import give, hand, play, random_playout, rules_for, table

# Five players seated p0 President, p1 Vice President, p2 Middle Class,
# p3 Next to Scum, p4 Scum.
FIVE = ["2 4 5 6", "3 7 7 10", "8 8 9", "S 3 11 12", "S 2 9 P W"]


def test_j5_scum_forces_its_two_highest_to_the_president_even_wild_presidents() -> None:
    state = table(FIVE, trade=True)
    # then the Scum's Wild President and President went to the President at once
    assert hand(state, 4) == "S 2 9"
    assert hand(state, 0) == "2 4 5 6 P W"
    assert state.trade_log == [(4, 0, 13, True), (4, 0, 12, True)]
    # and the President now chooses two cards to give back, one decision each
    assert state.phase == E.TRADE and state.to_act == 0 and state.give_left == 2
    # and Next to Scum has not traded yet
    assert hand(state, 3) == "S 3 11 12"


def test_j5_president_gives_back_two_of_its_choice_then_vice_president_trades() -> None:
    state = table(FIVE, trade=True)
    # the President may give back a card it just received
    give(state, 0, "W")
    assert state.phase == E.TRADE and state.to_act == 0 and state.give_left == 1
    assert hand(state, 3) == "S 3 11 12"  # still no Vice President trade
    give(state, 0, "2")
    assert hand(state, 0) == "4 5 6 P"
    assert hand(state, 4) == "S 2x2 9 W"
    # only then Next to Scum's highest (a 12) goes to the Vice President
    assert hand(state, 3) == "S 3 11"
    assert hand(state, 1) == "3 2x7 10 12"
    assert state.phase == E.TRADE and state.to_act == 1 and state.give_left == 1
    give(state, 1, "3")
    assert hand(state, 3) == "S 2x3 11"
    assert hand(state, 2) == "2x8 9"  # Middle Class never trades
    # then the President leads the first round
    assert state.phase == E.PLAY and state.leading and state.to_act == 0
    assert [(g, r, forced) for g, r, _s, forced in state.trade_log] == [
        (4, 0, True), (4, 0, True), (0, 4, False), (0, 4, False), (3, 1, True), (1, 3, False)
    ]  # fmt: skip
    np.testing.assert_array_equal(state.given[0], state.received[4])


def test_j5_during_a_give_back_only_cards_in_hand_may_be_given() -> None:
    state = table(FIVE, trade=True)
    legal = E.legal_actions(state)
    rules = state.rules
    assert legal == [rules.give_action(rules.cards.slot(c)) for c in ("2", "4", "5", "6", "P", "W")]
    with pytest.raises(IllegalActionError, match=r"give back 12: that card is not in hand"):
        E.apply(state, rules.give_action(rules.cards.slot("12")))
    with pytest.raises(IllegalActionError, match="give-back card must be chosen now"):
        E.apply(state, 0)
    with pytest.raises(IllegalActionError, match="give-back card must be chosen now"):
        E.apply(state, rules.play_action(1, rules.cards.slot("2")))


def test_j5_four_players_one_card_each_way_between_president_and_scum_only() -> None:
    state = table(["2 5 6", "3 9 10", "4 8 12", "S 7 11"], trade=True)
    assert hand(state, 3) == "S 7"
    assert hand(state, 0) == "2 5 6 11"
    assert state.to_act == 0 and state.give_left == 1
    give(state, 0, "2")
    assert hand(state, 3) == "S 2 7"
    # no Vice President / Next to Scum trade with four players
    assert hand(state, 1) == "3 9 10" and hand(state, 2) == "4 8 12"
    assert state.phase == E.PLAY and state.to_act == 0
    assert len(state.trade_log) == 2


def test_j5_spanish_scum_trades_with_the_vice_president_after_the_presidents_cards() -> None:
    state = table(FIVE, trade=True, trade_rules="spanish")
    give(state, 0, "6")
    give(state, 0, "W")
    # the Scum now holds S 2 6 9 W: its highest, the President's Wild, goes on to the VP
    assert hand(state, 4) == "S 2 6 9"
    assert hand(state, 1) == "3 2x7 10 W"
    assert hand(state, 3) == "S 3 11 12"  # Next to Scum does not trade
    assert state.to_act == 1 and state.phase == E.TRADE
    give(state, 1, "3")
    assert hand(state, 4) == "S 2 3 6 9"
    assert state.phase == E.PLAY and state.to_act == 0
    assert [(g, r) for g, r, _s, _f in state.trade_log][-2:] == [(4, 1), (1, 4)]


def test_j5_spanish_with_four_players_is_the_four_player_exception() -> None:
    state = table(["2 5 6", "3 9 10", "4 8 12", "S 7 11"], trade=True, trade_rules="spanish")
    give(state, 0, "5")
    assert state.phase == E.PLAY and len(state.trade_log) == 2


def test_j5_scum_with_a_single_card_gives_what_it_has() -> None:
    state = table(["2 4", "3 7", "8 9", "10 11", "5"], trade=True)
    assert hand(state, 4) == "-" and hand(state, 0) == "2 4 5"
    give(state, 0, "2")
    give(state, 0, "4")
    assert hand(state, 4) == "2 4"


def test_j5_no_trades_in_the_first_series_trades_from_the_second_on() -> None:
    rules = rules_for(5)
    state = E.new_game(rules, seed=3)
    assert state.phase == E.PLAY and state.trade_log == [] and not state.given.any()
    random_playout(state, np.random.default_rng(0))
    finish = list(state.finish)
    E.continue_game(state)
    assert state.phase == E.TRADE and state.to_act == finish[0]
    scum, president = finish[-1], finish[0]
    assert [(g, r, f) for g, r, _s, f in state.trade_log] == [
        (scum, president, True),
        (scum, president, True),
    ]
    # the forced cards are the Scum's two highest
    received = np.flatnonzero(state.received[president])
    assert received.max() >= np.flatnonzero(state.hands[scum]).max()


def test_j5_played_hand_continues_after_trades() -> None:
    state = table(["2 4", "3 7", "8 9", "10 11", "5 6"], trade=True)
    give(state, 0, "2")
    give(state, 0, "4")
    give(state, 1, "3")
    play(state, 0, "5")
    assert state.to_act == 1
