"""Self-play MaskablePPO on a batched engine (``vec_env: batched``).

The learner plays seat ``learner_seat`` (``null``: player 0) in each of
``num_games`` games held in one batched engine: the game's record names the
one-seat batched vector env that builds it (its ``sb3_vec_env`` part, Scum's
[`ScumVectorEnv`][scum_env.batched.adapters.ScumVectorEnv]; other games are
refused by `cardsuite.train.sb3.config.batched_refusal`). Observations are
scaled as [`SelfPlayEnv`][cardsuite.train.sb3.single_seat.SelfPlayEnv] scales
them, so either way trains the same ``ppo:PATH`` agent. Every other seat is
played across the batch by one member drawn from the League's draw table
(drawn again each time the trainer sends it), and each game's last step
reports ``league_ids`` and ``league_outcomes`` as the per-game env does.
"""

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
    """A batched engine that also sums every player's rewards of each game's episode.

    Everything else is the wrapped engine's (attributes are read and set on
    it, so the sums are only ever updated in place). ``returns[g, p]`` is player ``p``'s reward so far in game ``g``; when
    a game is restarted, its sums move to ``final`` (the first restart of a
    game since `take_final` wins: a new episode that ends before the learner
    acts is restarted again and never reported, as in the per-game env).
    """

    def __init__(self, engine: Any) -> None:
        """Wrap ``engine``."""
        shape = (engine.num_games, engine.num_players)
        object.__setattr__(self, "inner", engine)
        object.__setattr__(self, "returns", np.zeros(shape))
        object.__setattr__(self, "final", np.zeros(shape))
        object.__setattr__(self, "ended", np.zeros(engine.num_games, dtype=bool))

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
    """The game's one-seat batched vector env whose opponents come from the training League.

    Args:
        num_envs: games in the batch.
        learner: the learner's player id in every game.
        table: the League's draw table (`League.seat_table`).
        seed: seeds the engine's deals and the draws.
        game: the game's registry name (its record must name ``sb3_vec_env``).
        **options: the game's config fields.
    """

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
        """Create the games; opponents are drawn from the League's ``table`` per seat."""
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
    """SB3's view of a `BatchedSelfPlayEnv`: observations scaled into [-1, 1] (as the
    per-game wrapper scales them) and League outcomes in each finished game's info."""

    def __init__(self, inner: BatchedSelfPlayEnv) -> None:
        """Wrap ``inner`` for MaskablePPO."""
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
