"""Every Scandal observation lies in its declared space (issue 12), for every player count
and option, at every step of random legal play."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scandal_env.scandal_v0 import raw_env

options = st.fixed_dictionaries(
    {
        "num_players": st.integers(2, 6),
        "episode": st.sampled_from(["hand", "game"]),
        "max_turns": st.sampled_from([1, 5, 40, 200]),
        "max_hands": st.integers(1, 4),
        "target_score": st.sampled_from([1, 50, 500]),
        "reward_scale": st.sampled_from([1.0, 100.0]),
    }
)


@settings(max_examples=30, deadline=None)
@given(opts=options, seed=st.integers(0, 2**32 - 1))
def test_observations_lie_in_their_spaces(opts: dict[str, object], seed: int) -> None:
    env = raw_env(**opts)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    bound = 100 * int(opts["max_turns"]) * int(opts["max_hands"]) + 100  # type: ignore[call-overload]
    for step in range(bound):
        for agent in env.agents:
            obs = env.observe(agent)
            space = env.observation_space(agent)
            assert space.contains(obs), (step, agent, _outside(space, obs))
        assert env.state_space.contains(env.state())
        if not env.agents or all(env.terminations.values()) or all(env.truncations.values()):
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        legal = np.flatnonzero(mask)
        env.step(int(legal[rng.integers(legal.size)]))
    assert all(env.terminations.values()) or all(env.truncations.values())


def _outside(space: object, obs: dict[str, np.ndarray]) -> list[int]:
    box = space["observation"]  # type: ignore[index]
    x = obs["observation"]
    return np.flatnonzero((x < box.low) | (x > box.high)).tolist()[:10]
