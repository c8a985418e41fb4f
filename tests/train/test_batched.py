"""Training on the batched Scum engine (``vec_env: batched``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cardsuite.errors import ConfigError
from cardsuite.train.batched import BatchedSelfPlayEnv, make_batched_vec_env
from cardsuite.train.core.league import SeatMember
from cardsuite.train.core.netspec import Snapshot, obs_scale
from cardsuite.train.trainer import train
from cardsuite.train.wrappers import fixed_seats
from scum_env import scum_v0
from tests.train.conftest import tiny_config

TABLE = fixed_seats({"random": 0.5, "heuristic": 0.5})


def _snapshot(obs_dim: int, num_actions: int, seed: int = 0) -> Snapshot:
    rng = np.random.default_rng(seed)
    params = {
        "mlp_extractor.policy_net.0.weight": rng.normal(size=(8, obs_dim)).astype(np.float32),
        "mlp_extractor.policy_net.0.bias": np.zeros(8, np.float32),
        "action_net.weight": rng.normal(size=(num_actions, 8)).astype(np.float32),
        "action_net.bias": np.zeros(num_actions, np.float32),
    }
    return Snapshot(step=0, params=params, activation="tanh")


def test_batched_observations_are_scaled_like_the_per_game_wrapper() -> None:
    venv = make_batched_vec_env(
        "scum",
        {"num_players": 4},
        num_envs=8,
        learner=0,
        table=TABLE,
        seed=1,
    )
    obs = venv.reset()
    spec = scum_v0.env(num_players=4).obs_spec
    scale = obs_scale(spec)
    assert obs.shape == (8, spec.size)
    assert np.all(np.abs(obs) <= 1.0 + 1e-6)
    raw = venv.venv.inner._host(venv.venv.inner._obs)
    np.testing.assert_allclose(obs, raw * scale, rtol=1e-6)
    masks = np.stack(venv.env_method("action_masks"))
    assert masks.shape == (8, venv.action_space.n)
    assert masks.any(axis=1).all()


def test_snapshot_opponents_play_only_legal_actions() -> None:
    env = BatchedSelfPlayEnv(16, learner=0, table=TABLE, num_players=4, seed=3)
    snap = _snapshot(env.engine.obs_dim, env.engine.num_actions)
    env.set_league([SeatMember(5, "snapshot@0", 1.0, snap)])
    assert env.seated_ids() == [5] * 4
    assert all(p is not None and type(p).__name__ == "SnapshotPolicy" for p in env.opponents)
    env.reset(seed=3)
    for _ in range(200):  # the engine raises IllegalActionError on any illegal opponent move
        masks = env.action_masks()
        actions = np.array([np.flatnonzero(m)[0] for m in masks])
        env.step(actions)


def test_batched_is_scum_only() -> None:
    with pytest.raises(ConfigError, match=r"vec_env.*batched Scum engine"):
        tiny_config(game="scandal", options={"num_players": 2}, vec_env="batched")


def test_trainer_learns_on_the_batched_engine(tmp_path: Path) -> None:
    config = tiny_config(vec_env="batched", n_envs=16, n_steps=16, batch_size=64)
    result = train(config, tmp_path / "run")
    assert result.step >= config.total_steps
    assert (Path(result.checkpoint) / "agent" / "agent.json").exists()


def test_batched_heuristic_seats_play_the_real_heuristic() -> None:
    """The League's ``heuristic`` member is the game's real heuristic (its batched twin)."""
    from cardsuite.agents.batched_heuristic_scum import BatchedScumHeuristic

    env = BatchedSelfPlayEnv(4, learner=0, table=fixed_seats({"heuristic": 1.0}), num_players=4)
    assert all(type(p) is BatchedScumHeuristic for p in env.opponents)
