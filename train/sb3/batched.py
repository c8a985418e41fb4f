"""Self-play MaskablePPO on a batched engine (``vec_env: batched``): the game's one-seat
batched vector env, observations scaled as `SelfPlayEnv` scales them (either way trains
the same ``ppo:PATH`` agent), the other seats drawn from the League's draw table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from cardsuite.agents.learned.netspec import obs_scale
from cardsuite.batched.vector_env import BatchedVectorEnv, sb3_vec_env
from cardsuite.errors import ConfigError
from cardsuite.games import get_game
from cardsuite.train.core.games import train_game
from cardsuite.train.core.league import SeatMember, SnapshotPolicy, draw_seat
from cardsuite.train.sb3.config import batched_refusal


class TallyEngine:
    """A batched engine that also sums each player's rewards per game (``returns``); a restarted
    game's sums move to ``final`` (the first restart since `take_final` wins)."""

    def __init__(self, engine: Any) -> None:
        shape = (engine.num_games, engine.num_players)  # own attributes (`__setattr__` forwards)
        ended = np.zeros(engine.num_games, dtype=bool)
        vars(self).update(inner=engine, returns=np.zeros(shape), final=np.zeros(shape), ended=ended)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.inner, name, value)

    def reset(self, *args: Any, **kwargs: Any) -> Any:
        """New games everywhere: every sum starts at zero."""
        self.returns[:] = 0.0
        self.ended[:] = False
        return self.inner.reset(*args, **kwargs)

    def step(self, *args: Any, **kwargs: Any) -> Any:
        """The engine's step; its rewards are added to ``returns``."""
        res = self.inner.step(*args, **kwargs)
        self.returns[...] += self.inner.xp.to_numpy(res.rewards)
        return res

    def restart_games(self, ended: Any) -> Any:
        """Restart the ``ended`` games; their sums move to ``final``."""
        idx = np.asarray(ended, dtype=bool)
        first = idx & ~self.ended
        self.final[first] = self.returns[first]
        self.ended[idx] = True
        self.returns[idx] = 0.0
        return self.inner.restart_games(ended)

    def take_final(self) -> tuple[np.ndarray, np.ndarray]:
        """``(ended, final)`` since the last call, then forget them."""
        out = self.ended.copy(), self.final.copy()
        self.ended[:] = False
        return out


class BatchedSelfPlayEnv(BatchedVectorEnv):
    """The game's one-seat batched vector env (its record's ``sb3_vec_env``) of ``num_envs``
    games, the ``learner`` in one seat, opponents drawn from the League's ``table``."""

    def __init__(
        self,
        num_envs: int,
        *,
        learner: int,
        table: Sequence[SeatMember],
        seed: int = 0,
        game: str = "scum",
        **options: Any,
    ) -> None:
        record = get_game(game)
        refusal = batched_refusal(record)
        if refusal is not None:
            raise ConfigError(f"vec_env {refusal}")
        front = record.part("sb3_vec_env")(num_envs, learner=learner, seed=seed, **options)
        super().__init__(TallyEngine(front.engine), learner=learner, seed=seed)
        self.scale = obs_scale(self.engine.obs_spec)
        self._draws = np.random.default_rng(seed)
        self._base = train_game(record.name).baselines(["random", "heuristic"], front.engine, seed)
        self.seats: list[SeatMember] = []
        self.set_league(table)

    def set_league(self, table: Sequence[SeatMember]) -> None:
        """Draw every opponent seat again from the League's draw ``table``."""
        policies: list[Any] = []
        self.seats = []
        for _player in range(self.engine.num_players):
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

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """New games; games restarted before the learner's first decision are not reported."""
        out = super().reset(seed=seed, options=options)
        self.engine.take_final()
        return out

    def league_results(self) -> dict[int, tuple[list[int], list[float]]]:
        """Each game that ended since the last call: the League ids of the other seats and
        the learner's outcome against each (1 beat, 0.5 tie, 0 lost), by game index."""
        ended, final = self.engine.take_final()
        others = [p for p in range(self.engine.num_players) if p != self.learner]
        ids = [self.seats[p].id for p in others]
        out: dict[int, tuple[list[int], list[float]]] = {}
        for g in np.flatnonzero(ended):
            own = final[g, self.learner]
            out[int(g)] = (ids, [0.5 + 0.5 * float(np.sign(own - final[g, p])) for p in others])
        return out


class SelfPlayVecEnv(VecEnvWrapper):  # type: ignore[misc]
    """SB3's view of a `BatchedSelfPlayEnv`: scaled observations, League outcomes in infos."""

    def __init__(self, inner: BatchedSelfPlayEnv) -> None:
        venv = sb3_vec_env(inner)
        space = venv.observation_space
        assert isinstance(space, spaces.Box)
        low, high = space.low * inner.scale, space.high * inner.scale
        super().__init__(venv, observation_space=spaces.Box(low, high, dtype=np.float32))
        self.inner = inner
        self.scale = inner.scale

    def reset(self) -> np.ndarray:
        """Scaled first observations."""
        return np.asarray(self.venv.reset() * self.scale, dtype=np.float32)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Scaled observations, rewards, dones, infos (``league_ids``/``league_outcomes``)."""
        obs, reward, done, infos = self.venv.step_wait()
        results = self.inner.league_results()
        for g in np.flatnonzero(done):
            if int(g) in results:
                infos[g]["league_ids"], infos[g]["league_outcomes"] = results[int(g)]
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
    """The batched training VecEnv for MaskablePPO (a game whose record names ``sb3_vec_env``)."""
    inner = BatchedSelfPlayEnv(
        num_envs, learner=learner or 0, table=table, seed=seed, game=game, **options
    )
    return SelfPlayVecEnv(inner)
