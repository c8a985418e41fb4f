"""The tick sampler: every engine step moves every game, the learner's rows go to the module.

The vector-env view of a batched engine (`BatchedRLlibEnv.step_same`) returns one
learner decision per game and step, so every step waits until the learner
is to act in *every* game: the opponents keep stepping the engine for the
slowest games (a learner who went out early watches the others play the
game to its end, a new game starts with an exchange), about 19 engine calls
per vector step for 4-player Scum, most of them moving a handful of games
while the engine's cost is per call over all games.

The tick sampler (used by `BatchedEnvRunner.sample_arrays`)
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
with RLlib's rules (`array_batch`): a terminated
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
    """Running episode statistics (of each game's learner seat) and what a rollout hands on.

    ``carry`` (``[N * P]``, one entry per game and seat) holds a learning
    seat's rewards before its first decision in a game; ``pending`` the
    decisions still open at the end of the last rollout whose seat was not
    to act then (every seat of a self-play game learns with ``all_seats``):
    their next observation does not exist yet, so they join the next batch.
    """

    ret: np.ndarray
    length: np.ndarray
    start: np.ndarray
    carry: np.ndarray
    ended: list[tuple[int, float, float]] = field(default_factory=list)
    pending: Decisions | None = None

    @classmethod
    def new(cls, n: int, now: float, players: int = 1) -> Episodes:
        """Nothing running yet in ``n`` games of ``players`` seats."""
        return cls(np.zeros(n), np.zeros(n, np.int64), np.full(n, now),
                   np.zeros(n * players, np.float32))  # fmt: skip


class Decisions:
    """Growing storage of the learning seats' decisions, in tick order.

    ``slot`` is ``game * players + seat``; ``next`` links a decision to the
    same slot's next one (-1: none in this rollout).
    """

    def __init__(self, cap: int, obs_dim: int, num_actions: int, players: int) -> None:
        self.players = players
        self.obs = np.empty((cap, obs_dim), np.float32)
        self.mask = np.empty((cap, num_actions), np.int8)
        self.logits = np.empty((cap, num_actions), np.float32)
        self.act = np.empty(cap, np.int64)
        self.logp = np.empty(cap, np.float32)
        self.slot = np.empty(cap, np.int64)
        self.rew = np.zeros(cap, np.float32)
        self.term = np.zeros(cap, bool)
        self.trunc = np.zeros(cap, bool)
        self.next = np.full(cap, -1, np.int64)
        self.count = 0
        self.ticks = [0]

    @property
    def game(self) -> np.ndarray:
        """The game of every decision stored so far."""
        return self.slot[: self.count] // self.players

    def take(self, idx: np.ndarray) -> Decisions:
        """A copy of the decisions ``idx`` (in that order, unlinked)."""
        out = Decisions(len(idx), self.obs.shape[1], self.mask.shape[1], self.players)
        for name in ("obs", "mask", "logits", "act", "logp", "slot", "rew"):
            getattr(out, name)[:] = getattr(self, name)[idx]
        out.count = len(idx)
        return out


def _credit(rows: Decisions, open_row: np.ndarray, eps: Episodes, env: Any,
            seats: np.ndarray, reward: np.ndarray, done: np.ndarray, truncated: np.ndarray,
            now: float) -> None:  # fmt: skip
    """Add one tick's rewards ``[N, P]`` to the open decisions; close the ended games.

    ``seats`` are the learning seats ``[N, P]`` of the games the rewards
    belong to (before an ended game drew its next opponents).
    """
    flat = reward.reshape(-1)
    has = open_row >= 0
    rows.rew[open_row[has]] += flat[has]  # one open decision per slot: unique rows
    early = ~has & seats.reshape(-1)
    eps.carry[early] += flat[early]
    eps.ret += reward[np.arange(len(done)), env.learner]
    if not done.any():
        return
    p = rows.players
    g = np.flatnonzero(done)
    slots = (g[:, None] * p + np.arange(p)[None, :]).reshape(-1)
    closing = open_row[slots]
    ok = closing >= 0
    cut = np.repeat(truncated[g], p)
    rows.trunc[closing[ok]] = cut[ok]
    rows.term[closing[ok]] = ~cut[ok]
    eps.ended += [(int(eps.length[i]), float(eps.ret[i]), now - float(eps.start[i])) for i in g]
    open_row[slots] = -1
    eps.carry[slots] = 0.0
    eps.ret[g] = 0.0
    eps.length[g] = 0
    eps.start[g] = now


def tick_rollout(env: Any, act: ActFn, value: ValueFn, num_timesteps: int, eps: Episodes,
                 gamma: float, lam: float,
                 clock: Callable[[], float]) -> tuple[dict[str, Any], int]:  # fmt: skip
    """At least ``num_timesteps`` new learner decisions of ``env`` as a flat PPO train batch.

    ``env`` is a `BatchedRLlibEnv`
    with a learning seat to act in every game (after ``reset`` or a previous
    rollout); it is left that way. Ended episodes are appended to
    ``eps.ended``. Advantages are not standardized (the driver does it).
    Returns the batch (the decisions handed on by the last rollout included,
    the ones handed on to the next left out) and the new decisions sampled.
    """
    before = 0 if eps.pending is None else eps.pending.count
    rows = collect(env, act, num_timesteps, eps, clock)
    return train_batch(rows, env, value, gamma, lam, eps), rows.count - before


def collect(env: Any, act: ActFn, num_timesteps: int, eps: Episodes,
            clock: Callable[[], float]) -> Decisions:  # fmt: skip
    """Tick until ``num_timesteps`` new decisions, then up to a learning seat's turn everywhere.

    The decisions ``eps.pending`` handed on by the last rollout come first,
    open again.
    """
    n, p = env.num_envs, env.engine.num_players
    pend, eps.pending = eps.pending, None
    k0 = 0 if pend is None else pend.count
    rows = Decisions(int(num_timesteps) + n + k0, env.engine.obs_dim, env.engine.num_actions, p)
    open_row = np.full(n * p, -1, np.int64)
    if pend is not None and k0:
        for name in ("obs", "mask", "logits", "act", "logp", "slot", "rew"):
            getattr(rows, name)[:k0] = getattr(pend, name)[:k0]
        open_row[pend.slot[:k0]] = np.arange(k0)
        rows.count = k0
        rows.ticks.append(k0)
    while rows.count - k0 < num_timesteps:
        to_act = np.asarray(env.engine.to_act())
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
            slots = ready * p + to_act[ready]
            rows.slot[sl] = slots
            prev = open_row[slots]
            linked = prev >= 0
            rows.next[prev[linked]] = np.arange(c, c + k)[linked]
            open_row[slots] = np.arange(c, c + k)
            rows.rew[sl] = eps.carry[slots]
            eps.carry[slots] = 0.0
            eps.length[ready[to_act[ready] == env.learner[ready]]] += 1
            rows.count += k
        seats = env.learning_seats()
        reward, done, trunc = env.tick(actions)
        _credit(rows, open_row, eps, env, seats, reward, done, trunc, clock())
        rows.ticks.append(rows.count)
    while not env.learner_ready().all():  # the opponents move up to a learning seat's turn
        seats = env.learning_seats()
        reward, done, trunc = env.tick(None)
        _credit(rows, open_row, eps, env, seats, reward, done, trunc, clock())
    return rows


def train_batch(rows: Decisions, env: Any, value: ValueFn, gamma: float, lam: float,
                eps: Episodes | None = None) -> dict[str, Any]:  # fmt: skip
    """The flat batch of collected decisions: values, GAE along each slot's decisions.

    A decision open at the end whose seat is to act now bootstraps from the
    value of the current observation. One whose seat is not to act (a
    self-play game's other seats with ``all_seats``) has no next observation
    yet: the decisions before it bootstrap from its value (GAE cut there, as
    at any chunk end) and it is left out of this batch and handed on in
    ``eps.pending`` (dropped when ``eps`` is None).
    """
    c = rows.count
    v = value(rows.obs[:c], rows.mask[:c])
    now = env.current_obs()
    v_boot = value(now[OBS], now[MASK])
    zero = env.terminal_obs()
    v_zero = float(value(zero[OBS][None], zero[MASK][None])[0])
    game = rows.game
    nxt = rows.next[:c]
    linked = nxt >= 0
    ended = rows.term[:c] | rows.trunc[:c]
    to_act = np.asarray(env.engine.to_act())
    pending = ~linked & ~ended & (rows.slot[:c] % rows.players != to_act[game])
    next_v = np.where(linked, v[np.maximum(nxt, 0)], v_boot[game])
    next_v = np.where(rows.trunc[:c], np.float32(v_zero), next_v).astype(np.float32)
    live = 1.0 - rows.term[:c].astype(np.float32)
    carry_on = live * (1.0 - rows.trunc[:c].astype(np.float32))
    delta = rows.rew[:c] + gamma * live * next_v - v
    adv = np.zeros(c + 1, np.float32)  # adv[c] = 0: the link target of unlinked rows
    target = np.where(linked, nxt, c)
    target = np.where(linked & pending[np.maximum(nxt, 0)], c, target)  # GAE cut at pending
    for b in range(len(rows.ticks) - 2, -1, -1):
        sl = slice(rows.ticks[b], rows.ticks[b + 1])
        adv[sl] = delta[sl] + gamma * lam * carry_on[sl] * adv[target[sl]]
    keep = np.flatnonzero(~pending)
    if eps is not None and pending.any():
        eps.pending = rows.take(np.flatnonzero(pending))
    return {
        "obs": {OBS: rows.obs[keep], MASK: rows.mask[keep]},
        "actions": rows.act[keep],
        "action_logp": rows.logp[keep],
        "action_dist_inputs": rows.logits[keep],
        ADVANTAGES: adv[keep],
        VALUE_TARGETS: (adv[keep] + v[keep]).astype(np.float32),
    }
