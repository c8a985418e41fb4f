"""The learning-seat vector env (Gymnasium and SB3) and the batched arena."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cardsuite.batched.vector_env import sb3_vec_env
from cardsuite.errors import ConfigError
from scum_env.batched.engine import BatchedScum, ScumVectorEnv, play_arena
from scum_env.batched.policies import LowestFirstPolicy, RandomPolicy, sb3_policy


def test_vector_env_hands_the_learner_every_decision() -> None:
    env = ScumVectorEnv(12, learner=2, num_players=5, seed=4)
    obs, info = env.reset()
    assert env.observation_space.shape == obs.shape == (12, env.engine.obs_dim)
    assert all(env.single_observation_space.contains(o) for o in obs)
    assert np.array_equal(info["action_mask"], env.action_masks())
    ended = 0
    total = 0.0
    for _ in range(150):
        assert (env.engine.xp.to_numpy(env.engine.to_act()) == 2).all()
        masks = env.action_masks()
        assert masks.dtype == bool and masks.any(axis=1).all()
        actions = RandomPolicy(0)(obs, masks)
        obs, reward, terminated, truncated, _ = env.step(actions)
        assert not truncated.any()
        assert (reward[~terminated] == 0).all() and (reward[terminated] >= 1).all()
        ended += int(terminated.sum())
        total += float(reward.sum())
    assert ended > 0 and 1 <= total / ended <= 5  # J8 points of 5 players


def test_vector_env_rejects_bad_seats() -> None:
    with pytest.raises(ConfigError):
        ScumVectorEnv(2, learner=4, num_players=4)
    with pytest.raises(ConfigError):
        ScumVectorEnv(2, opponents=[RandomPolicy(0)] * 3, num_players=4)


def test_maskable_ppo_trains_on_the_sb3_adapter(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path))  # SB3's default logger folder, not /tmp
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from stable_baselines3.common.vec_env import VecEnv

    venv = sb3_vec_env(ScumVectorEnv(8, num_players=4, seed=1))
    assert isinstance(venv, VecEnv)
    assert sb3_contrib.common.maskable.utils.is_masking_supported(venv)
    venv.seed(5)
    first = venv.reset()
    assert first.shape == (8, venv.observation_space.shape[0])
    masks = sb3_contrib.common.maskable.utils.get_action_masks(venv)
    assert masks.shape == (8, venv.action_space.n)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, seed=0, verbose=0
    )
    model.learn(256)
    assert model.num_timesteps >= 256
    assert len(model.ep_info_buffer) > 0  # episodes were reported to the logger
    # self-play: the learner's own policy plays the other seats
    venv.inner.opponents = [sb3_policy(model)] * 4
    venv.reset()
    for _ in range(20):
        _, _, _, infos = venv.step(np.stack(venv.env_method("action_masks")).argmax(axis=1))
    assert len(infos) == 8


def test_arena_random_players_are_even() -> None:
    """Random vs random: every seat averages (P+1)/2 J8 points; points always sum to P(P+1)/2."""
    random = RandomPolicy(3)
    res = play_arena([random] * 4, 600, batch=200, seed=1, num_players=4)
    assert res.episodes == 600
    assert res.mean.sum() == pytest.approx(10.0)
    assert np.all(np.abs(res.mean - 2.5) < 4 * res.ci95 + 0.05)


def test_arena_heuristic_beats_random() -> None:
    rules = BatchedScum(1).rules
    random = RandomPolicy(5)
    res = play_arena([LowestFirstPolicy(rules), random, random, random], 400, batch=100)
    assert res.mean[0] - res.ci95[0] > res.mean[1:].max() + res.ci95[1:].max()


def test_arena_rejects_bad_arguments() -> None:
    with pytest.raises(ConfigError):
        play_arena([RandomPolicy(0)] * 3, 10, num_players=4)
    with pytest.raises(ConfigError):
        play_arena([RandomPolicy(0)] * 4, 0)


def test_vector_env_and_arena_run_on_torch_like_on_numpy() -> None:
    pytest.importorskip("torch").set_num_threads(1)
    rules = BatchedScum(1).rules
    heuristic = LowestFirstPolicy(rules)  # deterministic: the same opponents on both backends
    envs = [
        ScumVectorEnv(6, num_players=4, seed=2, opponents=heuristic, backend=b)
        for b in ("numpy", "torch")
    ]
    first = [env.reset()[0] for env in envs]
    assert np.array_equal(first[0], first[1])
    for _ in range(60):
        actions = envs[0].action_masks().argmax(axis=1)
        outs = [env.step(actions) for env in envs]
        for x, y in zip(outs[0][:3], outs[1][:3], strict=True):
            assert np.array_equal(x, y)
    res = play_arena([heuristic] * 4, 64, batch=16, backend="torch")
    assert res.episodes == 64 and res.mean.sum() == pytest.approx(10.0)
