"""J3 (seats, roles, turn order, the seeded draw) and J4 (the deal)."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.errors import PresetError
from scum_env import engine as E
from tests.scum.scripted import play, random_playout, rules_for, table


# ---------------------------------------------------------------- J3 seats
@pytest.mark.parametrize(
    ("players", "names"),
    [
        (4, ["President", "Vice President", "Next to Scum", "Scum"]),
        (5, ["President", "Vice President", "Middle Class", "Next to Scum", "Scum"]),
        (
            7,
            ["President", "Vice President"] + ["Middle Class"] * 3 + ["Next to Scum", "Scum"],
        ),
    ],
)
def test_j3_role_names_follow_role_order(players: int, names: list[str]) -> None:
    roles = list(range(players))[::-1]  # player_{n-1} is President, player_0 Scum
    state = E.new_game(rules_for(players), seed=0, roles=roles)
    assert state.order == roles
    by_player = E.roles_of(state)
    assert [by_player[p] for p in roles] == names


def test_j3_turn_order_president_vice_middle_next_to_scum_scum_then_president() -> None:
    # given five players seated President p4, VP p2, Middle p0, Next to Scum p3, Scum p1
    state = table(["5 9", "6 10", "4 8", "7 11", "3 12"], roles=[4, 2, 0, 3, 1])
    # when the President leads a 3 and everyone beats it in turn
    play(state, 4, "3")
    play(state, 2, "4")
    play(state, 0, "5")
    play(state, 3, "7")
    play(state, 1, "10")
    # then the Scum was last and the round is over: the Scum won and leads
    assert state.leading and state.to_act == 1
    play(state, 1, "6")
    # and after the Scum comes the President again
    assert state.to_act == 4


def test_j3_seeded_draw_same_seed_same_roles_and_all_roles_reachable() -> None:
    rules = rules_for(5)
    first = E.new_game(rules, seed=123)
    again = E.new_game(rules, seed=123)
    assert first.order == again.order
    np.testing.assert_array_equal(first.hands, again.hands)
    presidents = {E.new_game(rules, seed=s).order[0] for s in range(60)}
    assert presidents == set(range(5))  # every player can draw the President seat
    assert sorted(first.order) == list(range(5))


def test_j3_preset_roles_must_be_a_permutation() -> None:
    rules = rules_for(4)
    with pytest.raises(PresetError, match="each of the 4 players once"):
        E.new_game(rules, 0, roles=[0, 1, 2, 2])
    with pytest.raises(PresetError, match="each of the 4 players once"):
        E.new_game(rules, 0, roles=[0, 1, 2])
    with pytest.raises(PresetError, match="player indices"):
        E.new_game(rules, 0, roles=["a", "b", "c", "d"])  # type: ignore[list-item]


def test_j3_later_series_seats_by_finish_order() -> None:
    rules = rules_for(6)
    state = E.new_game(rules, seed=5)
    random_playout(state, np.random.default_rng(5))
    finish = list(state.finish)
    assert sorted(finish) == list(range(6))
    E.continue_game(state)
    assert state.order == finish  # first out is President, last is Scum
    assert E.roles_of(state)[finish[0]] == "President"
    assert E.roles_of(state)[finish[-1]] == "Scum"
    assert state.series == 2


# ---------------------------------------------------------------- J4 deal
@pytest.mark.parametrize(
    ("players", "sizes_in_role_order"),
    [
        (4, [14, 14, 13, 13]),
        (5, [11, 11, 11, 11, 10]),  # 54 = 5 x 10 + 4: all but the Scum get 11
        (6, [9, 9, 9, 9, 9, 9]),
        (7, [16, 16, 16, 15, 15, 15, 15]),  # 108 = 7 x 15 + 3
        (8, [14, 14, 14, 14, 13, 13, 13, 13]),
        (10, [11] * 8 + [10] * 2),
        (12, [9] * 12),
    ],
)
def test_j4_extra_cards_go_to_the_first_players_from_the_president(
    players: int, sizes_in_role_order: list[int]
) -> None:
    roles = [(3 * i + 1) % players for i in range(players)] if players % 3 else None
    state = E.new_game(rules_for(players), seed=players, roles=roles)
    assert [state.ncards[p] for p in state.order] == sizes_in_role_order
    assert sum(sizes_in_role_order) == state.rules.deck_size


def test_j4_cards_are_dealt_one_at_a_time_starting_with_the_president() -> None:
    rules = rules_for(5)
    roles = [3, 0, 4, 1, 2]
    state = E.new_game(rules, seed=42, roles=roles)
    # the shuffled pack: card i goes to the i-th seat (mod 5) from the President
    deck = np.random.default_rng(42).permutation(rules.slot_list)
    for seat, player in enumerate(roles):
        expected = np.bincount(deck[seat::5], minlength=rules.num_slots)
        np.testing.assert_array_equal(state.hands[player], expected)


def test_j4_later_deals_continue_the_games_generator() -> None:
    rules = rules_for(4)
    a = E.new_game(rules, seed=9)
    b = E.new_game(rules, seed=9)
    for state in (a, b):
        random_playout(state, np.random.default_rng(1))
        E.continue_game(state)
    np.testing.assert_array_equal(a.hands, b.hands)
    assert not np.array_equal(a.hands, E.new_game(rules, seed=9, roles=a.order).hands)


def test_j3_continue_game_only_after_a_finished_series() -> None:
    state = E.new_game(rules_for(4), seed=0)
    with pytest.raises(E.StateError, match="finished series"):
        E.continue_game(state)
