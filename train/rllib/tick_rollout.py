"""The tick sampler: every engine step moves every game, the learner's rows go to the module.

The vector-env view of a batched engine (:meth:`BatchedRLlibEnv.step_same
<cardsuite.train.rllib.batched_env.BatchedRLlibEnv.step_same>`) returns one
learner decision per game and step, so every step waits until the learner
is to act in *every* game: the opponents keep stepping the engine for the
slowest games (a learner who went out early watches the others play the
game to its end, a new game starts with an exchange), about 19 engine calls
per vector step for 4-player Scum, most of them moving a handful of games
while the engine's cost is per call over all games.

The tick sampler (used by :meth:`BatchedEnvRunner.sample_arrays
<cardsuite.train.rllib.batched_runner.BatchedEnvRunner.sample_arrays>`)
steps the engine once per *tick* in every game, as the single-machine
batched trainer does: the games where the learner is to act go through the
module in one forward pass, the others are played by their league member.
A tick yields about ``N / players`` learner decisions for one engine call.
Each decision is a transition of its game that lasts until the learner's
next decision there; the learner's rewards in between are added to it
(rewards before a game's first decision go to that decision). At the end of
a rollout the opponents move until the learner is to act in every game, so
an open transition bootstraps from the value of the learner's next
observation, and the next rollout starts where the vector env would.

GAE runs backwards over the ticks along each game's chain of decisions,
with RLlib's rules (:mod:`~cardsuite.train.rllib.array_batch`): a terminated
transition does not bootstrap, a truncated one bootstraps from the all-zero
terminal observation, neither passes the advantage across the ending.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardsuite.train.rllib.array_batch import ADVANTAGES, MASK, OBS, VALUE_TARGETS

ActFn = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]
"""``(obs [k, D], mask [k, A]) -> (actions [k], logp [k], logits [k, A])``."""
ValueFn = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``(obs [k, D], mask [k, A]) -> values [k]``."""


@dataclass
class Episodes:
    """Per-game running episode statistics of the learner, kept across rollouts."""

    ret: np.ndarray
    length: np.ndarray
    start: np.ndarray
    carry: np.ndarray  # learner rewards of a game before its first decision
    ended: list[tuple[int, float, float]] = field(default_factory=list)

    @classmethod
    def new(cls, n: int, now: float) -> Episodes:
        """Nothing running yet in ``n`` games."""
        return cls(np.zeros(n), np.zeros(n, np.int64), np.full(n, now), np.zeros(n, np.float32))


class Decisions:
    """Growing storage of the learner's decisions, in tick order."""

    def __init__(self, cap: int, obs_dim: int, num_actions: int) -> None:
        self.obs = np.empty((cap, obs_dim), np.float32)
        self.mask = np.empty((cap, num_actions), np.int8)
        self.logits = np.empty((cap, num_actions), np.float32)
        self.act = np.empty(cap, np.int64)
        self.logp = np.empty(cap, np.float32)
        self.game = np.empty(cap, np.int64)
        self.rew = np.zeros(cap, np.float32)
        self.term = np.zeros(cap, bool)
        self.trunc = np.zeros(cap, bool)
        self.next = np.full(cap, -1, np.int64)
        self.count = 0
        self.ticks = [0]


def _credit(rows: Decisions, open_row: np.ndarray, eps: Episodes, reward: np.ndarray,
            done: np.ndarray, truncated: np.ndarray, now: float) -> None:  # fmt: skip
    """Add one tick's learner rewards to the open transitions; close the ended games."""
    has = open_row >= 0
    rows.rew[open_row[has]] += reward[has]  # one open transition per game: unique rows
    eps.carry[~has] += reward[~has]
    eps.ret += reward
    if not done.any():
        return
    g = np.flatnonzero(done)
    closing = open_row[g]
    ok = closing >= 0
    rows.trunc[closing[ok]] = truncated[g[ok]]
    rows.term[closing[ok]] = ~truncated[g[ok]]
    eps.ended += [(int(eps.length[i]), float(eps.ret[i]), now - float(eps.start[i])) for i in g]
    open_row[g] = -1
    eps.ret[g] = 0.0
    eps.length[g] = 0
    eps.start[g] = now
    eps.carry[g] = 0.0


def tick_rollout(env: Any, act: ActFn, value: ValueFn, num_timesteps: int, eps: Episodes,
                 gamma: float, lam: float, clock: Callable[[], float]) -> dict[str, Any]:  # fmt: skip
    """At least ``num_timesteps`` learner decisions of ``env`` as a flat PPO train batch.

    ``env`` is a :class:`~cardsuite.train.rllib.batched_env.BatchedRLlibEnv`
    with the learner to act in every game (after ``reset`` or a previous
    rollout); it is left that way. Ended episodes are appended to
    ``eps.ended``. Advantages are not standardized (the driver does it).
    """
    return train_batch(collect(env, act, num_timesteps, eps, clock), env, value, gamma, lam)


def collect(env: Any, act: ActFn, num_timesteps: int, eps: Episodes,
            clock: Callable[[], float]) -> Decisions:  # fmt: skip
    """Tick until ``num_timesteps`` learner decisions, then up to the learner's turn everywhere."""
    n = env.num_envs
    rows = Decisions(int(num_timesteps) + n, env.engine.obs_dim, env.engine.num_actions)
    open_row = np.full(n, -1, np.int64)
    while rows.count < num_timesteps:
        ready = np.flatnonzero(env.learner_ready())
        actions = np.zeros(n, np.int64)
        if ready.size:
            k, c = ready.size, rows.count
            sl = slice(c, c + k)
            rows.obs[sl] = np.asarray(env._obs[ready], dtype=np.float32)
            rows.mask[sl] = np.asarray(env._mask[ready]).astype(np.int8, copy=False)
            a, rows.logp[sl], rows.logits[sl] = act(rows.obs[sl], rows.mask[sl])
            rows.act[sl] = a
            actions[ready] = a
            rows.game[sl] = ready
            prev = open_row[ready]
            linked = prev >= 0
            rows.next[prev[linked]] = np.arange(c, c + k)[linked]
            open_row[ready] = np.arange(c, c + k)
            rows.rew[sl] = eps.carry[ready]
            eps.carry[ready] = 0.0
            eps.length[ready] += 1
            rows.count += k
        reward, done, trunc = env.tick(actions)
        _credit(rows, open_row, eps, reward, done, trunc, clock())
        rows.ticks.append(rows.count)
    while not env.learner_ready().all():  # the opponents move up to the learner's turn
        reward, done, trunc = env.tick(None)
        _credit(rows, open_row, eps, reward, done, trunc, clock())
    return rows


def train_batch(
    rows: Decisions, env: Any, value: ValueFn, gamma: float, lam: float
) -> dict[str, Any]:
    """The flat batch of collected decisions: values, GAE along each game's decisions."""
    c = rows.count
    v = value(rows.obs[:c], rows.mask[:c])
    now = env.current_obs()
    v_boot = value(now[OBS], now[MASK])
    zero = env.terminal_obs()
    v_zero = float(value(zero[OBS][None], zero[MASK][None])[0])
    nxt = rows.next[:c]
    linked = nxt >= 0
    next_v = np.where(linked, v[np.maximum(nxt, 0)], v_boot[rows.game[:c]])
    next_v = np.where(rows.trunc[:c], np.float32(v_zero), next_v).astype(np.float32)
    live = 1.0 - rows.term[:c].astype(np.float32)
    carry_on = live * (1.0 - rows.trunc[:c].astype(np.float32))
    delta = rows.rew[:c] + gamma * live * next_v - v
    adv = np.zeros(c + 1, np.float32)  # adv[c] = 0: the link target of unlinked rows
    target = np.where(linked, nxt, c)
    for b in range(len(rows.ticks) - 2, -1, -1):
        sl = slice(rows.ticks[b], rows.ticks[b + 1])
        adv[sl] = delta[sl] + gamma * lam * carry_on[sl] * adv[target[sl]]
    return {
        "obs": {OBS: rows.obs[:c], MASK: rows.mask[:c]},
        "actions": rows.act[:c],
        "action_logp": rows.logp[:c],
        "action_dist_inputs": rows.logits[:c],
        ADVANTAGES: adv[:c],
        VALUE_TARGETS: (adv[:c] + v).astype(np.float32),
    }
