"""PettingZoo conformance of scum_v0 on several configurations."""

from __future__ import annotations

import warnings

import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import scum_env
from scum_env import scum_v0

CONFIGS = [
    {"num_players": 4},
    {"num_players": 5, "carousel": True},
    {"num_players": 7, "color_clash": True, "wild_queen": True},
    {"num_players": 12, "trade_rules": "spanish", "episode": "game", "target_score": 15},
]


@pytest.mark.parametrize(
    "config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items())
)
def test_api_and_seed(config: dict) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(scum_v0.env(**config), num_cycles=300)
        seed_test(lambda: scum_v0.env(**config), num_cycles=100)


def test_registered_with_pettingzoo() -> None:
    env = pettingzoo.make("aec", "cardsuite/scum-v0", num_players=5)
    env.reset(seed=1)
    assert env.possible_agents == [f"player_{i}" for i in range(5)]
    assert scum_env.scum_v0.__doc__ and "| `hand` |" in scum_env.scum_v0.__doc__
