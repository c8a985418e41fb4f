"""The batched env runner: RLlib's ``SingleAgentEnvRunner`` sampling array batches by ticks.

A decision lasts until the learner's next one in its game; GAE follows RLlib's rules (a
terminated decision does not bootstrap, a truncated one bootstraps from the all-zero
terminal observation). docs/rllib.md, "Batched env runners".
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.env.env_context import EnvContext
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.utils.metrics import SAMPLE_TIMER

from cardsuite.train.rllib.batched_env import BatchedRLlibEnv
from cardsuite.train.rllib.config import ILLEGAL_ACTIONS

OBS, MASK = "observation", "action_mask"
ActFn = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]
"""``(obs [k, D], mask [k, A]) -> (actions [k], logp [k], logits [k, A])``."""
ValueFn = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (obs, mask) -> values [k]


@dataclass
class Episodes:
    """Each game's running episode and the learner's rewards before its first decision
    (``carry``); ``ended``: ``(length, return, seconds)`` of the finished ones."""

    length: np.ndarray
    ret: np.ndarray
    start: np.ndarray
    carry: np.ndarray
    ended: list[tuple[int, float, float]] = field(default_factory=list)

    @classmethod
    def new(cls, n: int, now: float) -> Episodes:
        """Nothing running yet in ``n`` games."""
        return cls(np.zeros(n, np.int64), np.zeros(n), np.full(n, now), np.zeros(n, np.float32))


class Decisions:
    """The learner's decisions of one rollout in tick order; ``next`` links a decision to its
    game's next one (-1: none in this rollout), ``ticks`` the first row of every tick."""

    def __init__(self, cap: int, obs_dim: int, num_actions: int) -> None:
        # fmt: off
        self.obs, self.logp = np.empty((cap, obs_dim), np.float32), np.empty(cap, np.float32)
        self.mask = np.empty((cap, num_actions), np.int8)
        self.logits = np.empty((cap, num_actions), np.float32)
        self.act, self.game, self.next = np.empty(cap, int), np.empty(cap, int), np.full(cap, -1)
        self.rew, self.term, self.trunc = np.zeros(cap, np.float32), np.zeros(cap, bool), np.zeros(cap, bool)
        self.count, self.ticks = 0, [0]
        # fmt: on


def tick_rollout(env: BatchedRLlibEnv, act: ActFn, value: ValueFn, num_timesteps: int,
                 eps: Episodes, gamma: float, lam: float) -> dict[str, Any]:  # fmt: skip
    """At least ``num_timesteps`` learner decisions of ``env`` as a flat PPO train batch
    (advantages not standardized: the driver does it over the whole batch)."""
    return train_batch(collect(env, act, num_timesteps, eps), env, value, gamma, lam)


def collect(env: BatchedRLlibEnv, act: ActFn, num_timesteps: int, eps: Episodes) -> Decisions:
    """Tick until ``num_timesteps`` decisions, then until the learner is to act everywhere."""
    n = env.num_envs
    rows = Decisions(int(num_timesteps) + n, env.engine.obs_dim, env.engine.num_actions)
    open_row = np.full(n, -1, np.int64)
    while rows.count < num_timesteps:
        ready = np.flatnonzero(env.learner_ready())
        actions = np.zeros(n, np.int64)
        if ready.size:
            c, k = rows.count, ready.size
            sl, new = slice(c, c + k), np.arange(c, c + k)
            rows.obs[sl] = np.asarray(env._obs[ready], dtype=np.float32)
            rows.mask[sl] = np.asarray(env._mask[ready]).astype(np.int8, copy=False)
            rows.act[sl], rows.logp[sl], rows.logits[sl] = act(rows.obs[sl], rows.mask[sl])
            actions[ready] = rows.act[sl]
            rows.game[sl] = ready
            prev = open_row[ready]
            rows.next[prev[prev >= 0]] = new[prev >= 0]
            open_row[ready] = new
            rows.rew[sl] = eps.carry[ready]
            eps.carry[ready] = 0.0
            eps.length[ready] += 1
            rows.count += k
        _credit(rows, open_row, eps, *env.tick(actions))
        rows.ticks.append(rows.count)
    while not env.learner_ready().all():  # the League moves up to the learner's turn
        _credit(rows, open_row, eps, *env.tick(None))
    return rows


def _credit(rows: Decisions, open_row: np.ndarray, eps: Episodes, reward: np.ndarray,
            done: np.ndarray, truncated: np.ndarray) -> None:  # fmt: skip
    """Add one tick's learner rewards to the open decisions (or carry them); close ended games."""
    has = open_row >= 0
    rows.rew[open_row[has]] += reward[has]
    eps.carry[~has] += reward[~has]
    eps.ret += reward
    if not done.any():
        return
    g = np.flatnonzero(done)
    closing = open_row[g]
    ok = closing >= 0
    rows.trunc[closing[ok]] = truncated[g][ok]
    rows.term[closing[ok]] = ~truncated[g][ok]
    now = time.time()
    eps.ended += [(int(eps.length[i]), float(eps.ret[i]), now - float(eps.start[i])) for i in g]
    open_row[g] = -1
    eps.carry[g] = 0.0
    eps.ret[g], eps.length[g], eps.start[g] = 0.0, 0, now


def train_batch(rows: Decisions, env: BatchedRLlibEnv, value: ValueFn, gamma: float,
                lam: float) -> dict[str, Any]:  # fmt: skip
    """The flat batch of the collected decisions: values, GAE along each game's decisions."""
    c = rows.count
    v = value(rows.obs[:c], rows.mask[:c])
    now, zero = env.current_obs(), env.terminal_obs()
    v_now = value(now[OBS], now[MASK])
    v_zero = np.float32(value(zero[OBS][None], zero[MASK][None])[0])
    nxt, term, trunc = rows.next[:c], rows.term[:c], rows.trunc[:c]
    linked = nxt >= 0
    next_v = np.where(trunc, v_zero, np.where(linked, v[np.maximum(nxt, 0)], v_now[rows.game[:c]]))
    live = 1.0 - term.astype(np.float32)
    delta = rows.rew[:c] + gamma * live * next_v - v
    carry_on = gamma * lam * live * (1.0 - trunc.astype(np.float32))
    adv = np.zeros(c + 1, np.float32)  # adv[c] = 0: where unlinked rows look
    target = np.where(linked, nxt, c)
    for b in range(len(rows.ticks) - 2, -1, -1):
        sl = slice(rows.ticks[b], rows.ticks[b + 1])
        adv[sl] = delta[sl] + carry_on[sl] * adv[target[sl]]
    return {"obs": {OBS: rows.obs[:c], MASK: rows.mask[:c]}, "actions": rows.act[:c],
            "action_logp": rows.logp[:c], "action_dist_inputs": rows.logits[:c],
            "advantages": adv[:c], "value_targets": (adv[:c] + v).astype(np.float32)}  # fmt: skip


class BatchedEnvRunner(SingleAgentEnvRunner):  # type: ignore[misc]
    """RLlib's env runner over a `BatchedRLlibEnv`, sampling array batches (module doc)."""

    _eps: Episodes | None = None

    def make_env(self) -> None:
        """The runner's games: a `BatchedRLlibEnv` of ``num_envs_per_env_runner`` games."""
        context = EnvContext({**self.config.env_config,
                              "num_envs": self.config.num_envs_per_env_runner},
                             worker_index=self.worker_index or 0)  # fmt: skip
        self.env = env = BatchedRLlibEnv(context)  # type: ignore[assignment]
        self.num_envs = env.num_envs
        self._eps = None

    def sample(  # type: ignore[override]
        self, *, num_timesteps: int | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """The runner's share of the train batch as flat arrays; metrics logged as RLlib's runner
        logs them."""
        c: Any = self.config
        if num_timesteps is None:
            num_timesteps = c.get_rollout_fragment_length(self.worker_index) * self.num_envs
        env: Any = self.env
        with self.metrics.log_time(SAMPLE_TIMER):
            if self._eps is None:
                env.reset(self._seed)
                self._eps = Episodes.new(self.num_envs, time.time())
            batch = tick_rollout(env, self._act, self._values, int(num_timesteps), self._eps,
                                 c.gamma, c.lambda_)  # fmt: skip
        ended, self._eps.ended = self._eps.ended, []
        window = -(-c.metrics_num_episodes_for_smoothing // (c.num_env_runners or 1))
        for length, ret, sec in ended[-window:]:  # the newest: what RLlib's means keep
            self._log_episode_metrics(length, ret, sec)
        steps = len(batch["actions"])
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=steps)
        self._increase_sampled_metrics(steps, len(ended))
        self.metrics.log_value(ILLEGAL_ACTIONS, 0, reduce="lifetime_sum")  # the engine raises
        return batch

    def _forward(self, obs: np.ndarray, mask: np.ndarray) -> dict[str, Any]:
        return {Columns.OBS: {OBS: torch.from_numpy(obs).to(self._device),
                              MASK: torch.from_numpy(mask).to(self._device)}}  # fmt: skip

    def _act(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sampled actions, their log-probs and the logits of ``obs`` rows."""
        module: Any = self.module
        with torch.no_grad():
            out = module.forward_exploration(self._forward(obs, mask))
            logits = out[Columns.ACTION_DIST_INPUTS]
            dist = module.get_exploration_action_dist_cls().from_logits(logits)
            a = dist.sample()
            return a.cpu().numpy(), dist.logp(a).cpu().numpy(), logits.cpu().numpy()

    def _values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The module's state values of ``obs`` rows."""
        module: Any = self.module
        with torch.no_grad():
            return cast(np.ndarray, module.compute_values(self._forward(obs, mask)).cpu().numpy())
