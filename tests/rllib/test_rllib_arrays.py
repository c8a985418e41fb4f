"""Array train batches (BatchedPPO) against RLlib's own learner connector pipeline.

Differential: one rollout of the array env runner is turned into a train
batch twice, by `train_arrays` (GAE
on the runner, arrays) and by RLlib's PPO learner connector over the same
rollout cut into ``SingleAgentEpisode`` chunks. Same weights, so the rows
(observations, actions, log-probs) and the GAE value targets must agree.
No Ray instance is started.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed")

import torch
from ray.rllib.core import DEFAULT_MODULE_ID

from cardsuite.train.rllib.array_batch import ADVANTAGES, concat, gae, train_arrays
from cardsuite.train.rllib.config import load_run

CASES = [
    # Scum: episodes end terminated (rewards at the end of the game).
    ("scum", {"num_players": 4, "reward": "centered"}, "heuristic,random"),
    # Scandal with a 6-turn limit: every game ends truncated (S4 limits).
    ("scandal", {"num_players": 2, "max_hands": 1, "max_turns": 6}, "random"),
]


@pytest.mark.parametrize(("game", "options", "baselines"), CASES)
def test_array_batch_equals_rllibs_learner_connector(
    game: str, options: dict[str, Any], baselines: str
) -> None:
    """Rows and GAE value targets equal RLlib's (terminated and truncated endings)."""
    from cardsuite.train.rllib.batched import build_batched_config
    from cardsuite.train.rllib.batched_runner import BatchedEnvRunner

    torch.set_num_threads(1)
    run = load_run(None, game=game, options=options, sampler="batched", seed=1,
                   num_env_runners=0, num_envs_per_env_runner=8, hidden_size=32,
                   hidden_layers=1, gamma=0.9, gae_lambda=0.8,
                   league_baselines=baselines)  # fmt: skip
    config = build_batched_config(run)
    runner = BatchedEnvRunner(config=config)
    learner = config.learner_class(config=config)
    learner.build()
    learner.module[DEFAULT_MODULE_ID].load_state_dict(runner.module.state_dict())
    runner.sample(num_timesteps=8 * 7)  # episodes already running when the rollout starts
    rollout = runner._rollout(8 * 25, explore=True)
    ended = rollout[6].sum() if game == "scum" else rollout[7].sum()
    assert ended > 0
    arrays = train_arrays(rollout, runner._values, runner.env.unwrapped.terminal_obs(), 0.9, 0.8)
    episodes, _ = runner._episodes(*rollout)
    batch = learner._learner_connector(
        rl_module=learner.module, batch={}, episodes=episodes, shared_data={},
        metrics=learner.metrics,
    )[DEFAULT_MODULE_ID]  # fmt: skip
    keep = np.asarray(batch["loss_mask"]).astype(bool)  # drops RLlib's appended timesteps
    steps, n = rollout[2].shape
    # RLlib's rows go game by game; the arrays step by step.
    order = (np.arange(steps)[None, :] * n + np.arange(n)[:, None]).ravel()
    assert keep.sum() == steps * n
    for key in ("actions", "action_logp", "action_dist_inputs"):
        assert np.allclose(np.asarray(batch[key])[keep], arrays[key][order], atol=1e-6), key
    for key in ("observation", "action_mask"):
        assert np.array_equal(np.asarray(batch["obs"][key])[keep], arrays["obs"][key][order])
    assert np.allclose(
        np.asarray(batch["value_targets"])[keep], arrays["value_targets"][order], atol=1e-5
    )


def test_gae_by_hand_and_standardized_concat() -> None:
    """Two games, three steps: a termination, a truncation and a cut rollout, by hand."""
    g, lam = 0.5, 0.5
    values = np.array([[1.0, 1.0], [2.0, 2.0], [4.0, 4.0]], dtype=np.float32)
    nxt = np.array([[2.0, 2.0], [0.5, 8.0], [4.0, 3.0]], dtype=np.float32)
    rew = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]], dtype=np.float32)
    term = np.array([[False, False], [True, False], [False, False]])
    trunc = np.array([[False, False], [False, True], [False, False]])
    adv = gae(values, nxt, rew, term, trunc, g, lam)
    # game 0: step 1 terminated (no bootstrap); step 2 starts a new episode, cut after it.
    d0 = [0 + g * 2 - 1, 1 + 0 - 2, 0 + g * 4 - 4]
    assert np.allclose(adv[:, 0], [d0[0] + g * lam * d0[1], d0[1], d0[2]])
    # game 1: step 1 truncated (bootstraps from its final observation, no carry past it).
    d1 = [1 + g * 2 - 1, 0 + g * 8 - 2, 0 + g * 3 - 4]
    assert np.allclose(adv[:, 1], [d1[0] + g * lam * d1[1], d1[1], d1[2]])
    one = {"obs": {"o": np.zeros((2, 1))}, ADVANTAGES: np.array([1.0, 3.0], dtype=np.float32)}
    two = {"obs": {"o": np.ones((2, 1))}, ADVANTAGES: np.array([5.0, 7.0], dtype=np.float32)}
    both = concat([one, two])
    assert both["obs"]["o"].shape == (4, 1)
    assert np.isclose(both[ADVANTAGES].mean(), 0.0) and np.isclose(both[ADVANTAGES].std(), 1.0)


def _greedy_free(rng: np.random.Generator) -> Any:
    """A random legal policy with exact log-probs (uniform logits over the legal actions)."""

    def act(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        logits = np.where(mask > 0, 0.0, -1.0e9).astype(np.float32)
        a = (rng.random(mask.shape) * mask - (1 - mask)).argmax(axis=1)
        logp = -np.log(mask.sum(axis=1)).astype(np.float32)
        return a, logp, logits

    return act


@pytest.mark.parametrize("all_seats", [False, True])
@pytest.mark.parametrize(("game", "options", "baselines"), CASES)
def test_tick_sampler_links_each_seats_decisions_and_its_gae_is_by_the_book(
    game: str, options: dict[str, Any], baselines: str, all_seats: bool
) -> None:
    """Every decision is legal and linked to its seat's next one; GAE equals a scalar oracle.

    The oracle follows each (game, seat) chain of decisions and runs the
    textbook recursion (terminated: no bootstrap; truncated: the all-zero
    terminal observation's value; open at the end with the seat to act: the
    value of the game's current observation). With ``all_seats`` the other
    seats of a self-play game are not to act at the end: their last decision
    is handed on to the next rollout and the chain before it bootstraps from
    its value.
    """
    from cardsuite.train.rllib.batched_env import BatchedRLlibEnv
    from cardsuite.train.rllib.tick_rollout import Episodes, collect, train_batch

    env = BatchedRLlibEnv({"game": game, "options": options, "num_envs": 16,
                           "baselines": baselines.split(","), "all_seats": all_seats})  # fmt: skip
    env.reset(seed=5)
    p = env.engine.num_players
    rng = np.random.default_rng(0)
    w = rng.normal(size=env.engine.obs_dim).astype(np.float32)

    def value(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.tanh(obs @ w * 0.1).astype(np.float32) + 0.01 * mask.sum(axis=1)

    eps = Episodes.new(16, 0.0, p)
    warm = collect(env, _greedy_free(rng), 16 * 6, eps, lambda: 0.0)  # games under way
    train_batch(warm, env, value, 0.5, 0.5, eps)
    handed = 0 if eps.pending is None else eps.pending.count
    assert (handed > 0) == all_seats  # other seats of self-play games wait for their turn
    rows = collect(env, _greedy_free(rng), 16 * 20, eps, lambda: 0.0)
    assert env.learner_ready().all()  # the next rollout starts at a learning seat's turn
    g, lam = 0.9, 0.8
    batch = train_batch(rows, env, value, g, lam, eps)
    c = rows.count
    assert (rows.mask[np.arange(c), rows.act[:c]] == 1).all()  # legal actions only
    ended = rows.term[:c].sum() if game == "scum" else rows.trunc[:c].sum()
    assert ended > 0 and len(eps.ended) > 0
    v = value(rows.obs[:c], rows.mask[:c])
    now = env.current_obs()
    v_now = value(now["observation"], now["action_mask"])
    to_act = np.asarray(env.engine.to_act())
    zero = env.terminal_obs()
    v_zero = float(value(zero["observation"][None], zero["action_mask"][None])[0])
    expect = np.full(c, np.nan)
    pending = np.zeros(c, dtype=bool)
    heads = np.setdiff1d(np.arange(c), rows.next[:c][rows.next[:c] >= 0])
    for head in heads:
        chain = [int(head)]
        while rows.next[chain[-1]] >= 0:
            chain.append(int(rows.next[chain[-1]]))
        assert len({int(rows.slot[i]) for i in chain}) == 1  # one game and seat per chain
        assert chain == sorted(chain)  # in time order
        last = chain[-1]
        game_of, seat = divmod(int(rows.slot[last]), p)
        if rows.term[last]:
            boot = 0.0
        elif rows.trunc[last]:
            boot = v_zero
        elif seat == to_act[game_of]:
            boot = float(v_now[game_of])
        else:  # handed on: the chain before it bootstraps from its value
            pending[last] = True
            chain, boot = chain[:-1], float(v[last])
        running = 0.0
        for k in range(len(chain) - 1, -1, -1):
            i = chain[k]
            nxt = boot if k == len(chain) - 1 else float(v[chain[k + 1]])
            delta = rows.rew[i] + g * nxt * (0.0 if rows.term[i] else 1.0) - v[i]
            running = delta + (g * lam * running if k < len(chain) - 1 else 0.0)
            expect[i] = running + v[i]
        if game == "scum" and not pending[last]:
            assert (rows.rew[chain[:-1]] == 0).all()  # Scum pays at the end of the game only
    keep = ~pending
    assert pending.sum() == (0 if eps.pending is None else eps.pending.count)
    assert not np.isnan(expect[keep]).any()
    assert len(batch["actions"]) == keep.sum() >= 16 * 20 - pending.sum()
    assert np.allclose(batch["value_targets"], expect[keep], atol=1e-5)


def test_whole_minibatches_drops_the_partial_last_one() -> None:
    """10 rows with minibatches of 4 keep 8 (RLlib would wrap a third minibatch around)."""
    from cardsuite.train.rllib.array_batch import whole_minibatches

    batch = {"obs": {"o": np.arange(10)}, "actions": np.arange(10)}
    cut = whole_minibatches(batch, 4)
    assert cut["actions"].tolist() == list(range(8)) and len(cut["obs"]["o"]) == 8
    assert whole_minibatches(batch, 16) is batch and whole_minibatches(batch, 5) is batch
