"""Differential: the heuristic's engine-state path (`ScumPolicy.choose_state`, what the
ISMCTS and guided-search rollouts play) against the mask path the agents use.

`choose_state` lists the legal plays straight from the hand (`plays_from_hand`)
instead of building the action mask (J5, J6, and P1's jokers at Party tables);
it must give the very same action in every state a game reaches, under every
rule variant, or the searches would roll out a different heuristic from the
one they are benchmarked against.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardsuite.agents.baselines.scum import ScumParams, ScumPolicy, view_from_state
from scum_env import engine as E
from scum_env.config import ScumConfig
from scum_env.party.state import table_rules
from scum_env.rules import Rules, scum_rules

RULES: dict[str, Rules] = {
    "4p": scum_rules(ScumConfig()),
    "6p carousel": scum_rules(ScumConfig(num_players=6, carousel=True)),
    "7p two decks": scum_rules(ScumConfig(num_players=7)),
    "5p wild queen spanish": scum_rules(
        ScumConfig(num_players=5, wild_queen=True, trade_rules="spanish")
    ),
    "4p colour clash": scum_rules(ScumConfig(color_clash=True)),  # the mask path
    "party table of 5": table_rules(5),
    "party table of 8": table_rules(8),
}
PARAMS = [ScumParams(), ScumParams(break_min_rest=0, spend_specials=False, special_top_count=0)]


def _mask_plays(policy: ScumPolicy, state: E.State) -> list[tuple[int, int, int]]:
    return policy._legal_plays(E.legal_mask(state))


def _check_game(rules: Rules, seed: int, params: ScumParams) -> tuple[int, int]:
    """Play a game by random legal moves; compare both paths at every decision.

    Returns the decisions compared and how many of them were J5 give-backs.
    """
    policy = ScumPolicy(rules, params)
    state = E.new_game(rules, seed=seed, trade=seed % 2 == 1)  # odd seeds open with J5's trades
    rng = np.random.default_rng(seed)
    checked = traded = 0
    for _ in range(600):
        if state.phase == E.OVER:
            break
        if state.phase == E.PLAY and not rules.colour_mode:
            hand = state.hands[state.to_act].tolist()
            direct = policy.plays_from_hand(hand, state.top_count, state.top_slot)
            assert direct == _mask_plays(policy, state)
        assert policy.choose_state(state) == policy.choose(view_from_state(state))
        checked += 1
        traded += state.phase == E.TRADE
        legal = np.flatnonzero(E.legal_mask(state))
        E.apply(state, int(legal[rng.integers(legal.size)]))
    return checked, traded


@pytest.mark.parametrize("name", list(RULES))
@pytest.mark.parametrize("params", PARAMS, ids=["default", "never-break"])
def test_state_path_chooses_as_the_mask_path(name: str, params: ScumParams) -> None:
    """Scripted seeds under each variant: identical plays and choices (J5, J6, J9, P1)."""
    results = [_check_game(RULES[name], seed, params) for seed in range(4)]
    assert sum(checked for checked, _ in results) > 100
    if not name.startswith("party"):  # Party's gifts (P5) are forced: no give-back choice
        assert sum(traded for _, traded in results) > 0


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(list(RULES)), seed=st.integers(0, 2**31 - 1))
def test_state_path_property(name: str, seed: int) -> None:
    """Any seed: the two paths never disagree."""
    _check_game(RULES[name], seed, PARAMS[0])


def test_following_a_pair_lists_the_single_special_first() -> None:
    """J6: over a pair, a lone President (action 1 + slot) beats it and is listed
    before the higher pairs, as the mask's action order has it."""
    rules = RULES["4p"]
    policy = ScumPolicy(rules)
    k = rules.num_slots
    special = int(rules.special_slots[0])
    hand = [0] * k
    hand[3], hand[5], hand[special] = 2, 1, 1
    plays = policy.plays_from_hand(hand, 2, 1)
    assert plays[0] == (1 + special, 1, special)
    assert plays[1:] == [(1 + k + 3, 2, 3)]  # the single 5 cannot follow a pair
    assert policy.plays_from_hand(hand, 2, 3) == [(1 + special, 1, special)]
