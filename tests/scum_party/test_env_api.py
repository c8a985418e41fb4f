"""PettingZoo conformance of scum_party_v0 for 5, 15, 16 and 50 players."""

from __future__ import annotations

import warnings

import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import scum_env
from scum_env import scum_party_v0


@pytest.mark.parametrize("players", [5, 15, 16, 50])
def test_api_and_seed(players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(scum_party_v0.env(num_players=players, num_hands=2), num_cycles=150)
        seed_test(lambda: scum_party_v0.env(num_players=players, num_hands=2), num_cycles=60)


def test_registered_with_pettingzoo() -> None:
    env = pettingzoo.make("aec", "cardsuite/scum_party-v0", num_players=50)
    env.reset(seed=1)
    assert env.possible_agents == [f"player_{i}" for i in range(50)]
    assert env.action_space("player_7").n == 225  # 4 decks at tables of 13 (P1)
    doc = scum_env.scum_party_v0.__doc__
    assert doc and "| `table_scores` |" in doc and "| `num_hands` |" in doc


def test_spaces_are_shared_and_sized_for_the_largest_table() -> None:
    env = scum_party_v0.raw_env(num_players=20, table_sizes="13,7")
    assert env.action_space("player_0").n == 1 + 16 * 14
    env.reset(seed=0)
    sizes = {env.observe(a)["observation"].shape for a in env.possible_agents}
    assert sizes == {env.observation_space("player_0")["observation"].shape}
    assert env.state().shape == env.state_space.shape
