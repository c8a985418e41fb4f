"""Careless calls of the env API: a named error naming the argument, the state unchanged.

Issue 12, for every game family through the shared AEC base
([`cardsuite.aec.CardGameEnv`][cardsuite.aec.CardGameEnv]): bad seeds, options, actions and agent
names, and calls out of order.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardsuite.errors import IllegalActionError, PresetError, UsageError
from scandal_env import scandal_v0
from scum_env import scum_party_v0, scum_v0
from tests.malformed.common import named_or_ok

FACTORIES: dict[str, Callable[..., Any]] = {
    "scum": lambda **kw: scum_v0.raw_env(**kw),
    "scum_party": lambda **kw: scum_party_v0.raw_env(**kw),
    "scandal": lambda **kw: scandal_v0.raw_env(**kw),
    "scum/env": lambda **kw: scum_v0.env(**kw),
}


@pytest.fixture(params=sorted(FACTORIES))
def make(request: pytest.FixtureRequest) -> Any:
    return FACTORIES[request.param]


def snapshot(env: Any) -> tuple[Any, ...]:
    """What a failed call must leave unchanged."""
    obs = env.observe(env.agent_selection)
    return (
        env.agent_selection,
        obs["observation"].tobytes(),
        obs["action_mask"].tobytes(),
        dict(env._cumulative_rewards),
        env.state().tobytes(),
    )


@pytest.mark.parametrize("seed", [-1, 1.5, "abc", True, [1], 2.0])
def test_bad_seeds(make: Any, seed: Any) -> None:
    env = make()
    env.reset(seed=1)
    before = snapshot(env)
    with pytest.raises(UsageError, match=r"^reset: seed must be None or a non-negative integer"):
        env.reset(seed=seed)
    assert snapshot(env) == before


def test_numpy_integer_seeds_work(make: Any) -> None:
    env = make()
    env.reset(seed=np.int64(3))
    a = snapshot(env)
    env.reset(seed=3)
    assert snapshot(env) == a


def test_options_must_be_a_mapping(make: Any) -> None:
    env = make()
    env.reset(seed=0)
    before = snapshot(env)
    with pytest.raises(PresetError, match="reset options must be a dict"):
        env.reset(seed=0, options=[1, 2])
    assert snapshot(env) == before


@pytest.mark.parametrize(
    "action", [float("inf"), float("-inf"), float("nan"), 1.5, True, False, "3", [1], None, 10**30]
)
def test_bad_actions(make: Any, action: Any) -> None:
    env = make()
    env.reset(seed=2)
    before = snapshot(env)
    if action == 10**30:  # an int, but no action id: illegal (penalised by env())
        if env.unwrapped._illegal_mode == "raise":
            with pytest.raises(IllegalActionError, match="action ids run from 0"):
                env.step(action)
            assert snapshot(env) == before
        return
    with pytest.raises(IllegalActionError, match="is not an integer action id"):
        env.step(action)
    assert snapshot(env) == before


def test_integral_floats_and_0d_arrays_are_action_ids(make: Any) -> None:
    env = make()
    env.reset(seed=2)
    legal = int(np.flatnonzero(env.legal_mask())[0])
    twin = make()
    twin.reset(seed=2)
    env.step(float(legal))
    twin.step(np.array(legal))
    assert snapshot(env) == snapshot(twin)


def test_unknown_agents(make: Any) -> None:
    env = make()
    env.reset(seed=0)
    for call in (env.observe, env.observation_space, env.action_space):
        with pytest.raises(UsageError, match=r"unknown agent 'player_99'; agents are player_0\.\."):
            call("player_99")
    with pytest.raises(UsageError, match="unknown agent"):
        env.observe(["player_0"])  # unhashable


def test_calls_out_of_order(make: Any) -> None:
    env = make()
    for call in (lambda: env.last(), lambda: env.last(observe=False), lambda: env.step(0)):
        with pytest.raises(UsageError, match=r"call reset\(\) before"):
            call()
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    while not all(env.terminations[a] or env.truncations[a] for a in env.agents):
        env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
    with pytest.raises(UsageError, match=r"the episode is over; player_\d+ must step with None"):
        env.step(0)
    while env.agents:
        env.step(None)
    with pytest.raises(UsageError, match="every agent has left; call reset"):
        env.step(None)
    with pytest.raises(UsageError, match="every agent has left; call reset"):
        env.last()
    env.reset(seed=4)  # usable again
    assert env.agents


any_action = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=5),
    st.none(),
    st.lists(st.integers(), max_size=2),
)


@settings(max_examples=200, deadline=None)
@given(
    game=st.sampled_from(["scum", "scum_party", "scandal"]),
    actions=st.lists(any_action, max_size=20),
)
def test_any_action_sequence_gives_only_named_errors(game: str, actions: list[Any]) -> None:
    env = FACTORIES[game]()
    env.reset(seed=5)
    for action in actions:
        if not env.agents:
            break
        before = snapshot(env) if env.agents and not env.unwrapped._over else None
        err = named_or_ok(partial(env.step, action))
        if err is not None and before is not None:
            assert snapshot(env) == before, f"{type(err).__name__} changed the state"


def test_a_refused_action_keeps_the_rewards_of_the_last_step() -> None:
    """Scum Party pays after every hand: a refused action must not clear those rewards."""
    env = scum_party_v0.raw_env(num_players=5, num_hands=2)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not any(env.rewards.values()):
        env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
    rewards, returns = dict(env.rewards), dict(env._cumulative_rewards)
    with pytest.raises(IllegalActionError):
        env.step(-1)
    assert env.rewards == rewards and env._cumulative_rewards == returns
