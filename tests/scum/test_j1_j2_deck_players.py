"""J1 (the deck and its ranks) and J2 (player range and target score)."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.errors import ConfigError, PresetError
from scum_env import engine as E
from scum_env.config import ScumConfig
from tests.scum.scripted import rules_for


# ---------------------------------------------------------------- J1 deck
def test_j1_rank_mode_deck_is_54_cards_four_of_each_rank_and_two_wilds() -> None:
    rules = rules_for(4)
    cards = rules.cards
    assert rules.deck_size == 54
    assert cards.names == ("S", *(str(v) for v in range(2, 13)), "P", "W")
    expected = {name: 4 for name in cards.names}
    expected["W"] = 2
    assert dict(zip(cards.names, rules.deck.tolist(), strict=True)) == expected


def test_j1_colour_mode_deck_is_54_cards_one_per_colour_and_two_wilds() -> None:
    rules = rules_for(4, color_clash=True)
    cards = rules.cards
    assert rules.deck_size == 54
    assert cards.size == 53
    for colour in "BGOR":
        for rank in ("S", *(str(v) for v in range(2, 13)), "P"):
            assert rules.deck[cards.slot(colour + rank)] == 1, colour + rank
    assert rules.deck[cards.slot("W")] == 2  # two Wild Presidents, no colour (J1)
    assert sum(rules.deck[cards.slot(c + "7")] for c in "BGOR") == 4


@pytest.mark.parametrize("colour", [False, True])
def test_j1_ranks_scum_lowest_then_2_to_12_president_wild(colour: bool) -> None:
    cards = rules_for(4, color_clash=colour).cards
    pre = "B" if colour else ""
    ladder = [pre + "S", *(pre + str(v) for v in range(2, 13)), pre + "P", "W"]
    slots = [cards.slot(name) for name in ladder]
    assert slots == sorted(slots) and len(set(slots)) == len(slots)
    assert [int(cards.rank[s]) for s in slots] == list(range(14))


def test_j9_colour_order_within_a_rank_is_blue_green_orange_red() -> None:
    cards = rules_for(4, color_clash=True).cards
    for rank in ("S", "7", "12", "P"):
        slots = [cards.slot(c + rank) for c in "BGOR"]
        assert slots == sorted(slots)
        assert len({int(cards.rank[s]) for s in slots}) == 1
    assert cards.slot("RS") < cards.slot("B2")  # rank first, colour second
    assert cards.long_names[cards.slot("OP")] == "Orange President"


def test_j1_card_names_and_aliases() -> None:
    rank_cards = rules_for(4).cards
    assert rank_cards.slot("R7") == rank_cards.slot("7") == rank_cards.slot("b7")
    assert rank_cards.slot("BS") == rank_cards.slot("S") == 0
    assert rank_cards.slot("OP") == rank_cards.slot("P") == 12
    assert rank_cards.slot("WP") == rank_cards.slot("W") == 13
    colour_cards = rules_for(4, color_clash=True).cards
    assert colour_cards.slot("WP") == colour_cards.slot("W") == 52


@pytest.mark.parametrize("name", ["X7", "13", "1", "R", ""])
def test_j1_unknown_card_name_raises_preset_error_naming_it(name: str) -> None:
    with pytest.raises(PresetError, match="unknown card"):
        rules_for(4).cards.slot(name)
    with pytest.raises(PresetError, match="unknown card"):
        rules_for(4, color_clash=True).cards.slot(name or "7")  # colour mode needs a colour


@pytest.mark.parametrize(("players", "decks"), [(4, 1), (5, 1), (6, 1), (7, 2), (9, 2), (12, 2)])
@pytest.mark.parametrize("colour", [False, True])
def test_j1_one_deck_per_six_players(players: int, decks: int, colour: bool) -> None:
    rules = rules_for(players, color_clash=colour)
    assert rules.num_decks == decks
    assert rules.deck_size == 54 * decks
    state = E.new_game(rules, seed=players)
    assert sum(state.ncards) == 54 * decks
    np.testing.assert_array_equal(state.hands.sum(axis=0), rules.deck)
    # the most cards of one rank in one play grows with the decks (action layout)
    assert rules.max_count == 4 * decks


# ---------------------------------------------------------------- J2 players
@pytest.mark.parametrize("players", [3, 13, 0, -1])
def test_j2_player_count_outside_4_to_12_is_a_config_error(players: int) -> None:
    with pytest.raises(ConfigError, match=r"num_players.*4 to 12.*got " + str(players)):
        ScumConfig(num_players=players)


@pytest.mark.parametrize(("players", "target"), [(4, 40), (6, 40), (7, 60), (12, 60)])
def test_j2_default_target_40_up_to_six_players_60_above(players: int, target: int) -> None:
    config = ScumConfig(num_players=players)
    assert config.target == target
    assert rules_for(players).target == target


def test_j2_target_score_option_overrides_the_default() -> None:
    assert ScumConfig(num_players=8, target_score=25).target == 25
    assert rules_for(4, target_score=7).target == 7
    with pytest.raises(ConfigError, match=r"target_score.*positive"):
        ScumConfig(target_score=0)
