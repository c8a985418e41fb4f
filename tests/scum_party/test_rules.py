"""Scripted hands for the Scum Party rulings P1–P8."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.errors import ConfigError, IllegalActionError, PresetError
from scum_env import engine as E
from scum_env.party import engine as PE
from scum_env.party.cards import CARDS, JOKER, decks_for
from scum_env.party.tables import hand_points, ladder, split_tables, swap_sizes
from tests.scum_party.helpers import act, config, hand_of, play_random_hand

FIVE = [0, 1, 2, 3, 4]  # King, Assistant King, Commoner, Assistant Scum, Scum


def scripted(hands: list[list[str]], *, trade: bool = False) -> PE.Party:
    """A one-table, five-player party seated player_0 (King) .. player_4 (Scum)."""
    return PE.new_party(config(5), 0, seating=FIVE, hands=hands, trade=trade)


# --------------------------------------------------------------------------- P1
def test_p1_single_joker_beats_a_pair_and_ends_the_trick() -> None:
    party = scripted([["7", "7", "3"], ["JK", "4"], ["8", "8"], ["9"], ["10", "10"]])
    act(party, "7", 2)  # King leads a pair of 7s
    mask = PE.legal_mask(party)
    rules = party.tables[0].rules
    assert mask[rules.play_action(1, JOKER)] == 1  # a single Joker on a pair (P1)
    assert mask[rules.play_action(1, CARDS.slot("4"))] == 0
    act(party, "JK")
    st = party.tables[0]
    assert st.top_count == 0, "nothing beats a Joker: the trick ends at once (P1)"
    assert party.to_act == 1, "the Joker's player leads the next trick (P6)"
    assert hand_of(party, 2) == "2x8", "player_2 never got to play on the pair"


def test_p1_a_pair_of_jokers_is_a_pair_and_cannot_be_beaten() -> None:
    party = scripted([["JK", "JK", "3"], ["A", "A"], ["8"], ["9"], ["10"]])
    act(party, "JK", 2)
    assert party.tables[0].top_count == 0 and party.to_act == 0


def test_p1_suits_never_matter_and_aliases_map_to_ranks() -> None:
    assert CARDS.slot("AS") == CARDS.slot("AH") == CARDS.slot("A") == 12
    assert CARDS.slot("10H") == CARDS.slot("T") == 8
    assert CARDS.slot("joker") == CARDS.slot("JK") == JOKER
    with pytest.raises(PresetError, match="unknown card 'ZZ'"):
        CARDS.slot("ZZ")


@pytest.mark.parametrize(("size", "decks"), [(5, 2), (8, 2), (9, 3), (12, 3), (13, 4), (15, 4)])
def test_p1_decks_by_table_size(size: int, decks: int) -> None:
    assert decks_for(size) == decks
    party = PE.new_party(config(size), 3)
    st = party.tables[0]
    assert st.rules.num_decks == decks
    assert sum(st.ncards) == 54 * decks
    assert int(st.hands[:, JOKER].sum()) == 2 * decks


def test_p1_too_many_jokers_for_the_decks_is_a_preset_error() -> None:
    hands = [["JK", "JK", "JK"], ["JK", "JK"], ["2"], ["3"], ["4"]]
    with pytest.raises(PresetError, match="table 0: preset hands hold 5 x JK"):
        scripted(hands)


# --------------------------------------------------------------------------- P2
@pytest.mark.parametrize(
    ("players", "sizes"),
    [(5, (5,)), (15, (15,)), (16, (8, 8)), (17, (9, 8)), (31, (11, 10, 10)),
     (46, (12, 12, 11, 11)), (50, (13, 13, 12, 12))],
)  # fmt: skip
def test_p2_table_split(players: int, sizes: tuple[int, ...]) -> None:
    assert split_tables(players) == sizes
    assert config(players).sizes == sizes


def test_p2_every_player_count_splits_into_legal_tables() -> None:
    for n in range(5, 51):
        sizes = split_tables(n)
        assert sum(sizes) == n and max(sizes) - min(sizes) <= 1
        assert all(5 <= s <= 15 for s in sizes) and list(sizes) == sorted(sizes, reverse=True)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_players": 4}, "num_players: Scum Party is played by 5 to 50 players"),
        ({"num_players": 51}, "num_players: Scum Party is played by 5 to 50 players"),
        ({"num_hands": 0}, "num_hands: a tournament needs at least 1 hand"),
        ({"num_players": 20, "table_sizes": "16,4"}, "every table seats 5 to 15 players"),
        ({"num_players": 11, "table_sizes": [6, 6]}, "seat 12 players, but num_players is 11"),
        ({"num_players": 11, "table_sizes": "six,five"}, "comma-separated numbers"),
        ({"reward": "money"}, "reward: 'money' is not one of"),
        ({"tables": 2}, "unknown config key 'tables'"),
    ],
)
def test_p2_impossible_configs_raise_named_errors(options: dict, message: str) -> None:
    from scum_env.party.config import PartyConfig

    with pytest.raises(ConfigError, match=message):
        PartyConfig.from_dict(options)


def test_p2_fixed_table_sizes_from_a_list_or_text() -> None:
    from scum_env.party.config import PartyConfig

    assert config(11).sizes == (11,)
    assert PartyConfig.from_dict({"num_players": 11, "table_sizes": [6, 5]}).sizes == (6, 5)
    assert PartyConfig(num_players=11, table_sizes="6, 5").sizes == (6, 5)


# --------------------------------------------------------------------------- P3 / P4
def test_p3_p4_scum_deals_from_itself_upwards() -> None:
    party = PE.new_party(config(5), 7, seating=FIVE)
    st = party.tables[0]
    # 108 cards to 5 players: the Scum, Assistant Scum and Commoner get 22 (P4);
    # the forced trades leave every hand size unchanged (P5).
    assert [st.ncards[q] for q in st.order] == [21, 21, 22, 22, 22]
    assert party.to_act == 0, "the King leads the first trick (P6)"


def test_p3_turn_goes_from_the_king_down_to_the_scum() -> None:
    party = scripted([["3", "9"], ["4", "9"], ["5", "9"], ["6", "9"], ["7", "9"]])
    seen = []
    for name in ("3", "4", "5", "6"):
        seen.append(party.to_act)
        act(party, name)
    seen.append(party.to_act)
    assert seen == [0, 1, 2, 3, 4]


# --------------------------------------------------------------------------- P5
def test_p5_forced_trades_pick_the_right_cards() -> None:
    hands = [
        ["2", "2", "4", "9", "Q"],  # King
        ["3", "7", "10"],  # Assistant King
        ["5", "5"],  # Commoner
        ["6", "8", "K"],  # Assistant Scum
        ["3", "5", "K", "A", "JK"],  # Scum
    ]
    party = scripted(hands, trade=True)
    assert hand_of(party, 0) == "4 9 Q A JK"  # got A + JK, gave 2, 2
    assert hand_of(party, 4) == "2x2 3 5 K"
    assert hand_of(party, 1) == "7 10 K"  # got K, gave 3
    assert hand_of(party, 3) == "3 6 8"
    assert hand_of(party, 2) == "2x5"
    st = party.tables[0]
    assert all(forced for *_, forced in st.trade_log), "no trade is an agent decision (P5)"
    assert st.phase == E.PLAY and party.to_act == 0


def test_p5_the_king_gives_its_two_lowest_after_receiving() -> None:
    hands = [["Q", "K", "A", "A"], ["9", "10"], ["5"], ["6", "7"], ["2", "3", "4"]]
    party = scripted(hands, trade=True)
    # The Scum's 3 and 4 are now the King's lowest cards, so they go straight back.
    assert hand_of(party, 0) == "Q K 2xA"
    assert hand_of(party, 4) == "2 3 4"


def test_p5_trades_happen_in_every_hand() -> None:
    party = PE.new_party(config(6, num_hands=3), 2)
    rng = np.random.default_rng(0)
    for _ in range(2):
        play_random_hand(party, rng)
        st = party.tables[0]
        assert [(g, r) for g, r, *_ in st.trade_log] == [
            (5, 0),
            (5, 0),
            (0, 5),
            (0, 5),
            (4, 1),
            (1, 4),
        ]


# --------------------------------------------------------------------------- P6
def test_p6_lead_goes_to_the_highest_ranking_player_when_the_winner_went_out() -> None:
    hands = [["5", "K"], ["3", "4"], ["6", "2"], ["7"], ["8", "9", "2"]]
    party = scripted(hands)
    act(party, "5")  # King
    assert PE.legal_mask(party).nonzero()[0].tolist() == [0], "3 and 4 cannot beat a 5"
    act(party, "pass")  # Assistant King
    act(party, "6")  # Commoner
    act(party, "7")  # Assistant Scum plays its last card and wins the trick
    act(party, "pass")  # Scum
    st = party.tables[0]
    assert st.finish == [3]
    assert party.to_act == 0, "the King, not the next player (the Scum), leads (P6)"


def test_p6_leader_must_play_and_followers_match_the_count() -> None:
    party = scripted([["5", "5", "9"], ["6", "7", "7"], ["8"], ["2"], ["3"]])
    with pytest.raises(IllegalActionError, match="leader must play"):
        act(party, "pass")
    act(party, "5", 2)
    with pytest.raises(IllegalActionError, match="must play 2 cards"):
        act(party, "6")
    act(party, "7", 2)
    assert party.tables[0].top_player == 1


def test_p6_hand_ends_when_one_player_holds_cards() -> None:
    party = scripted([["2"], ["3"], ["4"], ["5"], ["6", "7"]])
    for name in ("2", "3", "4", "5"):
        act(party, name)
    assert party.hand == 1, "the hand ended: only the Scum holds cards"
    assert party.last_finish == [[0, 1, 2, 3, 4]], "the Scum still held 6 7"


# --------------------------------------------------------------------------- P7
def test_p7_two_unequal_tables_swap_two_and_reseat() -> None:
    top = [10, 11, 12, 13, 14, 15]  # finish order at the upper table (6 players)
    low = [20, 21, 22, 23, 24]  # finish order at the lower table (5 players)
    assert swap_sizes([6, 5]) == (2,)
    assert ladder([top, low]) == [[10, 11, 12, 13, 20, 21], [14, 15, 22, 23, 24]]


def test_p7_three_unequal_tables_swap_three_then_two() -> None:
    t0 = list(range(100, 110))  # 10 players
    t1 = list(range(200, 207))  # 7 players
    t2 = list(range(300, 305))  # 5 players
    assert swap_sizes([10, 7, 5]) == (3, 2)
    assert ladder([t0, t1, t2]) == [
        [100, 101, 102, 103, 104, 105, 106, 200, 201, 202],
        [107, 108, 109, 203, 204, 300, 301],
        [205, 206, 302, 303, 304],
    ]


def test_p7_played_hand_at_two_tables_reseats_by_finish_order() -> None:
    party = PE.new_party(config(11, "6,5", num_hands=2), 5)
    play_random_hand(party, np.random.default_rng(1))
    top, low = party.last_finish
    assert party.members == [top[:4] + low[:2], top[4:] + low[2:]]
    assert [st.order for st in party.tables] == [list(range(6)), list(range(5))]
    assert party.to_act == party.members[0][0], "the new King of the top table leads"
    for p in range(11):
        assert party.members[party.table_of[p]][party.local_of[p]] == p


def test_p7_three_tables_of_unequal_size_in_play() -> None:
    party = PE.new_party(config(22, "10,7,5", num_hands=2), 9)
    play_random_hand(party, np.random.default_rng(2))
    f0, f1, f2 = party.last_finish
    assert party.members == [f0[:7] + f1[:3], f0[7:] + f1[3:5] + f2[:2], f1[5:] + f2[2:]]


# --------------------------------------------------------------------------- P8
def test_p8_points_after_a_hand_at_two_tables() -> None:
    seating = [[10, 11, 12, 13, 20, 21], [14, 15, 22, 23, 24]]
    points = hand_points([[p - 10 for p in t] for t in seating], 15)
    # top table: 2 + King 2, 2 + 1, 2, 2, 2 - 1, 2 - 2; lower table: 1 + 2, 1 + 1, 1, 0, -1
    assert points[[0, 1, 2, 3, 10, 11]].tolist() == [4, 3, 2, 2, 1, 0]
    assert points[[4, 5, 12, 13, 14]].tolist() == [3, 2, 1, 0, -1]


def test_p8_tournament_points_after_a_played_hand() -> None:
    party = PE.new_party(config(11, "6,5", num_hands=3), 4)
    assert party.scores.tolist() == [0] * 11, "the initial seating is never scored (P8)"
    points = play_random_hand(party, np.random.default_rng(3))
    top, low = party.members  # seats after the ladder
    expected = {top[0]: 4, top[1]: 3, top[2]: 2, top[3]: 2, top[4]: 1, top[5]: 0,
                low[0]: 3, low[1]: 2, low[2]: 1, low[3]: 0, low[4]: -1}  # fmt: skip
    assert {p: int(points[p]) for p in range(11)} == expected
    assert party.scores.tolist() == points.tolist()
    second = play_random_hand(party, np.random.default_rng(4))
    assert party.scores.tolist() == (points + second).tolist()


def test_p8_single_table_points() -> None:
    party = scripted([["2"], ["3"], ["4"], ["5"], ["6", "7"]])
    for name in ("2", "3", "4", "5"):
        act(party, name)
    assert party.last_points.tolist() == [3, 2, 1, 0, -1]


def test_p8_tournament_ends_after_num_hands() -> None:
    party = PE.new_party(config(5, num_hands=2), 1)
    rng = np.random.default_rng(5)
    play_random_hand(party, rng)
    assert not party.over and party.hand == 1
    play_random_hand(party, rng)
    assert party.over and party.hand == 2
    assert PE.legal_mask(party).sum() == 0
    with pytest.raises(IllegalActionError, match="tournament is over"):
        PE.apply(party, 1)


# --------------------------------------------------------------------------- interleaving
def test_turns_interleave_tables_top_down() -> None:
    party = PE.new_party(config(16), 11)
    tables = []
    for _ in range(6):
        tables.append(party.current)
        legal = np.flatnonzero(PE.legal_mask(party))
        PE.apply(party, int(legal[-1]))
    assert tables == [0, 1, 0, 1, 0, 1]


def test_action_beyond_a_smaller_tables_decks_is_explained() -> None:
    party = PE.new_party(config(20, "13,7"), 0)  # 4 decks on top, 2 below
    while party.current != 1:
        PE.apply(party, int(np.flatnonzero(PE.legal_mask(party))[-1]))
    why = PE.why_illegal(party, PE.action_rules(party.config).play_action(9, 0))
    assert why is not None and "table 1 plays with 2 decks, at most 8 cards" in why


def test_preset_seating_errors() -> None:
    with pytest.raises(PresetError, match="tables of \\[5, 6\\] players"):
        PE.new_party(config(11, "6,5"), 0, seating=[[0, 1, 2, 3, 4], [5, 6, 7, 8, 9, 10]])
    with pytest.raises(PresetError, match="each of the 5 players once"):
        PE.new_party(config(5), 0, seating=[0, 1, 2, 3, 3])
