"""Self-play training on the batched Scum engine (``vec_env: batched``).

With ``vec_env: batched`` (Scum only) the trainer learns from
``n_envs`` games held in one :class:`~scum_env.batched.engine.BatchedScum`
instead of ``n_envs`` per-game envs in worker processes. The observation and
action layouts are those of ``scum_v0``, scaled by
:func:`~cardsuite.train.core.netspec.obs_scale` exactly as :class:`~train.wrappers.SelfPlayEnv`
does, so a policy trained either way is the same ``ppo:PATH`` agent.

The learner plays player ``learner_seat`` (``null``: player 0) in every game;
its role still changes from series to series, since a running game reseats
players by finish order (J3). Every other seat is played, across the whole
batch, by one opponent drawn from the pool: ``random``, ``heuristic`` (the
batched engine's vectorised lowest-first rule,
:class:`~scum_env.batched.policies.LowestFirstPolicy`, standing in for the
per-game heuristic, which reads one observation at a time) or a frozen
snapshot of the learner (sampling from its masked policy). The draw is
repeated whenever the trainer refreshes the snapshots.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from cardsuite.errors import ConfigError
from cardsuite.train.core.league import OpponentPool, SnapshotPolicy
from cardsuite.train.core.netspec import Snapshot, obs_scale
from scum_env.batched.policies import LowestFirstPolicy, RandomPolicy
from scum_env.batched.vector_env import ScumVectorEnv, sb3_vec_env


class BatchedSelfPlayEnv(ScumVectorEnv):
    """A :class:`ScumVectorEnv` whose opponents come from the training pool."""

    def __init__(
        self,
        num_envs: int,
        *,
        learner: int,
        probs: dict[str, float],
        max_snapshots: int,
        snapshots: Sequence[Snapshot] = (),
        seed: int = 0,
        **options: Any,
    ) -> None:
        """Create the games; opponents are drawn from ``probs`` per seat."""
        super().__init__(num_envs, learner=learner, seed=seed, **options)
        self.scale = obs_scale(self.engine.encoder.spec)
        self.pool = OpponentPool("scum", probs, max_snapshots)
        self._draws = np.random.default_rng(seed)
        self._base = {
            "random": RandomPolicy(seed),
            "heuristic": LowestFirstPolicy(self.engine.rules),
        }
        self.set_snapshots(list(snapshots))

    def set_snapshots(self, snapshots: list[Snapshot]) -> None:
        """Keep the newest snapshots and draw every opponent seat again."""
        self.pool.set_snapshots(snapshots)
        policies: list[Any] = []
        for _player in range(self.engine.P):
            kind, snap = self.pool.draw_kind(self._draws)
            if snap is not None:
                seed = int(self._draws.integers(2**31))
                policies.append(SnapshotPolicy(snap, self.scale, seed))
            else:
                policies.append(self._base[kind])
        self.opponents = policies


class ScaleObservations(VecEnvWrapper):  # type: ignore[misc]
    """Scale a VecEnv's observations into [-1, 1] (as the per-game wrapper does)."""

    def __init__(self, venv: VecEnv, scale: np.ndarray) -> None:
        """Multiply every observation by ``scale``."""
        space = venv.observation_space
        assert isinstance(space, spaces.Box)
        low, high = space.low * scale, space.high * scale
        super().__init__(venv, observation_space=spaces.Box(low, high, dtype=np.float32))
        self.scale = scale

    def reset(self) -> np.ndarray:
        """Scaled first observations."""
        return np.asarray(self.venv.reset() * self.scale, dtype=np.float32)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Scaled observations, rewards, dones, infos."""
        obs, reward, done, infos = self.venv.step_wait()
        return np.asarray(obs * self.scale, dtype=np.float32), reward, done, infos


def make_batched_vec_env(
    game: str,
    options: dict[str, Any],
    *,
    num_envs: int,
    learner: int | None,
    probs: dict[str, float],
    max_snapshots: int,
    snapshots: Sequence[Snapshot],
    seed: int,
) -> VecEnv:
    """The batched training VecEnv for MaskablePPO (Scum only)."""
    if game != "scum":
        raise ConfigError(
            f"vec_env 'batched' runs the batched Scum engine; game {game!r} needs "
            "vec_env 'auto', 'subproc' or 'dummy'"
        )
    inner = BatchedSelfPlayEnv(
        num_envs,
        learner=learner or 0,
        probs=probs,
        max_snapshots=max_snapshots,
        snapshots=snapshots,
        seed=seed,
        **options,
    )
    return ScaleObservations(sb3_vec_env(inner), inner.scale)
