"""Saved Scum and Scum Party states: every bad field is a StateError naming it (issue 12).

``reset(options={"state": ...})``, ``from_dict`` and ``from_json`` refuse a
state whose fields are of the wrong type or range or disagree with each other,
and leave the env as it was; a state that loads plays on like a real one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from cardsuite.errors import CardsuiteError, StateError
from scum_env import engine as E
from scum_env import scum_party_v0, scum_v0
from scum_env.party import engine as PE
from tests.malformed.common import watchdog
from tests.malformed.strategies import mutated
from tests.scum.scripted import table
from tests.scum.test_observation_space import check_env


def saved_play() -> dict[str, Any]:
    """A 5-player game in mid-round: player_0 led a 3, player_1 is to act."""
    state = table(["3 4 9", "7 8 10", "5 11 12", "6 9", "2 10"])
    E.apply(state, state.rules.play_action(1, state.rules.cards.slot("3")))
    return E.to_dict(state)


def saved_trade() -> dict[str, Any]:
    """A 5-player game waiting for the President's give-back (J5)."""
    state = table(["3 4 9", "7 8 10", "5 11 12", "6 9", "2 10 P"], trade=True)
    assert state.phase == E.TRADE
    return E.to_dict(state)


def load(data: Any) -> E.State:
    return E.from_dict(table(["3", "4", "5", "6", "7"]).rules, data)


def changed(base: dict[str, Any], **fields: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(base))
    data.update(fields)
    return data


def test_valid_states_round_trip() -> None:
    for base in (saved_play(), saved_trade()):
        assert E.to_dict(load(json.loads(json.dumps(base)))) == base


BAD_PLAY: list[tuple[dict[str, Any], str]] = [
    ({"top_count": 99}, r"field 'top_count' must be from 0 to 4"),
    ({"top_count": 2}, r"field 'top_cards' must hold top_count cards"),
    ({"top_count": True}, r"field 'top_count' must be an integer, got True"),
    ({"to_act": 1.5}, r"field 'to_act' must be an integer, got 1.5"),
    ({"to_act": 0}, r"field 'to_act' has had its chance this round"),
    ({"top_player": 9}, r"field 'top_player' must be from -1 to 4"),
    ({"top_player": 2}, r"field 'top_cards' must be cards the top player played"),
    ({"finish": [9]}, r"field 'finish' must be from 0 to 4"),
    ({"finish": [1]}, r"field 'finish' must list exactly the players without cards"),
    ({"phase": 0}, r"field 'phase' is 'trade' but no give-back \(J5\) is pending"),
    ({"phase": 7}, r"field 'phase' must be from 0 to 2"),
    ({"game_over": 1}, r"field 'game_over' must be true or false"),
    ({"scores": [0.5, 0, 0, 0, 0]}, r"field 'scores' must be an integer, got 0.5"),
    ({"scores": [-1, 0, 0, 0, 0]}, r"field 'scores' must be from 0"),
    ({"scores": [40, 0, 0, 0, 0]}, r"field 'game_over' must say whether a total reached"),
    ({"ncards": [3, 3, 3, 2, 2]}, r"field 'ncards' must count the cards in each hand"),
    ({"ncards": [-1, 3, 3, 2, 2]}, r"field 'ncards' must be from 0"),
    ({"order": [0, 1, 2, 3, 3]}, r"preset order must list each of the 5 players once"),
    ({"pending": [["high", -1, 0, 2]]}, r"field 'pending' must be the last steps"),
    ({"rng": {"bit_generator": "MT19937"}}, r"field 'rng' must be the state dict of a PCG64"),
    ({"last_points": [1, 1, 1, 1, 1]}, r"field 'last_points' must be all 0 or the J8 points"),
    ({"series": 0}, r"field 'series' must be from 1"),
    ({"extra": 1}, r"fields unknown \['extra'\]"),
]


@pytest.mark.parametrize(("fields", "words"), BAD_PLAY)
def test_bad_fields_are_named(fields: dict[str, Any], words: str) -> None:
    with pytest.raises(StateError, match=words):
        load(changed(saved_play(), **fields))


def test_negative_counts_and_cards_beyond_the_pack_are_named() -> None:
    base = saved_play()
    hands = [row[:] for row in base["hands"]]
    hands[0][2] = -1
    with pytest.raises(StateError, match=r"field 'hands' must be from 0 to 4, got -1"):
        load(changed(base, hands=hands))
    played = base["played"][:]
    played[2] = 4  # four 3s played and none by anyone: the counts do not add up
    with pytest.raises(StateError, match=r"field 'played' must be the sum of played_by"):
        load(changed(base, played=played))
    hands = [row[:] for row in base["hands"]]
    hands[1][2] = 4  # 4 more 3s in a hand: 5 with the one played, the pack has 4 (J1)
    ncards = [sum(row) for row in hands]
    with pytest.raises(StateError, match=r"field 'hands' with the played cards hold more 3"):
        load(changed(base, hands=hands, ncards=ncards))


def test_a_player_to_act_with_no_cards_is_named() -> None:
    base = saved_play()  # player_0 made the top play; player_1 is to act
    hands = [row[:] for row in base["hands"]]
    hands[1] = [0] * len(hands[1])
    ncards = [sum(row) for row in hands]
    with pytest.raises(StateError, match=r"field 'finish' must list exactly the players"):
        load(changed(base, hands=hands, ncards=ncards))
    with pytest.raises(StateError, match=r"field 'to_act' player_1 has no cards"):
        load(changed(base, hands=hands, ncards=ncards, finish=[1]))


def test_phase_inconsistent_with_the_pending_trade_is_named() -> None:
    base = saved_trade()
    with pytest.raises(StateError, match=r"field 'phase' must be 'trade' while trade steps"):
        load(changed(base, phase=1))
    with pytest.raises(StateError, match=r"field 'to_act' must be the player who gives back"):
        load(changed(base, to_act=3))
    with pytest.raises(StateError, match=r"field 'give_left' must be from 0 to 2"):
        load(changed(base, give_left=9))


@pytest.mark.parametrize(
    "text", ["{oops", "[1, 2]", "null", '"x"', "[" * 50_000, "1" * 5000, "{}", "x" * 6_000_000]
)
def test_not_a_state_is_a_state_error(text: str) -> None:
    with pytest.raises(StateError):
        E.from_json(table(["3", "4", "5", "6", "7"]).rules, text)


GAMES: dict[str, Callable[[], Any]] = {
    "scum": lambda: scum_v0.raw_env(num_players=5, trade_rules="spanish", carousel=True),
    "scum_party": lambda: scum_party_v0.raw_env(num_players=11, num_hands=2),
}


def played_env(game: str, seed: int, steps: int) -> Any:
    env = GAMES[game]()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if all(env.terminations.values()):
            env.reset()  # the next series (Scum: with trades) or tournament
        env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
    return env


def saved_env_state(env: Any) -> dict[str, Any]:
    engine = PE if env.metadata["name"] == "scum_party_v0" else E
    return dict(engine.to_dict(env.game))


def snapshot(env: Any) -> tuple[Any, ...]:
    return (env.agent_selection, env.observe(env.agent_selection)["observation"].tobytes(),
            env.state().tobytes(), json.dumps(saved_env_state(env)))  # fmt: skip


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("steps", [3, 40])
def test_mutated_states_give_named_errors_or_play_on(game: str, steps: int) -> None:
    """Hostile changes deep in a valid state: a named error and an unchanged env, or a game
    that plays to its end with every observation in its space, never a hang."""
    base = saved_env_state(played_env(game, 5, steps))

    @settings(max_examples=120, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
    @given(mutated(base))
    def run(state: Any) -> None:
        env = played_env(game, 1, 4)
        before = snapshot(env)
        with watchdog():
            try:
                env.reset(options={"state": json.dumps(state)})
            except CardsuiteError as err:
                assert "\n" not in str(err)
                assert snapshot(env) == before, f"{err} left the env changed"
                return
            rng = np.random.default_rng(0)
            for step in range(3000):
                check_env(env, f"loaded step {step}")
                if all(env.terminations.values()):
                    return
                env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
            raise AssertionError("a loaded state did not end in 3000 steps")

    run()
