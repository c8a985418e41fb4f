"""``render_mode="rgb_array"``: Gymnasium-style pictures of every env, and PettingZoo's render_test."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import render_test

from scandal_env import scandal_v0
from scum_env import scum_party_v0, scum_v0

ENVS: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {
    "scum": (scum_v0.env, {}),
    "scum_party": (scum_party_v0.env, {"num_players": 12}),
    "scandal": (scandal_v0.env, {"num_players": 3}),
}


def play(env: Any, steps: int) -> None:
    """``steps`` moves, each the highest legal action id (deterministic)."""
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[-1]))


@pytest.mark.parametrize("game", list(ENVS))
def test_rgb_array_is_an_image_that_changes_as_the_game_moves(game: str) -> None:
    make, options = ENVS[game]
    env = make(render_mode="rgb_array", **options)
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    env.reset(seed=3)
    first = env.render()
    assert isinstance(first, np.ndarray)
    assert first.ndim == 3 and first.shape[2] == 3 and first.dtype == np.uint8
    assert first.shape[0] >= 400 and first.shape[1] >= 600
    again = env.render()
    assert np.array_equal(first, again)  # rendering does not change the game
    play(env, 6)
    later = env.render()
    assert later.shape == first.shape
    assert not np.array_equal(first, later)
    assert int(first.std()) > 5  # a drawing, not a blank canvas


@pytest.mark.parametrize("game", list(ENVS))
def test_pettingzoo_render_test(game: str) -> None:
    make, options = ENVS[game]

    def env_fn(render_mode: str | None = None) -> Any:
        return make(render_mode=render_mode, **options)

    render_test(env_fn)


def test_table_model_hides_hands_when_asked() -> None:
    from scum_env.render import table_model

    env = scum_v0.env()
    env.reset(seed=0)
    model = table_model(env.unwrapped.game, hands=False)
    assert all(seat["cards"] is None for seat in model["seats"])
    assert sum(seat["count"] for seat in model["seats"]) > 0
