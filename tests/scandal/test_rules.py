"""Scripted Scandal hands, one or more per ruling (RULINGS S2-S9)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardsuite.errors import IllegalActionError, PresetError
from scandal_env import engine as E
from scandal_env.config import ScandalConfig

DECK = E.make_rules(ScandalConfig()).deck
LAY = E.make_rules(ScandalConfig()).layout


def cid(name: str) -> int:
    return DECK.name_to_id[name]


def sid(name: str) -> int:
    return DECK.scandal_names.index(name)


def deal(preset: dict[str, Any], seed: int = 0, **cfg: Any) -> E.State:
    """A game whose first hand is ``preset``; dealer 1 by default, so P0 plays first."""
    return E.new_game(ScandalConfig(**cfg), seed=seed, preset={"dealer": 1, **preset})


def legal(state: E.State, action: int) -> bool:
    return bool(E.legal_mask(state)[action])


def draw_stock(s: E.State) -> None:
    E.apply(s, LAY.DRAW_STOCK)


def draw_pile(s: E.State, depth: int) -> None:
    E.apply(s, LAY.DRAW_DISCARD + depth)


def start(s: E.State, scandal: str) -> None:
    E.apply(s, LAY.MELD_START + sid(scandal))


def add(s: E.State, card: str) -> None:
    E.apply(s, LAY.MELD_ADD + cid(card))


def finish(s: E.State) -> None:
    E.apply(s, LAY.MELD_FINISH)


def layoff_id(card: str, scandal: str) -> int:
    return LAY.LAYOFF + int(E.make_rules(ScandalConfig()).pair_of[cid(card), sid(scandal)])


def discard(s: E.State, card: str) -> None:
    E.apply(s, LAY.DISCARD + cid(card))


def discards_legal(s: E.State) -> list[str]:
    m = E.legal_mask(s)[LAY.DISCARD : LAY.DISCARD + DECK.n_cards]
    return [DECK.names[c] for c in np.flatnonzero(m)]


def hand(s: E.State, p: int) -> set[str]:
    return {DECK.names[c] for c in np.flatnonzero(s.hands[p])}


# ------------------------------------------------------------------ S3


def s3_deal() -> E.State:
    return deal(
        {
            "hands": [
                ["Watergate", "Richard Nixon", "Bill Clinton", "Ted Kennedy"],
                ["Gary Hart", "Donna Rice", "Paula Jones"],
            ],
            "discard": ["Dike Bridge", "Fanne Foxe", "The Watergate Hotel", "Kickbacks"],
        }
    )


def test_s3_deep_draw_only_where_the_card_can_be_melded() -> None:
    s = s3_deal()
    assert s.to_act == 0
    assert legal(s, LAY.DRAW_STOCK)
    assert legal(s, LAY.DRAW_DISCARD + 0)  # top card: always
    assert not legal(s, LAY.DRAW_DISCARD + 1)  # Fanne Foxe: no title in hand
    assert legal(s, LAY.DRAW_DISCARD + 2)  # Watergate Hotel: title + Nixon in hand
    assert not legal(s, LAY.DRAW_DISCARD + 3)  # Kickbacks: no Agnew title
    with pytest.raises(IllegalActionError, match=r"S3.*Kickbacks"):
        draw_pile(s, 3)


def test_s3_deep_draw_takes_cards_above_and_forbids_discard_until_melded() -> None:
    s = s3_deal()
    draw_pile(s, 2)
    assert hand(s, 0) >= {"Dike Bridge", "Fanne Foxe", "The Watergate Hotel"}
    assert s.pile == [cid("Kickbacks")]
    assert s.duty == cid("The Watergate Hotel")
    assert discards_legal(s) == []
    assert E.legal_actions(s) == [LAY.MELD_START + sid("Watergate")]
    with pytest.raises(IllegalActionError, match="must be melded first"):
        discard(s, "Ted Kennedy")
    start(s, "Watergate")
    add(s, "Richard Nixon")
    assert not legal(s, LAY.MELD_FINISH)  # the duty card is not in the meld yet
    add(s, "The Watergate Hotel")
    finish(s)
    assert s.duty == -1
    assert s.meld_owner[sid("Watergate")] == 0
    assert set(discards_legal(s)) == {"Bill Clinton", "Ted Kennedy", "Dike Bridge", "Fanne Foxe"}


def test_s3_deep_draw_needs_a_card_left_over() -> None:
    # Taking the Hotel gives exactly title + Nixon + Hotel: melding all three
    # would leave nothing to discard (S8), so the deep draw is illegal.
    s = deal(
        {
            "hands": [["Watergate"], ["Gary Hart"]],
            "discard": ["Richard Nixon", "The Watergate Hotel"],
        }
    )
    assert not legal(s, LAY.DRAW_DISCARD + 1)
    s2 = deal(
        {
            "hands": [["Watergate", "Ted Kennedy"], ["Gary Hart"]],
            "discard": ["Richard Nixon", "The Watergate Hotel"],
        }
    )
    assert legal(s2, LAY.DRAW_DISCARD + 1)


def test_s3_deep_draw_honoured_by_a_lay_off() -> None:
    s = deal(
        {
            "hands": [
                ["Watergate", "Richard Nixon", "Gerald Ford", "Ted Kennedy", "Bill Clinton"],
                ["Gary Hart", "Donna Rice", "Paula Jones"],
            ],
            "discard": ["The White House Tapes"],
        }
    )
    draw_stock(s)
    start(s, "Watergate")
    add(s, "Richard Nixon")
    add(s, "Gerald Ford")
    finish(s)
    discard(s, "Ted Kennedy")
    # P1: the Tapes lie under Ted Kennedy; Watergate is melded, so they can be laid off.
    assert legal(s, LAY.DRAW_DISCARD + 1)
    draw_pile(s, 1)
    assert s.duty == cid("The White House Tapes")
    assert E.legal_actions(s) == [layoff_id("The White House Tapes", "Watergate")]
    E.apply(s, layoff_id("The White House Tapes", "Watergate"))
    assert s.placed_by[cid("The White House Tapes")] == 1
    # Ted Kennedy came with the deep draw: S7 does not apply, he may be discarded.
    assert "Ted Kennedy" in discards_legal(s)


# ------------------------------------------------------------------ S7


def test_s7_top_discard_may_not_be_discarded_the_same_turn() -> None:
    s = deal(
        {
            "hands": [["Ted Kennedy", "Gary Hart"], ["Donna Rice"]],
            "discard": ["Paula Jones"],
            "stock": [
                c
                for c in DECK.names
                if c not in {"Ted Kennedy", "Gary Hart", "Donna Rice", "Paula Jones"}
            ],
        }
    )
    draw_pile(s, 0)
    assert s.forbidden == cid("Paula Jones")
    assert set(discards_legal(s)) == {"Ted Kennedy", "Gary Hart"}
    with pytest.raises(IllegalActionError, match="S7"):
        discard(s, "Paula Jones")
    discard(s, "Ted Kennedy")
    # P1 draws from the stock and may discard the drawn card at once.
    drawn = s.stock[-1]
    draw_stock(s)
    assert DECK.names[drawn] in discards_legal(s)
    E.apply(s, LAY.DISCARD + drawn)
    # P0 may now discard Paula Jones: she was picked up on an earlier turn.
    draw_stock(s)
    assert "Paula Jones" in discards_legal(s)


def test_s7_no_meld_that_leaves_only_the_forbidden_card() -> None:
    s = deal(
        {
            "hands": [["Watergate", "Richard Nixon", "Ted Kennedy"], ["Donna Rice"]],
            "discard": ["The Watergate Hotel"],
        }
    )
    draw_pile(s, 0)
    # Title + Nixon + Hotel leaves Ted Kennedy: fine.
    assert legal(s, LAY.MELD_START + sid("Watergate"))
    start(s, "Watergate")
    add(s, "Richard Nixon")
    # Adding Ted Kennedy is impossible (wrong scandal); the meld must take the Hotel.
    assert not legal(s, LAY.MELD_ADD + cid("Ted Kennedy"))
    add(s, "The Watergate Hotel")
    finish(s)
    assert discards_legal(s) == ["Ted Kennedy"]


# ------------------------------------------------------------------ S5


def test_s5_meld_needs_title_blue_or_green_and_one_more() -> None:
    s = deal(
        {
            "hands": [
                ["Watergate", '"Deep Throat"', "The Watergate Hotel", "Ted Kennedy"],
                ["The Agnew Capers", "Spiro Agnew", "Donna Rice"],
            ],
        }
    )
    draw_stock(s)
    assert not legal(s, LAY.MELD_START + sid("Watergate"))  # no blue/green card
    with pytest.raises(IllegalActionError, match="S5"):
        start(s, "Watergate")
    discard(s, "Ted Kennedy")
    draw_stock(s)
    # Title + Agnew but no third Agnew card.
    assert not legal(s, LAY.MELD_START + sid("The Agnew Capers"))


def test_s5_build_card_by_card_with_gold_third_card_and_one_meld_per_scandal() -> None:
    s = deal(
        {
            "hands": [
                ["Watergate", "Gerald Ford", "Impeachment", "Richard Nixon", "Ted Kennedy"],
                ["Donna Rice"],
            ],
        }
    )
    draw_stock(s)
    start(s, "Watergate")
    assert s.phase == E.Phase.BUILD
    assert not legal(s, LAY.MELD_FINISH)
    assert not legal(s, LAY.MELD_ADD + cid("Ted Kennedy"))
    with pytest.raises(IllegalActionError, match="not a card of the meld"):
        add(s, "Ted Kennedy")
    assert discards_legal(s) == []
    add(s, "Impeachment")
    assert not legal(s, LAY.MELD_FINISH)  # still no blue/green card
    add(s, "Gerald Ford")
    assert legal(s, LAY.MELD_FINISH)
    finish(s)
    assert s.meld_owner[sid("Watergate")] == 0
    assert s.placed_on[cid("Impeachment")] == sid("Watergate")
    # Watergate is melded: no second meld; Nixon may be laid off instead.
    assert not legal(s, LAY.MELD_START + sid("Watergate"))
    assert legal(s, layoff_id("Richard Nixon", "Watergate"))


# ------------------------------------------------------------------ S6


@pytest.mark.parametrize(
    "scandal", ["Watergate", "The Iran-Contra Operations", "Jones v. Clinton", "Monica Madness"]
)
def test_s6_gold_laid_off_on_each_of_its_scandals_credited_to_who_laid_it(scandal: str) -> None:
    s_id = sid(scandal)
    title = DECK.names[DECK.title_of[s_id]]
    cards = DECK.cards_of[s_id]
    bg = next(DECK.names[c] for c in cards if DECK.is_bg[c])
    other = next(
        DECK.names[c]
        for c in cards
        if not DECK.is_bg[c] and not DECK.is_title[c] and not DECK.is_gold[c]
    )
    s = deal(
        {
            "hands": [["Special Prosecutor", "Ted Kennedy"], [title, bg, other, "Gary Hart"]],
            "dealer": 0,
        },
        max_turns=2,
    )
    assert s.to_act == 1
    draw_stock(s)
    start(s, scandal)
    add(s, bg)
    add(s, other)
    finish(s)
    discard(s, "Gary Hart")
    draw_stock(s)
    assert legal(s, layoff_id("Special Prosecutor", scandal))
    for other_scandal in (
        "Watergate",
        "The Iran-Contra Operations",
        "Jones v. Clinton",
        "Monica Madness",
    ):
        if other_scandal != scandal:  # not melded
            assert not legal(s, layoff_id("Special Prosecutor", other_scandal))
    E.apply(s, layoff_id("Special Prosecutor", scandal))
    assert s.placed_by[cid("Special Prosecutor")] == 0
    assert s.placed_on[cid("Special Prosecutor")] == s_id
    last = next(iter(hand(s, 0) - {"Ted Kennedy"}))
    discard(s, last)  # second turn: max_turns=2 ends the hand (S4)
    assert s.done and s.truncated and s.hand_end == E.END_MAX_TURNS
    p1_table = sum(int(DECK.value[cid(c)]) for c in (title, bg, other))
    p1_hand = sum(int(DECK.value[c]) for c in np.flatnonzero(s.hands[1]))
    assert s.hand_scores.tolist() == [20 - 10, p1_table - p1_hand]  # gold: 4 x 5


# ------------------------------------------------------------------ S4


def test_s4_empty_stock_turns_the_pile_over_oldest_on_top() -> None:
    others = [
        c
        for c in DECK.names
        if c not in {"Ted Kennedy", "Gary Hart", "Donna Rice", "Paula Jones", "Fanne Foxe"}
    ]
    s = deal(
        {
            "hands": [["Ted Kennedy", *others[:39]], ["Gary Hart", *others[39:]]],
            "discard": ["Donna Rice", "Paula Jones", "Fanne Foxe"],  # top first
            "stock": [],
        }
    )
    assert legal(s, LAY.DRAW_STOCK) and legal(s, LAY.DRAW_DISCARD)
    draw_stock(s)
    # Fanne Foxe was discarded first: she is the top of the new stock.
    assert hand(s, 0) >= {"Fanne Foxe"}
    assert s.pile == []
    assert [DECK.names[c] for c in s.stock[::-1]] == ["Paula Jones", "Donna Rice"]
    assert s.stock_public and s.known[0, cid("Fanne Foxe")]
    discard(s, "Ted Kennedy")
    draw_stock(s)
    assert "Paula Jones" in hand(s, 1)


def test_s4_blocked_when_nothing_can_be_drawn() -> None:
    names = list(DECK.names)
    s = deal({"hands": [names[:40], names[40:]], "discard": [], "stock": []})
    assert s.done and s.truncated and s.hand_end == E.END_BLOCKED
    assert E.legal_actions(s) == []
    values = DECK.value.astype(int)
    assert s.hand_scores.tolist() == [-int(values[:40].sum()), -int(values[40:].sum())]


def test_s4_max_turns_truncates_and_scores() -> None:
    s = deal({"hands": [["Ted Kennedy", "Spiro Agnew"], ["Gary Hart"]]}, max_turns=3)
    for _ in range(3):
        draw_stock(s)
        E.apply(s, LAY.DISCARD + int(np.flatnonzero(s.hands[s.to_act])[0]))
    assert s.done and s.truncated and s.hand_end == E.END_MAX_TURNS
    assert s.turn == 3
    for p in range(2):
        assert s.hand_scores[p] == -int(DECK.value[s.hands[p]].sum())


# ------------------------------------------------------------------ S8


def test_s8_may_not_meld_the_last_card() -> None:
    s = deal(
        {
            "hands": [["Watergate", "Richard Nixon"], ["Gary Hart"]],
            "discard": ["Donna Rice"],
            "stock": ["The Watergate Hotel"]
            + [
                n
                for n in DECK.names
                if n
                not in {
                    "Watergate",
                    "Richard Nixon",
                    "Gary Hart",
                    "Donna Rice",
                    "The Watergate Hotel",
                }
            ],
        }
    )
    draw_stock(s)
    assert hand(s, 0) == {"Watergate", "Richard Nixon", "The Watergate Hotel"}
    assert not legal(s, LAY.MELD_START + sid("Watergate"))
    with pytest.raises(IllegalActionError, match="S5/S8"):
        start(s, "Watergate")


def test_s8_lay_off_keeps_a_card_and_going_out_ends_the_hand_at_once() -> None:
    s = deal(
        {
            "hands": [
                ["Watergate", "Richard Nixon", "Gerald Ford", "Ted Kennedy"],
                ["Gary Hart", "Donna Rice"],
            ],
            "discard": ["Paula Jones"],
            "stock": ["The Watergate Hotel"]
            + [
                n
                for n in DECK.names
                if n
                not in {
                    "Watergate",
                    "Richard Nixon",
                    "Gerald Ford",
                    "Ted Kennedy",
                    "Gary Hart",
                    "Donna Rice",
                    "Paula Jones",
                    "The Watergate Hotel",
                }
            ],
        }
    )
    draw_stock(s)  # the Hotel
    start(s, "Watergate")
    add(s, "Richard Nixon")
    add(s, "Gerald Ford")
    finish(s)
    # Hand: Ted Kennedy, Watergate Hotel. The Hotel may be laid off (Kennedy stays).
    E.apply(s, layoff_id("The Watergate Hotel", "Watergate"))
    assert hand(s, 0) == {"Ted Kennedy"}
    assert E.legal_actions(s) == [LAY.DISCARD + cid("Ted Kennedy")]
    discard(s, "Ted Kennedy")  # going out
    assert s.done and not s.truncated and s.hand_end == E.END_OUT
    assert s.to_act == 0 and E.legal_actions(s) == []
    # S9: P0 melded 5 + 15 + 15 and laid off 5; P1 holds Hart 10 + Rice 5.
    assert s.hand_scores.tolist() == [40, -15]
    assert s.scores.tolist() == [40, -15]


def test_s8_lay_off_refused_when_it_would_leave_no_card() -> None:
    s = deal(
        {
            "hands": [
                ["Watergate", "Richard Nixon", "Gerald Ford", "Ted Kennedy"],
                ["Gary Hart", "Donna Rice"],
            ],
            "discard": ["The Watergate Hotel"],
        }
    )
    draw_pile(s, 0)  # Hotel: may not be discarded this turn (S7)
    start(s, "Watergate")
    add(s, "Richard Nixon")
    add(s, "Gerald Ford")
    finish(s)
    # Hand: Kennedy + Hotel (forbidden). Laying off the Hotel keeps Kennedy: legal.
    assert legal(s, layoff_id("The Watergate Hotel", "Watergate"))
    assert discards_legal(s) == ["Ted Kennedy"]


# ------------------------------------------------------------------ S9


def test_s9_negative_hand_score_exact() -> None:
    s = deal(
        {
            "hands": [
                ["Watergate", "Richard Nixon", "Gerald Ford", "The Watergate Hotel"],
                ["Ronald Reagan", "Ted Kennedy", "Bill Clinton"],
            ],
            "discard": ["Donna Rice"],
        }
    )
    draw_stock(s)
    start(s, "Watergate")
    add(s, "Richard Nixon")
    add(s, "Gerald Ford")
    add(s, "The Watergate Hotel")
    finish(s)
    last = next(iter(hand(s, 0)))
    discard(s, last)
    assert s.hand_end == E.END_OUT
    # P0: 5 + 15 + 15 + 5 = 40 melded; P1: -(15 + 10 + 15) = -40.
    assert s.hand_scores.tolist() == [40, -40]


def test_s9_game_to_target() -> None:
    preset = {
        "hands": [
            ["Watergate", "Richard Nixon", "Gerald Ford", "The Watergate Hotel"],
            ["Ronald Reagan", "Ted Kennedy"],
        ],
        "dealer": 1,
    }
    s = E.new_game(ScandalConfig(episode="game", target_score=30), seed=3, preset=preset)
    draw_stock(s)
    start(s, "Watergate")
    for c in ("Richard Nixon", "Gerald Ford", "The Watergate Hotel"):
        add(s, c)
    finish(s)
    discard(s, next(iter(hand(s, 0))))
    assert s.game_over and s.done and not s.truncated
    assert s.scores.tolist() == [40, -25]
    assert E.winners(s) == [0]
    # Below the target the next hand is dealt at once, the deal rotating (S2).
    s2 = E.new_game(ScandalConfig(episode="game", target_score=500), seed=3, preset=preset)
    draw_stock(s2)
    start(s2, "Watergate")
    for c in ("Richard Nixon", "Gerald Ford", "The Watergate Hotel"):
        add(s2, c)
    finish(s2)
    discard(s2, next(iter(hand(s2, 0))))
    assert not s2.done and s2.hand_number == 1 and s2.dealer == 0 and s2.to_act == 1
    assert s2.step_scores.tolist() == [40, -25] and s2.scores.tolist() == [40, -25]
    assert s2.hand_counts == [10, 10]


# ------------------------------------------------------------------ S2


@pytest.mark.parametrize(("players", "size"), [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_s2_hand_sizes_and_deal(players: int, size: int) -> None:
    s = E.new_game(ScandalConfig(num_players=players), seed=11)
    assert s.hand_counts == [size] * players
    assert len(s.pile) == 1
    assert len(s.stock) == 80 - players * size - 1
    E.check_cards(s)
    # The deal is one card at a time from the dealer's left, from a seeded shuffle.
    rng = np.random.default_rng(11)
    dealer = int(rng.integers(players))
    order = rng.permutation(80)
    assert s.dealer == dealer
    assert s.to_act == (dealer + 1) % players
    for i in range(players * size):
        assert s.hands[(dealer + 1 + i) % players, order[i]]
    assert s.pile == [int(order[players * size])]
    assert s.stock[-1] == int(order[players * size + 1])


@pytest.mark.parametrize("players", [2, 3, 6])
def test_s2_dealer_rotation(players: int) -> None:
    s = E.new_game(ScandalConfig(num_players=players), seed=5)
    dealers = [s.dealer]
    for _ in range(2 * players):
        E.new_hand(s)
        dealers.append(s.dealer)
        assert s.to_act == (s.dealer + 1) % players
    assert dealers == [(dealers[0] + i) % players for i in range(2 * players + 1)]


# ------------------------------------------------------------------ presets


@pytest.mark.parametrize(
    ("preset", "match"),
    [
        ({"hands": [["Ted Kennedy"]]}, "must list 2 hands"),
        ({"hands": [["Ted Kennedy"], ["Nobody"]]}, "unknown card 'Nobody'"),
        ({"hands": [["Ted Kennedy"], ["Ted Kennedy"]]}, "duplicated"),
        ({"hands": [["Ted Kennedy"], []]}, "hand 1 is empty"),
        (
            {"hands": [["Ted Kennedy"], ["Gary Hart"]], "stock": ["Donna Rice"], "discard": []},
            "unaccounted",
        ),
        ({"hands": [["Ted Kennedy"], ["Gary Hart"]], "dealer": 2}, "dealer"),
        ({"hands": [["Ted Kennedy"], ["Gary Hart"]], "seats": 2}, "unknown preset key"),
        ({"discard": []}, "needs 'hands'"),
    ],
)
def test_preset_errors(preset: dict[str, Any], match: str) -> None:
    with pytest.raises(PresetError, match=match):
        E.new_game(ScandalConfig(), seed=0, preset=preset)


def test_preset_by_id_and_names_are_equivalent() -> None:
    a = deal({"hands": [["Ted Kennedy", "Gary Hart"], ["Donna Rice"]]})
    b = deal({"hands": [[cid("Ted Kennedy"), cid("Gary Hart")], [cid("Donna Rice")]]})
    assert E.to_json(a) == E.to_json(b)
