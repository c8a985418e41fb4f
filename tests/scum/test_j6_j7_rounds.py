"""J6 (rounds: lead, one chance each, same size and higher, the lead) and J7."""

from __future__ import annotations

import pytest

from cardsuite.errors import IllegalActionError
from scum_env import engine as E
from tests.scum.scripted import action_of, hand, pass_, play, table


def test_j6_the_leader_must_play_passing_is_illegal() -> None:
    state = table(["5 9", "6", "7", "8"])
    assert state.leading and state.to_act == 0
    assert 0 not in E.legal_actions(state)
    with pytest.raises(
        IllegalActionError, match=r"player_0: illegal action 0: the leader must play"
    ):
        E.apply(state, 0)
    # the leader may play any set it holds
    assert E.legal_actions(state) == [action_of(state, "5"), action_of(state, "9")]


def test_j6_each_other_player_gets_one_chance_in_turn_order() -> None:
    # given p0 leads a 5, p1 passes, p2 plays a 7 and p3 passes
    state = table(["5 9 10", "6 12", "7 8", "3 4"])
    play(state, 0, "5")
    assert state.to_act == 1
    pass_(state, 1)
    play(state, 2, "7")
    pass_(state, 3)
    # then the round is over although p0 and p1 could beat the 7: p2 won and leads
    assert state.leading and state.to_act == 2
    assert hand(state, 0) == "9 10" and hand(state, 1) == "6 12"


def test_j6_a_player_who_passed_may_not_play_later_in_the_round() -> None:
    state = table(["5", "6 12", "7 8", "3 9", "S 2"])
    play(state, 0, "5")
    pass_(state, 1)
    play(state, 2, "7")
    play(state, 3, "9")
    pass_(state, 4)
    # p0 went out; p1 passed: nobody is left with a chance, p3 won and leads
    assert state.finish == [0]
    assert state.leading and state.to_act == 3


def test_j6_follow_with_the_same_number_of_cards_of_a_higher_rank() -> None:
    # given p0 leads a pair of 7s
    state = table(["7 7 S", "6 6 8 8 8 9 W", "2", "3"])
    play(state, 0, "7 7")
    rules = state.rules
    legal = E.legal_actions(state)
    # then p1 may pass, play a pair of 8s, or a single Wild President -- nothing else
    assert legal == [0, action_of(state, "W"), action_of(state, "8 8")]
    with pytest.raises(IllegalActionError, match=r"play 2x6: does not beat 2x7 \(J6\)"):
        E.apply(state, action_of(state, "6 6"))
    with pytest.raises(IllegalActionError, match=r"play 9: must play 2 cards to follow 2x7"):
        E.apply(state, action_of(state, "9"))
    with pytest.raises(IllegalActionError, match=r"play 3x8: must play 2 cards"):
        E.apply(state, action_of(state, "8 8 8"))
    with pytest.raises(IllegalActionError, match=r"play 2x9: not enough such cards"):
        E.apply(state, rules.play_action(2, rules.cards.slot("9")))
    play(state, 1, "8 8")
    assert state.top_count == 2 and hand(state, 1) == "2x6 8 9 W"


def test_j6_equal_rank_does_not_beat() -> None:
    state = table(["7 S", "7 2", "3", "4"])
    play(state, 0, "7")
    assert E.legal_actions(state) == [0]  # a 7 on a 7 is not higher
    with pytest.raises(IllegalActionError, match="does not beat 7"):
        E.apply(state, action_of(state, "7"))


def test_j6_j7_a_single_president_beats_a_triple_and_ends_the_round_at_once() -> None:
    # given p0 leads three 10s
    state = table(["10 10 10 2", "P 3", "11 11 11 4", "W 5"])
    play(state, 0, "10 10 10")
    assert action_of(state, "P") in E.legal_actions(state)
    # when p1 plays a single President
    play(state, 1, "P")
    # then the round ends at once: p2 (who holds three 11s) and p3 get no chance
    assert state.leading and state.to_act == 1
    assert state.top_count == 0 and not state.acted.any()
    assert hand(state, 2) == "4 3x11"


def test_j6_j7_a_single_wild_president_beats_a_pair_and_ends_the_round() -> None:
    state = table(["9 9 2", "W 3", "11 11", "4"])
    play(state, 0, "9 9")
    play(state, 1, "W")
    assert state.leading and state.to_act == 1


def test_j7_a_led_president_ends_the_round_and_the_leader_leads_again() -> None:
    state = table(["P 2", "W 3", "4", "5"])
    play(state, 0, "P")
    # nobody may answer, not even with a Wild President
    assert state.leading and state.to_act == 0


def test_j7_a_pair_of_presidents_ends_the_round() -> None:
    state = table(["P P 2", "W W 3", "4", "5"])
    play(state, 0, "P P")
    assert state.leading and state.to_act == 0


def test_j6_the_winner_leads_the_next_round() -> None:
    state = table(["5 2", "9 3", "6 4", "7 8"])
    play(state, 0, "5")
    play(state, 1, "9")
    pass_(state, 2)
    pass_(state, 3)
    assert state.leading and state.to_act == 1


def test_j6_a_winner_who_went_out_hands_the_lead_to_the_next_player_with_cards() -> None:
    # given p2 (Middle Class) wins a round with its last cards and p3 is already out
    state = table(["5 5 2", "6 6 3", "9 9", "4", "S 7"])
    play(state, 0, "5 5")
    play(state, 1, "6 6")
    play(state, 2, "9 9")
    assert state.finish == [2]
    pass_(state, 3)
    pass_(state, 4)
    assert state.leading and state.to_act == 3
    play(state, 3, "4")  # p3 goes out leading
    assert state.finish == [2, 3]
    # then p4 beats it and wins the round
    play(state, 4, "7")
    pass_(state, 0)
    pass_(state, 1)
    assert state.leading and state.to_act == 4


def test_j6_out_player_winning_hands_lead_past_other_out_players() -> None:
    state = table(["5 2", "3", "8", "6 7", "4 9"], roles=[0, 1, 2, 3, 4])
    play(state, 0, "5")
    pass_(state, 1)
    play(state, 2, "8")  # p2 goes out
    pass_(state, 3)
    play(state, 4, "9")
    # p4 won the round and leads
    assert state.leading and state.to_act == 4
    play(state, 4, "4")  # p4 goes out on the lead
    pass_(state, 0)
    pass_(state, 1)
    pass_(state, 3)
    # the winner p4 is out: the lead goes to the next in turn order with cards, p0
    assert state.leading and state.to_act == 0
    assert state.finish == [2, 4]


def test_j6_players_out_are_skipped_in_turn_order() -> None:
    state = table(["2 9", "3", "4 10", "5 11"])
    play(state, 0, "2")
    play(state, 1, "3")  # out
    play(state, 2, "4")
    play(state, 3, "5")
    assert state.to_act == 3  # p3 won the round
    play(state, 3, "11")  # p3 is out
    assert state.to_act == 0
    pass_(state, 0)
    # p1 is out and skipped: p2 acts next
    assert state.to_act == 2


def test_j7_a_president_that_empties_a_hand_hands_the_lead_on() -> None:
    state = table(["P", "3 4", "5 6", "7 8"])
    play(state, 0, "P")
    assert state.finish == [0]
    assert state.leading and state.to_act == 1
