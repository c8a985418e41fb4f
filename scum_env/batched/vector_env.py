"""Train one learning seat on the batched engine: a Gymnasium vector env and an SB3 adapter.

:class:`ScumVectorEnv` holds ``num_envs`` games of :class:`BatchedScum`. In
every game, player ``learner`` is the learning seat; the other seats are
played inside the batch by the given :data:`~scum_env.batched.policies.BatchPolicy`
(random, the lowest-first heuristic, or the learner itself through
:func:`~scum_env.batched.policies.sb3_policy`), so each ``step`` returns the
observation of the learner's next decision in every game. The learner keeps
its player id while its role changes from series to series (J3), so it
learns every role.

Rewards are the learner's episode rewards (``scum_v0``'s, at the episode end,
0 before). Finished games restart in the same step (Gymnasium's ``SAME_STEP``
autoreset, SB3's convention): the returned observation is already the first
decision of the next episode. Episodes only terminate, never truncate, so no
final observation is needed for bootstrapping and none is returned.

SB3 does not accept a Gymnasium ``VectorEnv``; :func:`sb3_vec_env` wraps one
as a ``stable_baselines3`` ``VecEnv`` (imported lazily: the core does not need
SB3) with ``env_method("action_masks")``, which is what ``MaskablePPO`` calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from cardsuite.errors import ConfigError
from scum_env.batched.engine import BatchedScum
from scum_env.batched.policies import BatchPolicy, RandomPolicy


class ScumVectorEnv(gymnasium.vector.VectorEnv):  # type: ignore[type-arg]
    """``num_envs`` Scum games seen from one learning seat (numpy outputs).

    Args:
        num_envs: number of games.
        learner: player id of the learning seat in every game.
        opponents: one policy for every other seat, or a list with one per
            player id (the learner's entry is ignored); default random.
        seed: default seed of :meth:`reset`.
        backend, device: the engine's backend (outputs are numpy either way).
        **config: :class:`~scum_env.config.ScumConfig` fields.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int,
        *,
        learner: int = 0,
        opponents: BatchPolicy | Sequence[BatchPolicy] | None = None,
        seed: int = 0,
        backend: str = "numpy",
        device: str | None = None,
        **config: Any,
    ) -> None:
        """Create the games; call :meth:`reset` next."""
        self.engine = BatchedScum(num_envs, backend=backend, device=device, **config)
        n = self.engine.P
        if isinstance(learner, bool) or not isinstance(learner, int) or not 0 <= learner < n:
            raise ConfigError(f"learner must be a player id from 0 to {n - 1}, got {learner!r}")
        self.learner = learner
        self.num_envs = num_envs
        self.seed_value = seed
        if opponents is None:
            opponents = RandomPolicy(seed)
        if callable(opponents):
            self.opponents: list[BatchPolicy] = [opponents] * n
        else:
            self.opponents = list(opponents)
            if len(self.opponents) != n or not all(callable(p) for p in self.opponents):
                raise ConfigError(f"opponents must be one policy or a list of {n} policies")
        low, high = self.engine.encoder.spec.bounds()
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.engine.num_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self.render_mode: str | None = None
        self._obs: Any = None
        self._mask: Any = None
        self._lengths = np.zeros(num_envs, dtype=np.int64)

    # ---------------------------------------------------------------- gymnasium
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """New games in every slot; the learner's first observations and masks."""
        if seed is not None:
            self.seed_value = seed
        self._obs, self._mask, _ = self.engine.reset(self.seed_value)
        reward = np.zeros(self.num_envs, dtype=np.float32)
        done = np.zeros(self.num_envs, dtype=bool)
        self._advance(reward, done)
        self._lengths[:] = 0
        return self._host(self._obs).copy(), {"action_mask": self.action_masks()}

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner acts in every game; the other seats play until its next turn."""
        if self._obs is None:
            raise ConfigError("call reset() before step()")
        xp = self.engine.xp
        res = self.engine.step(np.asarray(actions, dtype=np.int64).reshape(-1))
        reward = xp.to_numpy(res.rewards[:, self.learner]).astype(np.float32)
        done = xp.to_numpy(res.done).astype(bool)
        self._obs, self._mask = res.obs, res.mask
        self._advance(reward, done)
        self._lengths += 1
        lengths = self._lengths.copy()
        self._lengths[done] = 0
        infos = {"action_mask": self.action_masks(), "episode_length": lengths}
        truncated = np.zeros(self.num_envs, dtype=bool)
        return self._host(self._obs).copy(), reward, done, truncated, infos

    def action_masks(self) -> np.ndarray:
        """``[num_envs, A]`` bool masks of the learner's current decisions (MaskablePPO)."""
        if self._mask is None:
            raise ConfigError("call reset() before action_masks()")
        return self._host(self._mask).astype(bool)

    def close(self, **kwargs: Any) -> None:
        """Nothing to release."""

    # ---------------------------------------------------------------- internals
    def _host(self, x: Any) -> np.ndarray:
        return self.engine.xp.to_numpy(x)

    def _advance(self, reward: np.ndarray, done: np.ndarray) -> None:
        """Let the other seats play until the learner is to act in every game."""
        eng, xp = self.engine, self.engine.xp
        while True:
            to_act = eng.to_act()
            waiting = to_act != self.learner
            if not xp.any(waiting):
                return
            actions = xp.zeros((self.num_envs,), xp.int64)
            for policy in _distinct(self.opponents):
                seats = [
                    p for p, q in enumerate(self.opponents) if q is policy and p != self.learner
                ]
                rows = waiting & _isin(xp, to_act, seats)
                idx = xp.nonzero(rows)
                if idx.shape[0]:
                    chosen = policy(self._obs[idx], self._mask[idx])
                    actions[idx] = xp.asarray(chosen, xp.int64)
            res = eng.step(actions, active=waiting)
            # a game ends at most once per learner step in practice; rewards add up regardless
            reward += xp.to_numpy(res.rewards[:, self.learner])
            done |= xp.to_numpy(res.done).astype(bool)
            self._obs, self._mask = res.obs, res.mask


def _distinct(policies: list[BatchPolicy]) -> list[BatchPolicy]:
    out: list[BatchPolicy] = []
    for p in policies:
        if not any(p is q for q in out):
            out.append(p)
    return out


def _isin(xp: Any, values: Any, seats: list[int]) -> Any:
    hit = values < 0
    for s in seats:
        hit = hit | (values == s)
    return hit


def sb3_vec_env(env: ScumVectorEnv) -> Any:
    """``env`` as a ``stable_baselines3`` ``VecEnv`` that ``MaskablePPO`` can train on."""
    from stable_baselines3.common.vec_env import VecEnv

    class ScumSB3VecEnv(VecEnv):  # type: ignore[misc]
        """SB3 view of a :class:`ScumVectorEnv` (numpy in, numpy out)."""

        def __init__(self, inner: ScumVectorEnv) -> None:
            self.inner = inner
            super().__init__(
                inner.num_envs, inner.single_observation_space, inner.single_action_space
            )
            self._actions: np.ndarray | None = None
            self._returns = np.zeros(inner.num_envs, dtype=np.float64)

        def reset(self) -> np.ndarray:
            seed = self._seeds[0] if any(s is not None for s in self._seeds) else None
            obs, _ = self.inner.reset(seed=seed)
            self._reset_seeds()
            self._returns[:] = 0.0
            return obs

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = np.asarray(actions)

        def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
            obs, reward, done, _, info = self.inner.step(self._actions)
            self._returns += reward
            infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
            for i in np.flatnonzero(done):
                infos[i]["episode"] = {
                    "r": float(self._returns[i]),
                    "l": int(info["episode_length"][i]),
                    "t": 0.0,
                }
                self._returns[i] = 0.0
            return obs, reward, done, infos

        def close(self) -> None:
            self.inner.close()

        def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
            value = getattr(self.inner, attr_name)
            return [value] * len(list(self._get_indices(indices)))

        def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
            setattr(self.inner, attr_name, value)

        def env_method(
            self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any
        ) -> list[Any]:
            rows = list(self._get_indices(indices))
            if method_name == "action_masks":
                masks = self.inner.action_masks()
                return [masks[i] for i in rows]
            result = getattr(self.inner, method_name)(*args, **kwargs)
            return [result] * len(rows)

        def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
            return [False] * len(list(self._get_indices(indices)))

    return ScumSB3VecEnv(env)
