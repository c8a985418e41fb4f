"""Every observation lies in its declared space, in every variant (J2, J5, J9).

The scripted case is the one the space got wrong: under ``trade_rules="spanish"``
with five or more players the Scum gives two cards to the President and one
to the Vice President, and gets as many back (J5), so a ``trade_given`` or
``trade_received`` entry can reach 3.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardsuite.obsspec import ObsSpec
from scum_env import engine as E
from scum_env import scum_v0
from scum_env.batched.engine import BatchedScum
from scum_env.encoding import encode_state, state_spec

SPANISH_HANDS = [["W", "2"], ["W", "3"], ["4"], ["5"], ["6"], ["P", "P", "P", "7"]]


def outside(spec: ObsSpec, x: np.ndarray) -> list[str]:
    """Names of the pieces with an entry of ``x`` outside the spec's bounds."""
    low, high = spec.bounds()
    return [p.name for p in spec.pieces if np.any((x < low)[spec.slices[p.name]])
            or np.any((x > high)[spec.slices[p.name]])]  # fmt: skip


def check_env(env: Any, where: str) -> None:
    """The acting agent's observation in its space, the global state in the state spec."""
    agent = env.agent_selection
    obs = env.observe(agent)
    assert env.observation_space(agent).contains(obs), (
        f"{where}: {agent}: {outside(env.obs_spec, obs['observation'])} outside the space"
    )
    assert not outside(env._state_spec, env.state()), f"{where}: global state outside its spec"


def spanish_env() -> Any:
    env = scum_v0.raw_env(num_players=6, trade_rules="spanish")
    env.reset(
        seed=0,
        options={"roles": list(range(6)), "trade": True, "hands": SPANISH_HANDS},
    )
    return env


def test_spanish_scum_trades_three_cards_inside_the_space() -> None:
    """J5 spanish, 6 players: the Scum gives P, P to the President, gets 2 and P back, gives P to the VP."""
    env = spanish_env()
    rules = env.rules
    give = {name: rules.give_action(rules.cards.slot(name)) for name in ("2", "3", "P", "W")}
    for agent, card in (("player_0", "2"), ("player_0", "P"), ("player_1", "3")):
        assert env.agent_selection == agent
        env.step(give[card])
        for a in env.agents:
            obs = env.observe(a)
            assert env.observation_space(a).contains(obs), a
    assert env.game.phase == E.PLAY
    given = env.obs_spec.view(env.observe("player_5")["observation"], "trade_given")
    received = env.obs_spec.view(env.observe("player_5")["observation"], "trade_received")
    assert given[rules.cards.slot("P")] == 3.0, "two Presidents to the President, one to the VP"
    assert received.sum() == 3.0 and given.sum() == 3.0
    high = env.observation_space("player_5")["observation"].high
    assert env.obs_spec.view(high, "trade_given").max() == 3.0


def test_four_and_english_tables_keep_the_bound_of_two() -> None:
    """Variants whose trades move at most two cards a player keep the declared bound 2."""
    for config in ({"num_players": 4}, {"num_players": 6}, {"num_players": 12}):
        env = scum_v0.raw_env(**config)
        high = env.observation_space("player_0")["observation"].high
        assert env.obs_spec.view(high, "trade_given").max() == 2.0


def test_batched_spanish_trade_inside_the_space() -> None:
    """The batched engine writes the same 3 into the same (now wide enough) space."""
    eng = BatchedScum(1, num_players=6, trade_rules="spanish")
    hands = np.zeros((1, 6, eng.K), dtype=np.int64)
    for p, cards in enumerate(SPANISH_HANDS):
        hands[0, p] = eng.rules.cards.counts(cards)
    obs, mask, to_act = eng.reset(0, hands=hands, roles=[list(range(6))], trade=True)
    spec = eng.encoder.spec
    seen = 0.0
    for _ in range(60):
        assert not outside(spec, obs[0]), f"player_{int(to_act[0])}: {outside(spec, obs[0])}"
        seen = max(seen, float(spec.view(obs[0], "trade_given").max()))
        if int(to_act[0]) == 5 and eng.phase[0] == E.PLAY:
            break
        result = eng.step(np.array([int(np.flatnonzero(mask[0])[0])]))
        obs, mask, to_act = result.obs, result.mask, result.to_act
    assert seen == 3.0, "the Scum observed its three given cards"


VARIANTS = st.fixed_dictionaries(
    {
        "num_players": st.integers(4, 12),
        "trade_rules": st.sampled_from(["english", "spanish"]),
        "carousel": st.booleans(),
        "color_clash": st.booleans(),
        "wild_queen": st.booleans(),
        "episode": st.sampled_from(["series", "game"]),
        "reward": st.sampled_from(["points", "centered"]),
        "target_score": st.sampled_from([None, 1, 7, 15]),
    }
)


def play_episodes(config: dict[str, Any], seed: int, episodes: int) -> None:
    """Random legal play for a few episodes (later series trade), checking every step."""
    env = scum_v0.raw_env(**config)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for episode in range(episodes):
        if episode:
            env.reset()  # series episodes: the next series of the game, with trades (J5)
        for step in range(5000):
            check_env(env, f"{config} episode {episode} step {step}")
            if all(env.terminations.values()):
                break
            env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
        assert all(env.terminations.values()), "an episode ends"
        for agent in env.agents:
            assert env.observation_space(agent).contains(env.observe(agent)), agent
    assert not outside(state_spec(env.rules), encode_state(env.game, state_spec(env.rules)))


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(VARIANTS, st.integers(0, 2**32 - 1))
def test_every_observation_of_every_variant_is_in_its_space(
    config: dict[str, Any], seed: int
) -> None:
    """All options, 4..12 players: every step's observation lies in ``observation_space``."""
    play_episodes(config, seed, episodes=3 if config["episode"] == "series" else 1)


@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(st.integers(5, 12), st.integers(0, 2**32 - 1))
def test_spanish_series_observations_are_in_the_space(players: int, seed: int) -> None:
    """Spanish tables of 5+ players over several traded series (the case J5 widened)."""
    play_episodes({"num_players": players, "trade_rules": "spanish"}, seed, episodes=4)
