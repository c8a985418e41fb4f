"""The shared adapters on Scum Party: the learning-seat vector env, SB3 and the arena."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.batched import BatchedEngine, RandomPolicy, sb3_vec_env
from scum_env.batched.policies import LowestFirstPolicy
from scum_env.party.batched import BatchedParty, PartyVectorEnv, play_party_arena
from scum_env.party.tables import hand_points, split_tables


def _points_per_hand(players: int) -> int:
    """All players' P8 points of one hand (the same for every hand of a config)."""
    seating, start = [], 0
    for size in split_tables(players):
        seating.append(list(range(start, start + size)))
        start += size
    return int(hand_points(seating, players).sum())


def test_the_engine_keeps_the_shared_contract() -> None:
    assert isinstance(BatchedParty(2, num_players=8), BatchedEngine)


def test_vector_env_hands_the_learner_every_decision() -> None:
    env = PartyVectorEnv(6, learner=17, num_players=23, num_hands=1, seed=2)
    obs, _info = env.reset()
    assert obs.shape == (6, env.engine.obs_dim) == env.observation_space.shape
    assert all(env.single_observation_space.contains(o) for o in obs)
    ended, total = 0, 0.0
    for _ in range(120):
        assert (env.engine.xp.to_numpy(env.engine.to_act()) == 17).all()
        masks = env.action_masks()
        assert masks.any(axis=1).all()
        obs, reward, terminated, truncated, _ = env.step(RandomPolicy(0)(obs, masks))
        assert not truncated.any()
        assert (reward[~terminated] == 0).all()  # one hand: points come with the end
        ended += int(terminated.sum())
        total += float(reward.sum())
    assert ended > 0 and -2 <= total / ended <= 4  # P8: 2 tables, King +2 .. Scum -2


def test_arena_random_players_share_the_points() -> None:
    """Random against random: every hand hands out the same P8 points in all, spread evenly."""
    players = 16
    res = play_party_arena([RandomPolicy(3)] * players, 64, batch=32, num_players=players,
                           num_hands=1)  # fmt: skip
    assert res.episodes == 64
    assert res.mean.sum() == pytest.approx(_points_per_hand(players))
    assert np.all(np.abs(res.mean - res.mean.mean()) < 4 * res.ci95 + 0.5)


def test_arena_heuristic_beats_random() -> None:
    env = BatchedParty(1, num_players=8)
    policies = [LowestFirstPolicy(env.rules)] + [RandomPolicy(1)] * 7
    res = play_party_arena(policies, 48, batch=48, num_players=8, num_hands=2)
    assert res.mean[0] > res.mean[1:].mean()


def test_maskable_ppo_trains_on_scum_party() -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    pytest.importorskip("torch").set_num_threads(1)
    venv = sb3_vec_env(PartyVectorEnv(4, num_players=5, num_hands=1, seed=1))
    assert sb3_contrib.common.maskable.utils.is_masking_supported(venv)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0, verbose=0
    )
    model.learn(64)
    assert model.num_timesteps >= 64
