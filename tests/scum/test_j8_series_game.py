"""J8: the end of a series, points, the end of a game and its winner."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.errors import PresetError
from scum_env import engine as E
from tests.scum.scripted import pass_, play, random_playout, rules_for, table

# four players p0..p3 seated in order; p0, p1, p2 each go out with one play
RACE = ["3", "5", "7", "9 2"]


def test_j8_series_ends_when_one_player_holds_cards_even_mid_round() -> None:
    state = table(RACE)
    play(state, 0, "3")
    play(state, 1, "5")
    assert state.phase == E.PLAY
    play(state, 2, "7")
    # only p3 holds cards: the series ends although p3 had no chance in this round
    assert state.phase == E.OVER
    assert state.finish == [0, 1, 2, 3]
    assert E.legal_actions(state) == []
    assert state.last_points.tolist() == [4, 3, 2, 1]


def test_j8_kth_out_of_n_scores_n_plus_1_minus_k() -> None:
    state = table(["4", "S", "6", "2 3", "8"])
    play(state, 0, "4")  # p0 out 1st
    pass_(state, 1)
    play(state, 2, "6")  # p2 out 2nd
    pass_(state, 3)
    play(state, 4, "8")  # p4 out 3rd; it won the round but is out: the lead goes to p1
    assert state.leading and state.to_act == 1
    play(state, 1, "S")  # p1 out 4th; p3 is left with cards
    assert state.finish == [0, 2, 4, 1, 3]
    assert state.last_points.tolist() == [5, 2, 4, 1, 3]
    assert state.scores.tolist() == [5, 2, 4, 1, 3]
    assert E.episode_rewards(state) == [5.0, 2.0, 4.0, 1.0, 3.0]
    assert not state.game_over and state.winner == -1


def test_j8_centered_rewards_shift_and_scale_points_to_minus_1_plus_1() -> None:
    state = table(RACE, reward="centered")
    for player, cards in ((0, "3"), (1, "5"), (2, "7")):
        play(state, player, cards)
    # points 4, 3, 2, 1 around their mean 2.5, divided by 1.5
    assert E.episode_rewards(state) == pytest.approx([1.0, 1 / 3, -1 / 3, -1.0])


def finish_race(state: E.State) -> None:
    for player, cards in ((0, "3"), (1, "5"), (2, "7")):
        play(state, player, cards)


def test_j8_game_ends_when_someone_reaches_the_target() -> None:
    state = table(RACE, scores=[0, 0, 0, 39])
    finish_race(state)
    # the Scum's single point takes p3 to 40
    assert state.scores.tolist() == [4, 3, 2, 40]
    assert state.game_over and state.winner == 3
    with pytest.raises(E.StateError):
        E.continue_game(state)


def test_j8_highest_total_wins_not_the_first_to_reach_the_target() -> None:
    state = table(RACE, scores=[38, 0, 0, 39])
    finish_race(state)
    assert state.scores.tolist() == [42, 3, 2, 40]
    assert state.winner == 0


def test_j8_ties_are_broken_by_that_series_finish_order() -> None:
    state = table(RACE, scores=[36, 0, 0, 39])
    finish_race(state)
    assert state.scores.tolist() == [40, 3, 2, 40]
    assert state.winner == 0  # p0 went out first in this series
    # the same tie with p1 out before p0 goes to p1, whatever the player index
    state = table(["5", "3", "7", "9 2"], roles=[1, 0, 2, 3], scores=[37, 36, 0, 0])
    play(state, 1, "3")
    play(state, 0, "5")
    play(state, 2, "7")
    assert state.finish == [1, 0, 2, 3]
    assert state.scores.tolist() == [40, 40, 2, 1]
    assert state.winner == 1


def test_j8_series_episode_stops_after_each_series_until_the_target() -> None:
    state = table(RACE)
    finish_race(state)
    assert state.phase == E.OVER and not state.game_over
    E.continue_game(state)
    assert state.series == 2 and state.order == [0, 1, 2, 3]
    assert state.last_points.tolist() == [0, 0, 0, 0]
    assert state.scores.tolist() == [4, 3, 2, 1]


def test_j8_game_episode_plays_series_after_series_with_trades() -> None:
    state = table(RACE, episode="game")
    finish_race(state)
    # the next series started by itself: dealt from the full pack, then the trades
    assert state.phase == E.TRADE and state.series == 2
    assert state.scores.tolist() == [4, 3, 2, 1]
    assert state.order == [0, 1, 2, 3] and state.to_act == 0
    assert sum(state.ncards) == 54 and len(state.trade_log) == 1


@pytest.mark.parametrize("players", [4, 5, 8])
def test_j8_game_episode_to_target_rewards_winner_plus_1_others_minus_1(players: int) -> None:
    rules = rules_for(players, episode="game", target_score=3 * players)
    state = E.new_game(rules, seed=players)
    random_playout(state, np.random.default_rng(players), steps=100_000)
    assert state.game_over and state.series >= 3
    best = int(state.scores.max())
    assert best >= 3 * players
    assert state.scores[state.winner] == best
    leaders = [p for p in state.finish if state.scores[p] == best]
    assert state.winner == leaders[0]
    rewards = E.episode_rewards(state)
    assert rewards[state.winner] == 1.0
    assert sorted(rewards) == [-1.0] * (players - 1) + [1.0]


def test_j8_preset_scores_must_be_below_the_target() -> None:
    with pytest.raises(PresetError, match=r"preset scores must be 4 integers from 0 to 39"):
        table(RACE, scores=[40, 0, 0, 0])
    with pytest.raises(PresetError, match="preset scores"):
        table(RACE, scores=[0, 0, 0])
