"""Threads, the shared vector env and the shared arena on batched Scandal."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.batched import BatchedVectorEnv, RandomPolicy, run_arena
from scandal_env.batched import BatchedScandal, ShardedScandal
from tests.scandal_batched.test_engine import random_actions


def test_sharded_plays_like_one_batch() -> None:
    config: dict[str, Any] = {"num_players": 3, "episode": "game", "max_hands": 2, "max_turns": 20}
    one = BatchedScandal(10, **config)
    many = ShardedScandal(10, threads=3, **config)
    o1, m1, t1 = one.reset(seed=9)
    o2, m2, t2 = many.reset(seed=9)
    rng = np.random.default_rng(0)
    ended = 0
    for step in range(150):
        assert np.array_equal(o1, o2) and np.array_equal(m1, m2) and np.array_equal(t1, t2), step
        a = random_actions(rng, m1)
        r1, r2 = one.step(a), many.step(a)
        assert np.array_equal(r1.rewards, r2.rewards) and np.array_equal(r1.done, r2.done)
        assert r1.truncated is not None and r2.truncated is not None
        assert np.array_equal(r1.truncated, r2.truncated)
        ended += int(r1.done.sum())
        o1, m1, t1, o2, m2, t2 = r1.obs, r1.mask, r1.to_act, r2.obs, r2.mask, r2.to_act
    many.close()
    assert ended > 0


def test_vector_env_serves_one_learning_seat() -> None:
    env = BatchedVectorEnv(BatchedScandal(16, num_players=4, max_turns=30), learner=2)
    obs, info = env.reset(seed=1)
    assert obs.shape == (16, env.engine.obs_dim)
    assert (env.engine.xp.to_numpy(env.engine.to_act()) == 2).all()
    rng = np.random.default_rng(1)
    total = 0.0
    episodes = 0
    cut = 0
    for _ in range(200):
        obs, reward, done, trunc, info = env.step(random_actions(rng, info["action_mask"]))
        total += float(reward.sum())
        episodes += int((done | trunc).sum())
        cut += int(trunc.sum())
        assert not (done & trunc).any()
    # max_turns=30 cuts most hands short: reported as truncated (S4), not terminated
    assert episodes > 0 and cut > 0 and total != 0.0


def test_arena_scores_random_seats() -> None:
    res = run_arena(
        lambda n: BatchedScandal(n, num_players=2, max_turns=40),
        [RandomPolicy(1), RandomPolicy(2)],
        episodes=64,
        batch=32,
    )
    assert res.episodes == 64 and res.mean.shape == (2,)
    assert np.isfinite(res.mean).all() and (res.ci95 > 0).all()
