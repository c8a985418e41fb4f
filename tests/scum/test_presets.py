"""Preset deals and seatings: every bad field is a PresetError naming it (issue 12, J3, J5).

Nothing is cast silently (``0.5`` is not player 0, ``"0123"`` is not four
players, ``True`` is not 1 point), and a rejected reset leaves the env as it was.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardsuite.errors import CardsuiteError, PresetError
from scum_env import engine as E
from scum_env import scum_party_v0, scum_v0
from tests.scum.scripted import hand, table

SCUM_BAD = [
    ({"roles": [0.5, 1, 2, 3]}, r"preset roles must list each of the 4 players once"),
    ({"roles": "0123"}, r"preset roles must list each"),
    ({"roles": [True, False, 2, 3]}, r"preset roles must list each"),
    ({"roles": 3}, r"preset roles must list each"),
    ({"scores": [True, 0, 0, 0]}, r"preset scores must be 4 integers from 0 to 39"),
    ({"scores": 5}, r"preset scores must be 4 integers"),
    ({"scores": [1.0, 0, 0, 0]}, r"preset scores must be 4 integers"),
    ({"scores": [-1, 0, 0, 0]}, r"preset scores must be 4 integers from 0"),
    ({"scores": [2**70, 0, 0, 0]}, r"preset scores must be 4 integers"),
    ({"hands": "3 5 7 9"}, r"preset hands must be a list of 4 card lists"),
    ({"hands": [["3"], "5", ["7"], ["9"]]}, r"preset hand of player_1 must be a non-empty list"),
    ({"hands": [["3"], [5], ["7"], ["9"]]}, r"preset hand of player_1: a card name is text"),
    ({"hands": [["3"], ["5"] * 2000, ["7"], ["9"]]}, r"preset hand of player_1 holds 2000 cards"),
    ({"trade": 1}, r"'trade' must be True or False"),
    ({"state": 5}, r"'state' must be the JSON text of a saved state"),
]


def snapshot(env: Any) -> tuple[Any, ...]:
    return (env.agent_selection, env.observe(env.agent_selection)["observation"].tobytes(),
            env.state().tobytes(), E.to_json(env.game), env._reseeded)  # fmt: skip


@pytest.mark.parametrize(("options", "words"), SCUM_BAD)
def test_bad_scum_presets_name_the_field_and_change_nothing(options: dict, words: str) -> None:
    env = scum_v0.raw_env(num_players=4)
    env.reset(seed=1)
    before = snapshot(env)
    with pytest.raises(CardsuiteError, match=words):
        env.reset(seed=2, options=options)
    assert snapshot(env) == before


PARTY_BAD = [
    ({"seating": [0.5, 1, 2, 3, 4]}, r"preset seating must list each of the 5 players once"),
    ({"seating": "01234"}, r"preset seating must"),
    ({"seating": [[0, 1, 2, 3, True]]}, r"preset seating must list each"),
    ({"scores": [True, 0, 0, 0, 0]}, r"preset scores must be 5 integers"),
    ({"scores": 5}, r"preset scores must be 5 integers"),
    ({"scores": [2**70, 0, 0, 0, 0]}, r"preset scores must be 5 integers"),
    ({"hands": [["3"], ["5"], ["7"], ["9"], [10]]}, r"player_4: a card name is text"),
    ({"trade": "no"}, r"'trade' must be True or False"),
]


@pytest.mark.parametrize(("options", "words"), PARTY_BAD)
def test_bad_party_presets_name_the_field(options: dict, words: str) -> None:
    env = scum_party_v0.raw_env(num_players=5)
    env.reset(seed=1)
    before = env.state().tobytes()
    with pytest.raises(PresetError, match=words):
        env.reset(seed=2, options=options)
    assert env.state().tobytes() == before


def test_numpy_integers_are_whole_numbers() -> None:
    state = table(["3", "5", "7", "9"], roles=list(np.arange(4)), scores=list(np.zeros(4, int)))
    assert state.order == [0, 1, 2, 3]


def test_j5_president_left_without_cards_is_out_and_the_next_seat_leads() -> None:
    """Preset hands only: the Scum's single card goes up, the President gives two back (J5);
    a President left with no cards has gone out, and the Vice President leads (J6)."""
    state = table(["2", "3 4", "5", "6", "W"], trade=True)
    E.apply(state, state.rules.give_action(state.rules.cards.slot("2")))
    E.apply(state, state.rules.give_action(state.rules.cards.slot("W")))
    assert hand(state, 0) == "-" and hand(state, 4) == "2 W"
    E.apply(state, state.rules.give_action(state.rules.cards.slot("3")))  # VP gives back (J5)
    assert state.phase == E.PLAY and state.finish == [0] and state.to_act == 1


HOSTILE = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 7), st.floats(allow_nan=True), st.text(max_size=4),
    st.lists(st.one_of(st.integers(-1, 5), st.floats(-1, 5), st.booleans(), st.text(max_size=2)),
             max_size=6),
)  # fmt: skip


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(st.dictionaries(st.sampled_from(["roles", "scores", "hands", "trade"]), HOSTILE))
def test_hostile_presets_give_named_errors_or_a_playable_game(options: dict) -> None:
    env = scum_v0.raw_env(num_players=4)
    env.reset(seed=1)
    before = snapshot(env)
    try:
        env.reset(seed=2, options=options)
    except CardsuiteError:
        assert snapshot(env) == before
        return
    rng = np.random.default_rng(0)
    for _ in range(500):
        if all(env.terminations.values()):
            return
        env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
    raise AssertionError("a preset game did not end")
