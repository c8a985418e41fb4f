"""Size-generic layout, both ways: a table's observation padded then unpadded is itself."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.agents.learned import layout as sg
from cardsuite.errors import ConfigError
from cardsuite.games import get_game

SIZES = [("scum_party", n) for n in (5, 8, 20, 50)] + [("scandal", n) for n in range(2, 7)]


def _observations(game: str, players: int, moves: int = 40) -> tuple[list, list, object]:
    """Observations and masks of the first ``moves`` decisions (random legal play, seed 5)."""
    env = get_game(game).make(num_players=players)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    obs, masks = [], []
    for _ in range(moves):
        if not env.agents:
            break
        o = env.observe(env.agent_selection)
        obs.append(o["observation"])
        masks.append(o["action_mask"])
        env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    spec = env.unwrapped.obs_spec
    env.close()
    return obs, masks, spec


@pytest.mark.parametrize(("game", "players"), SIZES)
def test_pad_then_unpad_gives_the_observation_back(game: str, players: int) -> None:
    obs, masks, spec = _observations(game, players)
    batch = np.stack(obs)
    padded = sg.pad_observation(batch, spec, game)
    assert padded.shape == (len(obs), sg.generic_spec(game).size)
    np.testing.assert_array_equal(sg.unpad_observation(padded, spec, game), batch)
    np.testing.assert_array_equal(sg.unpad_observation(padded[0], spec, game), batch[0])
    # the mask: the table's actions first, False after (action ids need no remapping)
    pm = sg.pad_mask(np.stack(masks), game)
    assert pm.shape == (len(obs), sg.layout_of(game).num_actions)
    np.testing.assert_array_equal(pm[:, : len(masks[0])], np.stack(masks).astype(bool))
    assert not pm[:, len(masks[0]) :].any()
    # the generic seat mask counts the observer's own table (S2 / P2)
    present = sg.generic_spec(game).views(padded[0])["seat_present"]
    assert present[0] == 1.0 and 2 <= present.sum() <= min(players, 15)


def test_unpad_refuses_a_vector_of_another_size() -> None:
    _obs, _masks, spec = _observations("scandal", 2, moves=1)
    with pytest.raises(ConfigError, match="1594 entries of the generic scandal layout, got 864"):
        sg.unpad_observation(np.zeros(864), spec, "scandal")


def test_pad_mask_refuses_more_actions_than_the_layout() -> None:
    with pytest.raises(ConfigError, match="action_mask: 226 actions exceed"):
        sg.pad_mask(np.ones(226, dtype=bool), "scum_party")
