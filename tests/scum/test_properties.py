"""Property tests over seeds, player counts and option combinations (J1-J9)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardsuite.errors import IllegalActionError
from scum_env import engine as E
from scum_env.knowledge import caps, known_cards, resample_hidden
from tests.scum.scripted import rules_for

SETTINGS = settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)

games = st.fixed_dictionaries(
    {
        "num_players": st.integers(4, 12),
        "carousel": st.booleans(),
        "color_clash": st.booleans(),
        "wild_queen": st.booleans(),
        "trade_rules": st.sampled_from(["english", "spanish"]),
    }
)


def reference_mask(state: E.State) -> np.ndarray:
    """The legal actions as the rulings state them, computed independently of the engine."""
    rules = state.rules
    cards = rules.cards
    mask = np.zeros(rules.num_actions, dtype=np.int8)
    if state.phase == E.OVER:
        return mask
    hand = state.hands[state.to_act]
    if state.phase == E.TRADE:
        for s in range(cards.size):
            if hand[s]:
                mask[rules.give_action(s)] = 1  # J5: any card in hand
        return mask
    leading = state.top_count == 0
    if not leading:
        mask[0] = 1  # J6: passing is always allowed when following
    for s in range(cards.size):
        if not hand[s]:
            continue
        same_rank_at_or_below = sum(
            int(hand[u]) for u in range(s + 1) if cards.rank[u] == cards.rank[s]
        )
        most = same_rank_at_or_below if rules.colour_mode else int(hand[s])
        for c in range(1, most + 1):
            if leading:
                ok = True
            elif c == state.top_count:
                ok = s > state.top_slot  # higher rank, or same rank and better best colour
            else:  # a single President / Wild President beats a set of any size
                ok = c == 1 and cards.rank[s] >= 12 and s > state.top_slot
            if ok:
                mask[rules.play_action(c, s)] = 1
    return mask


def check_invariants(state: E.State) -> None:
    rules = state.rules
    np.testing.assert_array_equal(state.hands.sum(axis=0) + state.played, rules.deck)
    assert state.hands.min() >= 0
    assert state.ncards == [int(v) for v in state.hands.sum(axis=1)]
    np.testing.assert_array_equal(state.played_by.sum(axis=0), state.played)
    if state.phase != E.OVER:
        assert state.ncards[state.to_act] > 0
        mask = E.legal_mask(state)
        assert mask.any(), "the agent to act must have a legal action"
        np.testing.assert_array_equal(mask, reference_mask(state))


def playout(config: dict, seed: int, series: int = 2):
    """Yield every state of a random game of ``series`` series (states are live)."""
    rules = rules_for(**config)
    state = E.new_game(rules, seed)
    rng = np.random.default_rng(seed)
    for done in range(series):
        while state.phase != E.OVER:
            yield state
            E.apply(state, int(rng.choice(E.legal_actions(state))))
        yield state
        if done + 1 < series and not state.game_over:
            E.continue_game(state)


@SETTINGS
@given(config=games, seed=st.integers(0, 2**32 - 1))
def test_cards_accounted_and_mask_matches_the_rulings_at_every_step(
    config: dict, seed: int
) -> None:
    steps = 0
    for state in playout(config, seed):
        check_invariants(state)
        steps += 1
    assert steps > 10


@SETTINGS
@given(config=games, seed=st.integers(0, 2**32 - 1))
def test_mask_equals_the_actions_apply_accepts(config: dict, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for i, state in enumerate(playout(config, seed, series=2)):
        if i % 61 or state.phase == E.OVER:
            continue
        mask = E.legal_mask(state)
        before = E.to_json(state)
        for action in rng.choice(state.rules.num_actions, size=40, replace=False).tolist() + [
            int(a) for a in np.flatnonzero(mask)
        ]:
            copy = E.clone(state)
            try:
                E.apply(copy, action)
                accepted = True
            except IllegalActionError as err:
                accepted = False
                assert f"illegal action {action}" in str(err)
                assert E.to_json(copy) == before  # a refused action changes nothing
            assert accepted == bool(mask[action]), (action, state.rules.describe_action(action))
        for bad in (-1, state.rules.num_actions):
            try:
                E.apply(state, bad)
                raise AssertionError("out-of-range action accepted")
            except IllegalActionError as err:
                assert "action ids run from 0" in str(err)
        assert E.to_json(state) == before


def trace_of(config: dict, seed: int) -> tuple[list[tuple[int, int, bytes]], str]:
    steps, last = [], None
    for state in playout(config, seed):
        steps.append((state.to_act, state.phase, state.hands.tobytes()))
        last = state
    assert last is not None
    return steps, E.to_json(last)


@SETTINGS
@given(config=games, seed=st.integers(0, 2**32 - 1))
def test_same_seed_and_actions_give_the_same_game(config: dict, seed: int) -> None:
    a_steps, a_last = trace_of(config, seed)
    b_steps, b_last = trace_of(config, seed)
    assert a_steps == b_steps and a_last == b_last


@SETTINGS
@given(config=games, seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 400))
def test_clone_and_json_round_trips_are_exact_including_the_generator(
    config: dict, seed: int, cut: int
) -> None:
    rules = rules_for(**config)
    state = E.new_game(rules, seed)
    rng = np.random.default_rng(seed)
    for _ in range(cut):
        if state.phase == E.OVER:
            break
        E.apply(state, int(rng.choice(E.legal_actions(state))))
    text = E.to_json(state)
    restored = E.from_json(rules, text)
    copy = E.clone(state)
    assert E.to_json(restored) == text == E.to_json(copy)
    # play all three on with the same actions, through the next deal
    follow = np.random.default_rng(seed + 1)
    copies = [state, restored, copy]
    for _ in range(2):
        while state.phase != E.OVER:
            action = int(follow.choice(E.legal_actions(state)))
            for s in copies:
                E.apply(s, action)
        assert len({E.to_json(s) for s in copies}) == 1
        if state.game_over:
            break
        for s in copies:
            E.continue_game(s)  # the next deal draws from the restored generator
        assert len({E.to_json(s) for s in copies}) == 1
    assert state.phase == E.OVER or state.series >= 2


def cap_bound_holds(state: E.State, hands: np.ndarray, observer: int) -> None:
    """A player forced to give ``observer`` its highest cards held nothing higher then:
    now it holds at most as many cards above that cap as it received since."""
    cap, _free = caps(state, observer)
    k = state.rules.num_slots
    for p in range(state.num_players):
        if p == observer or cap[p] >= k - 1:
            continue
        moment = max(
            i for i, (g, r, _s, f) in enumerate(state.trade_log) if f and g == p and r == observer
        )
        received_after = sum(1 for g, r, _s, _f in state.trade_log[moment + 1 :] if r == p)
        assert int(hands[p, cap[p] + 1 :].sum()) <= received_after, (p, cap[p])


@SETTINGS
@given(config=games, seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 200))
def test_resampled_hands_agree_with_everything_the_observer_knows(
    config: dict, seed: int, cut: int
) -> None:
    rules = rules_for(**config)
    state = E.new_game(rules, seed)
    rng = np.random.default_rng(seed)
    random_series = 0
    while random_series < 1:  # finish a series so that the second one trades
        E.apply(state, int(rng.choice(E.legal_actions(state))))
        if state.phase == E.OVER:
            random_series += 1
    E.continue_game(state)
    for _ in range(cut):
        if state.phase == E.OVER:
            break
        E.apply(state, int(rng.choice(E.legal_actions(state))))
    for observer in range(rules.num_players):
        known = known_cards(state, observer)
        assert (known <= state.hands).all(), "the real hands must be a possible world"
        cap_bound_holds(state, state.hands, observer)
        for draw in range(3):
            sample = resample_hidden(state, observer, np.random.default_rng(draw))
            np.testing.assert_array_equal(sample.hands[observer], state.hands[observer])
            assert [int(v) for v in sample.hands.sum(axis=1)] == state.ncards
            np.testing.assert_array_equal(sample.played, state.played)
            np.testing.assert_array_equal(sample.played_by, state.played_by)
            np.testing.assert_array_equal(sample.hands.sum(axis=0) + sample.played, rules.deck)
            assert (sample.hands >= known).all()
            cap_bound_holds(state, sample.hands, observer)
            check_invariants(sample)
