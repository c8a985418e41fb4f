"""The batched sampler's train batches: each game's chain of decisions, GAE by the book.

No Ray instance is started: the tick sampler runs on a `BatchedRLlibEnv`
with a random legal policy and a fixed value function.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed")

from cardsuite.train.rllib.batched_env import BatchedRLlibEnv
from cardsuite.train.rllib.batched_ppo import concat, whole_minibatches
from cardsuite.train.rllib.batched_runner import Episodes, collect, train_batch

CASES = [
    # Scum: episodes end terminated (rewards at the end of the game).
    ("scum", {"num_players": 4, "reward": "centered"}, "heuristic,random"),
    # Scandal with a 6-turn limit: every game ends truncated (S4 limits).
    ("scandal", {"num_players": 2, "max_hands": 1, "max_turns": 6}, "random"),
]


def _random_legal(rng: np.random.Generator) -> Any:
    """A random legal policy with exact log-probs (uniform logits over the legal actions)."""

    def act(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        logits = np.where(mask > 0, 0.0, -1.0e9).astype(np.float32)
        a = (rng.random(mask.shape) * mask - (1 - mask)).argmax(axis=1)
        return a, -np.log(mask.sum(axis=1)).astype(np.float32), logits

    return act


@pytest.mark.parametrize(("game", "options", "baselines"), CASES)
def test_tick_sampler_links_each_games_decisions_and_its_gae_is_by_the_book(
    game: str, options: dict[str, Any], baselines: str
) -> None:
    """Every decision is legal and linked to its game's next one; GAE equals a scalar oracle.

    The oracle follows each game's chain of decisions and runs the textbook
    recursion with RLlib's rules: terminated, no bootstrap; truncated, the
    all-zero terminal observation's value; open at the end, the value of the
    game's current observation (the learner is to act there).
    """
    env = BatchedRLlibEnv({"game": game, "options": options, "num_envs": 16,
                           "baselines": baselines.split(",")})  # fmt: skip
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    w = rng.normal(size=env.engine.obs_dim).astype(np.float32)

    def value(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.tanh(obs @ w * 0.1).astype(np.float32) + 0.01 * mask.sum(axis=1)

    eps = Episodes.new(16, 0.0)
    collect(env, _random_legal(rng), 16 * 6, eps)  # games under way
    rows = collect(env, _random_legal(rng), 16 * 20, eps)
    assert env.learner_ready().all()  # the next rollout starts at the learner's turn
    g, lam = 0.9, 0.8
    batch = train_batch(rows, env, value, g, lam)
    c = rows.count
    assert c >= 16 * 20 and len(batch["actions"]) == c
    assert (rows.mask[np.arange(c), rows.act[:c]] == 1).all()  # legal actions only
    ended = rows.term[:c].sum() if game == "scum" else rows.trunc[:c].sum()
    assert ended > 0 and len(eps.ended) > 0
    v = value(rows.obs[:c], rows.mask[:c])
    now = env.current_obs()
    v_now = value(now["observation"], now["action_mask"])
    zero = env.terminal_obs()
    v_zero = float(value(zero["observation"][None], zero["action_mask"][None])[0])
    expect = np.full(c, np.nan)
    heads = np.setdiff1d(np.arange(c), rows.next[:c][rows.next[:c] >= 0])
    for head in heads:
        chain = [int(head)]
        while rows.next[chain[-1]] >= 0:
            chain.append(int(rows.next[chain[-1]]))
        assert len({int(rows.game[i]) for i in chain}) == 1  # one game per chain
        assert chain == sorted(chain)  # in time order
        last = chain[-1]
        boot = 0.0 if rows.term[last] else v_zero if rows.trunc[last] else float(
            v_now[rows.game[last]])  # fmt: skip
        running = 0.0
        for k in range(len(chain) - 1, -1, -1):
            i = chain[k]
            nxt = boot if k == len(chain) - 1 else float(v[chain[k + 1]])
            delta = rows.rew[i] + g * nxt * (0.0 if rows.term[i] else 1.0) - v[i]
            running = delta + (g * lam * running if k < len(chain) - 1 else 0.0)
            expect[i] = running + v[i]
        if game == "scum":
            assert (rows.rew[chain[:-1]] == 0).all()  # Scum pays at the end of the game only
    assert not np.isnan(expect).any()
    assert np.allclose(batch["value_targets"], expect, atol=1e-5)


def test_standardized_concat_and_whole_minibatches() -> None:
    """The runners' batches concatenate with advantages standardized over all of them; 10 rows
    with minibatches of 4 keep 8 (RLlib would wrap a third minibatch around)."""
    one = {"obs": {"o": np.zeros((2, 1))}, "advantages": np.array([1.0, 3.0], dtype=np.float32)}
    two = {"obs": {"o": np.ones((2, 1))}, "advantages": np.array([5.0, 7.0], dtype=np.float32)}
    both = concat([one, two])
    assert both["obs"]["o"].shape == (4, 1)
    assert np.isclose(both["advantages"].mean(), 0.0) and np.isclose(both["advantages"].std(), 1.0)
    batch = {"obs": {"o": np.arange(10)}, "actions": np.arange(10)}
    cut = whole_minibatches(batch, 4)
    assert cut["actions"].tolist() == list(range(8)) and len(cut["obs"]["o"]) == 8
    assert whole_minibatches(batch, 16) is batch and whole_minibatches(batch, 5) is batch
