"""J9 options: carousel, color_clash, wild_queen and their combinations."""

from __future__ import annotations

import pytest

from cardsuite.errors import IllegalActionError
from scum_env import engine as E
from tests.scum.scripted import action_of, hand, pass_, play, table


# ---------------------------------------------------------------- carousel
def test_j9_carousel_a_player_who_passed_may_play_later_in_the_round() -> None:
    state = table(["5 9 2", "10 3", "4 6", "7 8"], carousel=True)
    play(state, 0, "5")
    pass_(state, 1)
    pass_(state, 2)
    play(state, 3, "7")
    play(state, 0, "9")  # the leader plays again in the same round
    play(state, 1, "10")  # p1 passed before and now plays
    assert state.top_player == 1 and not state.leading


def test_j9_carousel_round_ends_when_all_others_with_cards_passed_since_the_last_play() -> None:
    state = table(["5 9 2", "10 3", "4 6", "7 8"], carousel=True)
    play(state, 0, "5")
    pass_(state, 1)
    pass_(state, 2)
    play(state, 3, "7")
    pass_(state, 0)
    pass_(state, 1)
    assert not state.leading and state.to_act == 2  # p2 has not passed since the 7
    pass_(state, 2)
    # all three others passed since p3's 7: p3 wins and leads
    assert state.leading and state.to_act == 3


def test_j9_carousel_default_rules_end_the_round_after_one_chance_each() -> None:
    state = table(["5 9 2", "10 3", "4 6", "7 8"])
    play(state, 0, "5")
    pass_(state, 1)
    pass_(state, 2)
    play(state, 3, "7")
    # without carousel p0 had its chance: the round is over
    assert state.leading and state.to_act == 3


def test_j9_carousel_winner_out_hands_the_lead_on() -> None:
    state = table(["5 2", "9", "4 6", "7 8"], carousel=True)
    play(state, 0, "5")
    play(state, 1, "9")  # p1 goes out
    pass_(state, 2)
    pass_(state, 3)
    pass_(state, 0)
    assert state.leading and state.to_act == 2


def test_j9_carousel_president_still_ends_the_round() -> None:
    state = table(["5 2", "P 3", "4 6", "W 8"], carousel=True)
    play(state, 0, "5")
    play(state, 1, "P")
    assert state.leading and state.to_act == 1


# ---------------------------------------------------------------- color_clash
def test_j9_color_clash_equal_ranks_ordered_red_orange_green_blue() -> None:
    state = table(["B8 B2", "G8 B3", "O8 B4", "R8 B5"], color_clash=True)
    play(state, 0, "B8")
    play(state, 1, "G8")
    play(state, 2, "O8")
    play(state, 3, "R8")
    assert state.leading and state.to_act == 3


def test_j9_color_clash_lower_colour_of_the_same_rank_does_not_beat() -> None:
    state = table(["O8 B2", "G8 B9", "B3", "B4"], color_clash=True)
    play(state, 0, "O8")
    assert E.legal_actions(state) == [0, action_of(state, "B9")]
    with pytest.raises(IllegalActionError, match="play G8: does not beat O8"):
        E.apply(state, action_of(state, "G8"))


def test_j9_color_clash_pass_then_play_is_the_colour_order_not_a_second_turn() -> None:
    """J9 ruling on the book's "pass and then play a card of the same value with a higher
    colour": a same-value card of a higher colour beats, but a player who passed has used
    its one chance in the round (J6); only ``carousel`` gives it another."""
    state = table(["B8 B2", "R8 B3", "O8 B4", "B5 B6"], color_clash=True)
    play(state, 0, "B8")
    pass_(state, 1)  # holds the Red 8, passes
    play(state, 2, "O8")  # same value, higher colour: beats the Blue 8
    pass_(state, 3)
    assert state.leading and state.to_act == 2, "player_1 gets no second chance: O8 wins"
    assert hand(state, 1) == "B3 R8"

    state = table(["B8 B2", "R8 B3", "O8 B4", "B5 B6"], color_clash=True, carousel=True)
    play(state, 0, "B8")
    pass_(state, 1)
    play(state, 2, "O8")
    pass_(state, 3)
    pass_(state, 0)
    play(state, 1, "R8")  # with carousel the player who passed plays the Red 8 later
    assert state.top_player == 1


def test_j9_color_clash_sets_compare_by_rank_then_best_colour() -> None:
    # given p0 leads a pair of 7s whose best is Orange (O7 + B7)
    state = table(["B7 O7 B2", "G7 R7 B3", "G3", "B4"], color_clash=True)
    play(state, 0, "B7 O7")
    # then p1's pair with the Red 7 beats it
    assert action_of(state, "G7 R7") in E.legal_actions(state)
    play(state, 1, "G7 R7")
    assert state.top_slot == state.rules.cards.slot("R7")


def test_j9_color_clash_pair_with_lower_best_colour_does_not_beat() -> None:
    state = table(["B7 R7 B2", "G7 O7 B8 G8", "G3", "B4"], color_clash=True)
    play(state, 0, "B7 R7")
    legal = E.legal_actions(state)
    assert action_of(state, "G7 O7") not in legal
    assert legal == [0, action_of(state, "B8 G8")]  # any pair of 8s beats any pair of 7s


def test_j9_color_clash_multi_card_plays_take_the_lowest_colours_below_the_best() -> None:
    state = table(["B7 G7 O7 R7 B2", "B3", "B4", "B5"], color_clash=True)
    rules = state.rules
    # "two 7s, best Red" is one action; the other card is the lowest colour, Blue
    E.apply(state, rules.play_action(2, rules.cards.slot("R7")))
    assert rules.cards.describe(state.top_cards) == "B7 R7"
    assert hand(state, 0) == "B2 G7 O7"
    assert rules.describe_action(rules.play_action(3, rules.cards.slot("O7"))) == (
        "play 3 cards of rank 7 (best O7)"
    )


def test_j9_color_clash_three_cards_best_orange_fill_blue_and_green() -> None:
    state = table(["B7 G7 O7 R7 B2", "B3", "B4", "B5"], color_clash=True)
    rules = state.rules
    mask = E.legal_mask(state)
    # a pair or triple needs enough cards of that rank at or below the best colour
    assert not mask[rules.play_action(2, rules.cards.slot("B7"))]
    assert mask[rules.play_action(2, rules.cards.slot("G7"))]
    assert not mask[rules.play_action(4, rules.cards.slot("O7"))]
    assert mask[rules.play_action(4, rules.cards.slot("R7"))]
    E.apply(state, rules.play_action(3, rules.cards.slot("O7")))
    assert rules.cards.describe(state.top_cards) == "B7 G7 O7"
    assert hand(state, 0) == "B2 R7"


def test_j9_color_clash_higher_coloured_president_beats_lower_only_red_ends() -> None:
    state = table(["BP B2", "GP B3", "OP B4", "RP B5", "W B6"], color_clash=True)
    play(state, 0, "BP")
    assert not state.leading  # a Blue President no longer ends the round
    play(state, 1, "GP")
    play(state, 2, "OP")
    play(state, 3, "RP")
    # the Red President ends the round at once: p4's Wild gets no chance
    assert state.leading and state.to_act == 3
    assert hand(state, 4) == "B6 W"


def test_j9_color_clash_wild_beats_a_non_red_president_and_ends_the_round() -> None:
    state = table(["OP B2", "W B3", "RP B4", "B5"], color_clash=True)
    play(state, 0, "OP")
    play(state, 1, "W")
    assert state.leading and state.to_act == 1


def test_j9_color_clash_single_president_against_a_set_of_presidents() -> None:
    # a single President beats a set of Presidents only if it is above the set's best
    state = table(["BP OP B2", "GP RP B3", "B4", "B5"], color_clash=True)
    play(state, 0, "BP OP")
    legal = E.legal_actions(state)
    assert action_of(state, "RP") in legal
    assert action_of(state, "GP") not in legal
    assert action_of(state, "GP RP") in legal


# ---------------------------------------------------------------- wild_queen
def test_j9_wild_queen_a_president_no_longer_ends_the_round() -> None:
    state = table(["P 2", "3", "W 4", "5"], wild_queen=True)
    play(state, 0, "P")
    assert not state.leading and state.to_act == 1
    pass_(state, 1)
    # the Wild President beats it and ends the round
    play(state, 2, "W")
    assert state.leading and state.to_act == 2


def test_j9_wild_queen_a_president_cannot_beat_a_president() -> None:
    state = table(["P 2", "P 3", "4", "5"], wild_queen=True)
    play(state, 0, "P")
    assert E.legal_actions(state) == [0]
    pass_(state, 1)
    pass_(state, 2)
    pass_(state, 3)
    assert state.leading and state.to_act == 0


def test_j9_wild_queen_pair_of_presidents_beaten_by_a_single_wild_not_a_president() -> None:
    state = table(["P P 2", "P W 3", "4", "5"], wild_queen=True)
    play(state, 0, "P P")
    assert E.legal_actions(state) == [0, action_of(state, "W")]


def test_j9_wild_queen_with_color_clash_red_president_no_longer_ends_the_round() -> None:
    state = table(["RP B2", "OP B3", "W B4", "B5"], color_clash=True, wild_queen=True)
    play(state, 0, "RP")
    assert not state.leading
    assert E.legal_actions(state) == [0]  # the Orange President is lower
    pass_(state, 1)
    play(state, 2, "W")
    assert state.leading and state.to_act == 2


# ---------------------------------------------------------------- combinations
def test_j9_carousel_with_color_clash_pass_then_beat_with_a_higher_colour() -> None:
    state = table(["B8 B2", "R8 B3", "G8 B4", "B5"], color_clash=True, carousel=True)
    play(state, 0, "B8")
    pass_(state, 1)  # p1 holds the Red 8 but waits
    play(state, 2, "G8")
    pass_(state, 3)
    pass_(state, 0)
    play(state, 1, "R8")  # the rule book's Color Clash note: pass, then play later
    assert state.top_player == 1


def test_j9_all_variants_red_president_stands_when_everyone_passes() -> None:
    state = table(["RP B2", "W B3", "B4", "B5"], color_clash=True, carousel=True, wild_queen=True)
    play(state, 0, "RP")
    pass_(state, 1)
    pass_(state, 2)
    pass_(state, 3)
    # every other player passed since the Red President: p0 wins and leads
    assert state.leading and state.to_act == 0
