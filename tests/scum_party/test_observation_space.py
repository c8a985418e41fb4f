"""Every Scum Party observation lies in its declared space, 5 to 50 players (P1–P8)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scum_env import scum_party_v0
from tests.scum.test_observation_space import check_env

PARTIES = st.fixed_dictionaries(
    {
        "num_players": st.integers(5, 50),
        "num_hands": st.integers(1, 2),
        "reward": st.sampled_from(["points", "final", "rank"]),
    }
)


@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(PARTIES, st.integers(0, 2**32 - 1))
def test_every_party_observation_is_in_its_space(config: dict[str, Any], seed: int) -> None:
    """Random legal play of a whole tournament; each step's observation fits, and at the end."""
    env = scum_party_v0.raw_env(**config)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for step in range(100_000):
        check_env(env, f"{config} step {step}")
        if all(env.terminations.values()):
            break
        env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
    assert all(env.terminations.values()), "the tournament ends"
    for agent in env.agents:
        assert env.observation_space(agent).contains(env.observe(agent)), agent
