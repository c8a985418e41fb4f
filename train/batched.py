"""Self-play training on the batched Scum engine (``vec_env: batched``).

With ``vec_env: batched`` (Scum only) the trainer learns from
``n_envs`` games held in one [`BatchedScum`][scum_env.batched.engine.BatchedScum]
instead of ``n_envs`` per-game envs in worker processes. The observation and
action layouts are those of ``scum_v0``, scaled by
`obs_scale` exactly as [`SelfPlayEnv`][cardsuite.train.wrappers.SelfPlayEnv]
does, so a policy trained either way is the same ``ppo:PATH`` agent.

The learner plays player ``learner_seat`` (``null``: player 0) in every game;
its role still changes from series to series, since a running game reseats
players by finish order (J3). Every other seat is played, across the whole
batch, by one member drawn from the training core's League draw table
(`cardsuite.train.core.league.League.seat_table`): ``random``,
``heuristic`` (the game's real heuristic, vectorised: its record's batched
twin, as batched PPO plays it) or a frozen snapshot of the learner (sampling
from its masked policy). The draw is
repeated whenever the trainer sends the table (every rollout boundary).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from cardsuite.errors import ConfigError
from cardsuite.train.core.league import SeatMember, SnapshotPolicy, draw_seat
from cardsuite.train.core.netspec import obs_scale
from cardsuite.train.ppo_games import train_game
from scum_env.batched.vector_env import ScumVectorEnv, sb3_vec_env


class BatchedSelfPlayEnv(ScumVectorEnv):
    """A `ScumVectorEnv` whose opponents come from the training League."""

    def __init__(
        self,
        num_envs: int,
        *,
        learner: int,
        table: Sequence[SeatMember],
        seed: int = 0,
        **options: Any,
    ) -> None:
        """Create the games; opponents are drawn from the League's ``table`` per seat."""
        super().__init__(num_envs, learner=learner, seed=seed, **options)
        self.scale = obs_scale(self.engine.encoder.spec)
        self._draws = np.random.default_rng(seed)
        self._base = train_game("scum").baselines(["random", "heuristic"], self.engine, seed)
        self.seats: list[SeatMember] = []
        self.set_league(table)

    def set_league(self, table: Sequence[SeatMember]) -> None:
        """Draw every opponent seat again from the League's draw ``table``."""
        policies: list[Any] = []
        self.seats = []
        for _player in range(self.engine.P):
            member = draw_seat(table, self._draws)
            self.seats.append(member)
            if member.snapshot is not None:
                seed = int(self._draws.integers(2**31))
                policies.append(SnapshotPolicy(member.snapshot, self.scale, seed))
            else:
                policies.append(self._base[member.name])
        self.opponents = policies

    def seated_ids(self) -> list[int]:
        """The League member ids seated now."""
        return [m.id for m in self.seats]


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
    table: Sequence[SeatMember],
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
        table=table,
        seed=seed,
        **options,
    )
    return ScaleObservations(sb3_vec_env(inner), inner.scale)
