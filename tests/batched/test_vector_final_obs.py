"""The vector env returns the final observation of every episode that ended (issue 25).

Gymnasium 1.x ``SAME_STEP`` convention: ``info["final_obs"]`` (object array,
``None`` where the game runs on), ``info["_final_obs"]``, ``info["final_info"]``.
A Scandal hand cut by ``max_turns`` (RULINGS S4: a truncation) can then be
bootstrapped from its last state instead of being treated as terminated.

Differential: the same engine, with the same deterministic players, through
the vector env that restarts games itself (``final_obs``) and through one
that leaves the restarts to the engine's own autoreset (no ``final_obs``),
gives identical observations, rewards and flags step by step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from cardsuite.batched import BatchedVectorEnv
from cardsuite.batched.vector_env import sb3_vec_env
from scandal_env.batched import ShardedScandal
from scandal_env.batched.engine import BatchedScandal
from scum_env.batched import BatchedScum, ShardedScum
from scum_env.party.batched.engine import BatchedParty


def first_legal(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return np.asarray(mask).astype(bool).argmax(axis=1)


class OwnAutoreset:
    """An engine seen without ``restart_games``: the vector env's old path."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine

    def __getattr__(self, name: str) -> Any:
        if name in ("restart_games", "observe_as"):
            raise AttributeError(name)
        return getattr(self._engine, name)


def play(env: BatchedVectorEnv, steps: int, seed: int = 0) -> list[Any]:
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=4)
    out = [obs]
    for _ in range(steps):
        mask = info["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        obs, reward, terminated, truncated, info = env.step(actions)
        out.append((obs, reward, terminated, truncated, info))
    return out


SCANDAL_CUT = {"num_players": 3, "max_turns": 6}  # max_turns truncates most hands (S4)
ENGINES: dict[str, Callable[[], Any]] = {
    "scandal": lambda: BatchedScandal(6, **SCANDAL_CUT),
    "scandal_sharded": lambda: ShardedScandal(6, threads=2, **SCANDAL_CUT),
    "scum": lambda: BatchedScum(6, num_players=4),
    "scum_sharded": lambda: ShardedScum(6, threads=2, num_players=4),
    "scum_party": lambda: BatchedParty(4, num_players=8, num_hands=1),
}


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_final_obs_where_episodes_end_and_play_unchanged(name: str) -> None:
    new = BatchedVectorEnv(ENGINES[name](), learner=1, opponents=first_legal)
    old = BatchedVectorEnv(OwnAutoreset(ENGINES[name]()), learner=1, opponents=first_legal)
    assert new.final_obs and not old.final_obs
    ran_new, ran_old = play(new, 120), play(old, 120)
    np.testing.assert_array_equal(ran_new[0], ran_old[0])
    ended_total = 0
    for (obs, rew, term, trunc, info), (o2, r2, t2, u2, i2) in zip(
        ran_new[1:], ran_old[1:], strict=True
    ):
        np.testing.assert_array_equal(obs, o2)
        np.testing.assert_array_equal(rew, r2)
        np.testing.assert_array_equal(term, t2)
        np.testing.assert_array_equal(trunc, u2)
        assert "final_obs" not in i2
        ended = term | trunc
        if not ended.any():
            assert "final_obs" not in info
            continue
        ended_total += int(ended.sum())
        np.testing.assert_array_equal(info["_final_obs"], ended)
        np.testing.assert_array_equal(info["_final_info"], ended)
        for i, final in enumerate(info["final_obs"]):
            if ended[i]:
                assert final.shape == obs[i].shape and final.dtype == np.float32
                low, high = new.single_observation_space.low, new.single_observation_space.high
                assert ((final >= low) & (final <= high)).all()
            else:
                assert final is None
        lengths = info["final_info"]["episode_length"]
        assert (lengths[ended] >= 1).all() and (lengths[~ended] == 0).all()
    assert ended_total > 0


def test_a_truncated_scandal_hand_comes_with_its_last_state() -> None:
    """S4: max_turns cuts the hand; its final observation is the cut hand, not the next deal."""
    engine = BatchedScandal(6, **SCANDAL_CUT)
    env = BatchedVectorEnv(engine, learner=0, opponents=first_legal)
    obs, info = env.reset(seed=4)
    cut = 0
    for _ in range(40):
        obs, _, term, trunc, info = env.step(first_legal(obs, info["action_mask"]))
        cut += int(trunc.sum())
        if trunc.any():
            break
    assert cut > 0 and not (term & trunc).any()
    i = int(np.flatnonzero(trunc)[0])
    final = info["final_obs"][i]
    assert not np.array_equal(final, obs[i])  # the next deal is the returned observation


def test_sb3_gets_the_terminal_observation() -> None:
    pytest.importorskip("stable_baselines3")
    env = BatchedVectorEnv(BatchedScandal(4, **SCANDAL_CUT), learner=0, opponents=first_legal)
    vec = sb3_vec_env(env)
    obs = vec.reset()
    for _ in range(60):
        masks = np.stack(vec.env_method("action_masks"))
        vec.step_async(first_legal(obs, masks))
        obs, _, done, infos = vec.step_wait()
        for i in np.flatnonzero(done):
            assert infos[i]["terminal_observation"].shape == obs[i].shape
        if done.any():
            return
    pytest.fail("no episode ended")
