"""A batched engine's games for one env runner: one learning seat per game, the League in
the others; an ended game restarts inside the step. docs/rllib.md, "Batched env runners"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from cardsuite.agents.learned.netspec import obs_scale
from cardsuite.errors import ConfigError
from cardsuite.games import get_game
from cardsuite.train.core.games import train_game
from cardsuite.train.core.league import League, SeatMember

SELF = -1
"""Member id of a self-play game: its opponents are the newest snapshot."""

ENV_KEYS = ("game", "options", "seed", "learner_seat", "self_play", "baselines", "pfsp",
            "max_snapshots", "num_envs")  # fmt: skip


def make_engine(game: str, num_games: int, options: Mapping[str, Any]) -> Any:
    """The numpy batched engine of ``game`` (its record's) with ``num_games`` games."""
    return train_game(game).record.batched_class()(num_games, **dict(options))


def single_spaces(game: str, options: Mapping[str, Any]) -> tuple[spaces.Dict, spaces.Discrete]:
    """The per-game env's observation and action space of one seat (the module's spaces)."""
    env = get_game(game).make(**dict(options))
    agent = env.possible_agents[0]
    return env.observation_space(agent), env.action_space(agent)


class BatchedRLlibEnv:
    """``num_envs`` games of a batched engine for one env runner (module doc); ``env_config``
    keys: `ENV_KEYS` (any other is a ConfigError)."""

    def __init__(self, env_config: Mapping[str, Any]) -> None:
        """Build the engine, the seats and the League; call `reset` next."""
        unknown = sorted(set(env_config) - set(ENV_KEYS))
        if unknown:
            raise ConfigError(f"unknown batched env_config key(s) {unknown}; valid: {ENV_KEYS}")
        self.game = str(env_config.get("game", "scum"))
        self.options = dict(env_config.get("options") or {})
        self.num_envs = n = int(env_config.get("num_envs", 1))
        worker = int(getattr(env_config, "worker_index", 0))
        self.seed_value = int(env_config.get("seed", 0)) * 100_003 + worker * 7_919
        self.engine = make_engine(self.game, n, self.options)
        p = self.engine.num_players
        seat = env_config.get("learner_seat")
        if seat is None:
            self.learner = (np.arange(n) + worker) % p
        elif isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < p:
            raise ConfigError(
                f"learner_seat must be a seat from 0 to {p - 1} or null, got {seat!r}"
            )
        else:
            self.learner = np.full(n, seat, dtype=np.int64)
        self.self_play = float(env_config.get("self_play", 0.5))
        self.league = League.of(
            self.game, self.engine, list(env_config.get("baselines", ("heuristic", "random"))),
            seed=self.seed_value, max_snapshots=int(env_config.get("max_snapshots", 5)),
            pfsp=str(env_config.get("pfsp", "hard")), scale=obs_scale(self.engine.obs_spec),
        )  # fmt: skip
        obs_space, act_space = single_spaces(self.game, self.options)
        if obs_space["observation"].shape != (self.engine.obs_dim,):
            raise ConfigError(f"{self.game}: batched engine and per-game env disagree on obs size")
        self.single_observation_space, self.single_action_space = obs_space, act_space
        self.observation_space = gymnasium.vector.utils.batch_space(obs_space, n)
        self.action_space = gymnasium.vector.utils.batch_space(act_space, n)
        self._rng = np.random.default_rng(self.seed_value + 1)
        self._rows, self._opp = np.arange(n), np.full(n, SELF, dtype=np.int64)
        self._returns = np.zeros((n, p), dtype=np.float64)
        self._done: list[tuple[np.ndarray, np.ndarray]] = []
        self._obs: Any = None
        self._mask: Any = None

    @property
    def unwrapped(self) -> BatchedRLlibEnv:
        """Itself (RLlib's env runner asks an env for it)."""
        return self

    @property
    def table(self) -> list[SeatMember]:
        """The draw table the games' opponents come from (the driver League's)."""
        return self.league.seat_table()

    def set_table(self, table: Sequence[SeatMember]) -> None:
        """Draw from the driver League's table (`League.follow`) from the next game on."""
        self.league.follow(table)

    def take_outcomes(self) -> tuple[np.ndarray, np.ndarray]:
        """The league games ended since the last call: member ids, learner outcomes (1/0.5/0)."""
        ids = np.concatenate([np.zeros(0, dtype=np.int64), *(i for i, _ in self._done)])
        outcomes = np.concatenate([np.zeros(0), *(o for _, o in self._done)])
        self._done = []
        return ids, outcomes

    def _newest(self) -> int:
        snaps = [m.id for m in self.league.members if m.name.startswith("snapshot@")]
        return snaps[-1] if snaps else self.league.members[0].id

    def _draw(self, rows: np.ndarray) -> None:
        """New opponents for the games ``rows``: a League member by PFSP, else self-play."""
        league = self._rng.random(len(rows)) < 1.0 - self.self_play
        ids = np.full(len(rows), SELF, dtype=np.int64)
        if league.any():
            ids[league] = self.league.draw(int(league.sum()))
        self._opp[rows] = ids

    def reset(self, seed: int | None = None) -> None:
        """New games everywhere (``seed``: of the deals; None: the env's own)."""
        if seed is not None:
            self.seed_value = int(seed)
        self._obs, self._mask, _ = self.engine.reset(self.seed_value)
        self._draw(self._rows)
        self._returns[:] = 0.0

    def learner_ready(self) -> np.ndarray:
        """``[N]`` bools: the learning seat is to act in the game."""
        return np.asarray(self.engine.to_act()) == self.learner

    def current_obs(self) -> dict[str, np.ndarray]:
        """Every game's observation of the player to act now (a copy)."""
        return {"observation": np.asarray(self._obs, dtype=np.float32).copy(),
                "action_mask": np.asarray(self._mask).astype(np.int8)}  # fmt: skip

    def terminal_obs(self) -> dict[str, np.ndarray]:
        """The observation of a finished game: all zeros, all-zero mask."""
        return {"observation": np.zeros(self.engine.obs_dim, dtype=np.float32),
                "action_mask": np.zeros(self.engine.num_actions, dtype=np.int8)}  # fmt: skip

    def tick(self, actions: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One engine step of every game: the learners play ``actions`` (``None``: only the League
        moves); the learners' rewards, done and truncated ``[N]``. Ended games restart at once."""
        if self._obs is None:
            raise ConfigError("call reset() before tick()")
        waiting = ~self.learner_ready()
        acts = np.zeros(self.num_envs, dtype=np.int64)
        if actions is not None:
            acts[~waiting] = np.asarray(actions, dtype=np.int64)[~waiting]
        rows = np.flatnonzero(waiting)
        if rows.size:
            ids = self._opp[rows]
            ids = np.where(ids == SELF, self._newest(), ids)
            acts[rows] = self.league.act(ids, self._obs[rows], self._mask[rows])
        res = self.engine.step(acts, active=None if actions is not None else waiting)
        r = np.asarray(res.rewards, dtype=np.float32)
        self._returns += r
        done = np.asarray(res.done, dtype=bool)
        tr = getattr(res, "truncated", None)
        truncated = np.zeros_like(done) if tr is None else np.asarray(tr, dtype=bool) & done
        self._obs, self._mask = res.obs, res.mask
        if done.any():
            self._finish(np.flatnonzero(done))
        return r[self._rows, self.learner], done, truncated

    def _finish(self, rows: np.ndarray) -> None:
        """Record the league games that ended (PFSP), draw the next opponents."""
        ret = self._returns[rows]
        mine = ret[np.arange(len(rows)), self.learner[rows]]
        others = (ret.sum(axis=1) - mine) / max(1, self.engine.num_players - 1)
        outcome = np.where(mine > others, 1.0, np.where(mine < others, 0.0, 0.5))
        vs = self._opp[rows]
        league = vs != SELF
        if league.any():
            self.league.record(vs[league], outcome[league])
            self._done.append((vs[league], outcome[league]))
        self._returns[rows] = 0.0
        self._draw(rows)
        self.league.prune(self._opp)

    def close(self) -> None:
        """Nothing to release."""
