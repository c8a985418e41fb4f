"""Saved states from a hostile or careless user: a named error, or a game that plays on.

``reset(options={"state": text})`` of every game gets a valid saved state
with hostile changes deep inside (`tests.malformed.strategies.mutated`).
It must either raise a named error and leave the env as it was, or load a
state that then plays: random legal moves never raise, observations stay in
their space, and nothing hangs. The engines' owners validate the fields; this
suite only uses the public entry point.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardsuite.agents.arena.records import engine_state_json
from scandal_env import scandal_v0
from scum_env import scum_party_v0, scum_v0
from tests.fuzz.fuzz import check_obs
from tests.malformed.common import named_or_ok, watchdog
from tests.malformed.strategies import mutated

GAMES: dict[str, Callable[[], Any]] = {
    "scum": lambda: scum_v0.raw_env(num_players=5),
    "scum_party": lambda: scum_party_v0.raw_env(num_players=5, num_hands=2),
    "scandal": lambda: scandal_v0.raw_env(num_players=3),
}
PLAY_STEPS = (
    400  # after loading: a hand of any game ends well within this, or the turn limit cuts it
)


def played(game: str, seed: int, steps: int) -> Any:
    env = GAMES[game]()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if all(env.terminations[a] or env.truncations[a] for a in env.agents):
            break
        env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
    return env


def saved(game: str) -> dict[str, Any]:
    return dict(json.loads(engine_state_json(played(game, 3, 6)) or "{}"))


def snapshot(env: Any) -> tuple[Any, ...]:
    obs = env.observe(env.agent_selection)
    return (env.agent_selection, obs["observation"].tobytes(), env.state().tobytes(),
            engine_state_json(env))  # fmt: skip


def check_loaded_state_plays(env: Any) -> None:
    rng = np.random.default_rng(0)
    for step in range(PLAY_STEPS):
        if all(env.terminations[a] or env.truncations[a] for a in env.agents):
            return
        check_obs(env, env.agent_selection, f"loaded state step {step}", acting=True)
        env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))


def check_state(game: str, state: Any) -> None:
    env = played(game, 1, 4)
    before = snapshot(env)
    err = named_or_ok(lambda: env.reset(options={"state": json.dumps(state)}))
    if err is not None:
        assert snapshot(env) == before, f"{type(err).__name__} left the env changed: {err}"
        return
    with watchdog():
        check_loaded_state_plays(env)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_unchanged_state_loads_and_plays(game: str) -> None:
    check_state(game, saved(game))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_not_json_or_not_a_state(game: str) -> None:
    for text in ("{oops", "[1, 2]", "null", '"x"', "[" * 50_000):
        env = played(game, 1, 4)
        before = snapshot(env)
        assert named_or_ok(partial(env.reset, options={"state": text})) is not None
        assert snapshot(env) == before


@pytest.mark.parametrize("game", sorted(GAMES))
def test_hostile_saved_states(game: str) -> None:
    base = saved(game)

    @settings(max_examples=150, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
    @given(mutated(base))
    def run(state: Any) -> None:
        check_state(game, state)

    run()


NAMED_FIELDS = ["meld_owner", "top_count", "top_player", "to_act", "turn", "duty", "finish",
                "current", "phase", "ncards", "scores", "hand", "dealer", "forbidden"]  # fmt: skip


@pytest.mark.parametrize("game", sorted(GAMES))
def test_named_fields_out_of_range(game: str) -> None:
    """The issue's examples: top_count=99, duty=999, meld_owner=9, finish out of range..."""
    base = saved(game)
    keys = [k for k in NAMED_FIELDS if k in base]

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(st.sampled_from(keys), st.sampled_from([-1, 9, 99, 999, 2**40]))
    def run(key: str, value: int) -> None:
        state = json.loads(json.dumps(base))
        old = state[key]
        state[key] = [value] * len(old) if isinstance(old, list) else value
        check_state(game, state)

    run()
