"""Train one learning seat on any batched engine: a Gymnasium vector env and an SB3 adapter.

[`BatchedVectorEnv`][cardsuite.batched.vector_env.BatchedVectorEnv]: player
``learner`` learns in every game, the other seats are played inside the batch
by `BatchPolicy` opponents, and each ``step`` returns the learner's next
decision with its rewards since the last one. Finished games restart in the
same step (``SAME_STEP``; ``info["final_obs"]`` as Gymnasium 1.x returns it).
[`sb3_vec_env`][cardsuite.batched.vector_env.sb3_vec_env] wraps one for ``MaskablePPO``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from cardsuite.batched.policies import BatchPolicy, RandomPolicy, fill_actions, seat_groups
from cardsuite.errors import ConfigError


class BatchedVectorEnv(gymnasium.vector.VectorEnv):  # type: ignore[type-arg]
    """The games of a batched engine seen from one learning seat (numpy outputs).

    Args:
        engine: the batched engine (its ``num_games`` is ``num_envs``).
        learner: player id of the learning seat in every game.
        opponents: one policy for every other seat, or a list with one per
            player id (the learner's entry is ignored); default random.
        seed: default seed of `reset`.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(
        self,
        engine: Any,
        *,
        learner: int = 0,
        opponents: BatchPolicy | Sequence[BatchPolicy] | None = None,
        seed: int = 0,
    ) -> None:
        """Wrap ``engine``; call `reset` next."""
        self.engine = engine
        n = engine.num_players
        if isinstance(learner, bool) or not isinstance(learner, int) or not 0 <= learner < n:
            raise ConfigError(f"learner must be a player id from 0 to {n - 1}, got {learner!r}")
        self.learner = learner
        self.num_envs = engine.num_games
        self.seed_value = seed
        self.opponents = opponents if opponents is not None else RandomPolicy(seed)  # type: ignore[assignment]
        low, high = engine.obs_spec.bounds()
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(engine.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode: str | None = None
        self._obs: Any = None
        self._mask: Any = None
        self._lengths = np.zeros(self.num_envs, dtype=np.int64)
        self._carry = np.zeros(self.num_envs, dtype=np.float32)  # rewards of new episodes
        self.final_obs = all(
            hasattr(engine, name) for name in ("autoreset", "restart_games", "observe_as")
        )
        if self.final_obs:
            engine.autoreset = False  # finished games are restarted by step(), after final_obs

    @property
    def opponents(self) -> list[BatchPolicy]:
        """One policy per player id (the learner's entry is never called)."""
        return self._opponents

    @opponents.setter
    def opponents(self, value: BatchPolicy | Sequence[BatchPolicy]) -> None:
        n = self.engine.num_players
        if callable(value):
            policies: list[BatchPolicy] = [value] * n
        else:
            policies = list(value)
            if len(policies) != n or not all(callable(p) for p in policies):
                raise ConfigError(f"opponents must be one policy or a list of {n} policies")
        self._opponents = policies
        others = [p if i != self.learner else None for i, p in enumerate(policies)]
        self._groups = seat_groups(others)

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
        self._carry[:] = 0.0
        self._advance(reward, done, done.copy())
        if self.final_obs:
            self._restart(done)  # over before the learner's first decision: deal again
        self._lengths[:] = 0
        self._carry[:] = 0.0
        return self._host(self._obs).copy(), {"action_mask": self.action_masks()}

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner acts in every game; the other seats play until its next turn.

        Returns ``(obs, reward, terminated, truncated, info)``; ``info`` holds
        ``action_mask``, ``episode_length`` and, when a game ended, ``final_obs``,
        ``_final_obs``, ``final_info`` and ``_final_info``.
        """
        if self._obs is None:
            raise ConfigError("call reset() before step()")
        xp = self.engine.xp
        res = self.engine.step(np.asarray(actions, dtype=np.int64).reshape(-1))
        reward = xp.to_numpy(res.rewards[:, self.learner]).astype(np.float32) + self._carry
        self._carry[:] = 0.0
        done = xp.to_numpy(res.done).astype(bool)
        truncated = self._truncated(res, done.shape[0])
        self._obs, self._mask = res.obs, res.mask
        self._advance(reward, done, truncated)
        self._lengths += 1
        lengths = self._lengths.copy()
        self._lengths[done] = 0
        infos: dict[str, Any] = {"episode_length": lengths}
        if self.final_obs and done.any():
            infos.update(self._finish(done, lengths))
        infos["action_mask"] = self.action_masks()
        return self._host(self._obs).copy(), reward, done & ~truncated, truncated, infos

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

    def _truncated(self, res: Any, n: int) -> np.ndarray:
        """The ``truncated`` flags of a step result (all false when the engine has none)."""
        flags = getattr(res, "truncated", None)
        if flags is None:
            return np.zeros(n, dtype=bool)
        return self.engine.xp.to_numpy(flags).astype(bool)

    def _finish(self, done: np.ndarray, lengths: np.ndarray) -> dict[str, Any]:
        """The final observations of the ``done`` games, then restart them (played to the
        learner's first decision; its rewards on the way are kept for the next step)."""
        final = self._host(self.engine.observe_as(self.learner))
        final_obs = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(done):
            final_obs[i] = np.array(final[i], dtype=np.float32)
        self._restart(done)
        return {
            "final_obs": final_obs,
            "_final_obs": done.copy(),
            "final_info": {"episode_length": np.where(done, lengths, 0), "_episode_length": done},
            "_final_info": done.copy(),
        }

    def _restart(self, ended: np.ndarray) -> None:
        """Restart the ``ended`` games and play them to the learner's first decision."""
        while ended.any():  # a new episode that ends before the learner acts restarts too
            self._obs, self._mask, _ = self.engine.restart_games(ended)
            fresh = np.zeros(self.num_envs, dtype=bool)
            self._advance(self._carry, fresh, fresh.copy(), only=ended)
            ended = fresh

    def _advance(
        self,
        reward: np.ndarray,
        done: np.ndarray,
        truncated: np.ndarray,
        *,
        only: np.ndarray | None = None,
    ) -> None:
        """Let the other seats play until the learner is to act in every game (a game that
        ended waits for `_finish`; ``only`` limits the play to some games)."""
        eng, xp = self.engine, self.engine.xp
        while True:
            to_act = eng.to_act()
            waiting_np = self._host(to_act) != self.learner
            if self.final_obs:
                waiting_np &= ~done
            if only is not None:
                waiting_np &= only
            if not waiting_np.any():
                return
            waiting = xp.asarray(waiting_np, xp.bool)
            actions = fill_actions(xp, self._groups, self._obs, self._mask, to_act, waiting)
            res = eng.step(actions, active=waiting)
            reward += xp.to_numpy(res.rewards[:, self.learner])
            done |= xp.to_numpy(res.done).astype(bool)
            truncated |= self._truncated(res, done.shape[0])
            self._obs, self._mask = res.obs, res.mask


class GameVectorEnv(BatchedVectorEnv):
    """A `BatchedVectorEnv` that builds its game's engine (``ENGINE``) of ``num_envs`` games.

    ``learner``, ``opponents`` and ``seed`` are as `BatchedVectorEnv`'s;
    ``backend`` and ``device`` the engine's (outputs are numpy either way);
    ``**config`` the game's config fields.
    """

    #: The game's batched engine class, ``cls(num_games, backend=, device=, **config)``.
    ENGINE: ClassVar[Callable[..., Any]]

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
        """Create the games; call `reset` next."""
        engine = self.ENGINE(num_envs, backend=backend, device=device, **config)
        super().__init__(engine, learner=learner, opponents=opponents, seed=seed)


def sb3_vec_env(env: BatchedVectorEnv) -> Any:
    """``env`` as a ``stable_baselines3`` ``VecEnv`` that ``MaskablePPO`` can train on."""
    from stable_baselines3.common.vec_env import VecEnv

    class BatchedSB3VecEnv(VecEnv):  # type: ignore[misc]
        """SB3 view of a `BatchedVectorEnv` (numpy in, numpy out)."""

        def __init__(self, inner: BatchedVectorEnv) -> None:
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
            obs, reward, terminated, truncated, info = self.inner.step(self._actions)
            done = terminated | truncated
            self._returns += reward
            infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
            for i in np.flatnonzero(truncated):
                infos[i]["TimeLimit.truncated"] = True
            final_obs = info.get("final_obs")
            for i in np.flatnonzero(done):
                if final_obs is not None and final_obs[i] is not None:
                    infos[i]["terminal_observation"] = final_obs[i]
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

    return BatchedSB3VecEnv(env)
