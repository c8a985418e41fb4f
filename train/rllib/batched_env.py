"""A batched engine as one RLlib env per env runner: a Gymnasium vector env, opponents inside.

RLlib's ``SingleAgentEnvRunner`` accepts an env creator that already returns a
``gymnasium.vector.VectorEnv`` (``gym_env_vectorize_mode="vector_entry_point"``).
`BatchedRLlibEnv` is that vector env: ``num_envs`` games of one
batched engine ([`BatchedEngine`][cardsuite.batched.protocol.BatchedEngine]: Scum,
Scandal or Scum Party), seen from one learning seat per game. The other seats
are played inside the batch by a `League` that follows the driver's
(`set_table`: the real heuristic, random, and frozen snapshots of the learner
drawn by PFSP; the finished games' outcomes go back by `take_outcomes`) or, in a share ``1 - league_prob`` of the games, by the newest snapshot
(self-play). Nothing loops over games in Python: one ``step`` is a handful of
array calls on the engine and one policy call per league member.

What RLlib sees is exactly what the per-game env gives one seat:

* observations are the suite's dict ``{"observation": float32[D],
  "action_mask": int8[A]}`` with the per-game env's spaces (taken from it), so
  the same `MaskedPPOTorchRLModule` trains
  and a checkpoint stays an ``rllib:PATH`` arena agent;
* rewards are the learner's rewards summed between two of its decisions;
* autoreset is Gymnasium's ``NEXT_STEP`` (what the env runner expects): the
  step that ends a game returns an all-zero terminal observation (all-zero
  mask), the next step ignores that game's action and returns the first
  decision of the new game (reward 0, plus any reward the learner got in the
  new game before its first decision). The engine restarts the game inside
  the ending step; the new game waits until then.

Truncated games (Scandal's limits, S4) end as ``truncated``; their terminal
observation is the all-zero one, so RLlib bootstraps them from a value of
that observation rather than the lost real one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from cardsuite.agents.learned.netspec import obs_scale
from cardsuite.errors import ConfigError
from cardsuite.games import get_game
from cardsuite.train.core.games import train_game
from cardsuite.train.core.league import League, SeatMember

SELF = -1
"""Member id of a self-play game: its opponents are the newest snapshot."""

ENV_KEYS = (
    "game", "options", "seed", "learner_seat", "league_prob", "baselines", "pfsp",
    "league_size", "num_envs", "tick", "overlap", "all_seats",
)  # fmt: skip


def make_engine(game: str, num_games: int, options: Mapping[str, Any]) -> Any:
    """The numpy batched engine of ``game`` (its record's) with ``num_games`` games and ``options``."""
    return train_game(game).record.batched_class()(num_games, **dict(options))


def baseline_policy(name: str, game: str, engine: Any, seed: int) -> Callable[[Any, Any], Any]:
    """The batch policy of a named baseline for ``game``: the trainers' own.

    ``random`` everywhere; ``heuristic``: the game's real heuristic, the
    ``batched_heuristic`` of its record (`BatchedScumHeuristic`,
    `BatchedPartyHeuristic`, `BatchedScandalHeuristic`), built exactly as
    ``cardsuite ppo`` and ``dmc`` build it (`TrainGame.baselines`), so an RLlib
    run trains against the opponent the suite judges it by.
    """
    if name not in BASELINES:
        raise ConfigError(f"league baseline {name!r} is not one of {', '.join(BASELINES)}")
    policy: Callable[[Any, Any], Any] = train_game(game).baselines([name], engine, seed)[name]
    return policy


#: The fixed opponents a league may hold, for every game the batched trainers play.
BASELINES = ("heuristic", "random")


def check_baselines(game: str, names: list[str]) -> None:
    """ConfigError naming ``league_baselines`` if a name is not a baseline of ``game``."""
    train_game(game)  # the game is one the batched trainers play (its record says so)
    bad = [n for n in names if n not in BASELINES]
    if bad:
        raise ConfigError(
            f"league_baselines: {', '.join(map(repr, bad))} not available for {game!r}; "
            f"use {', '.join(BASELINES)}"
        )


def single_spaces(game: str, options: Mapping[str, Any]) -> tuple[spaces.Dict, spaces.Discrete]:
    """The per-game env's observation and action space of one seat (the module's spaces)."""
    env = get_game(game).make(**dict(options))
    agent = env.possible_agents[0]
    return env.observation_space(agent), env.action_space(agent)


class BatchedRLlibEnv(gymnasium.vector.VectorEnv):  # type: ignore[type-arg]
    """``num_envs`` games of a batched engine for one RLlib env runner (module doc).

    ``env_config`` keys (all optional but ``game``): ``game``, ``options``
    (rule options), ``num_envs`` (set by RLlib), ``seed``, ``learner_seat``
    (None: game ``i`` of runner ``w`` learns at seat ``(i + w) % players``),
    ``league_prob`` (share of games against league members; the rest are
    self-play against the newest snapshot), ``baselines`` (names),
    ``pfsp`` (weighting), ``league_size`` (snapshots kept). RLlib's
    ``worker_index`` is read from the ``EnvContext``. The driver's League
    replaces the draw table at every sync (`set_table`).
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(self, env_config: Mapping[str, Any]) -> None:
        """Build the engine and the league; call `reset` next."""
        unknown = sorted(set(env_config) - set(ENV_KEYS))
        if unknown:
            raise ConfigError(f"unknown batched env_config key(s) {unknown}; valid: {ENV_KEYS}")
        self.game = str(env_config.get("game", "scum"))
        self.options = dict(env_config.get("options") or {})
        self.num_envs = int(env_config.get("num_envs", 1))
        self.worker_index = int(getattr(env_config, "worker_index", 0))
        base_seed = int(env_config.get("seed", 0))
        self.seed_value = base_seed * 100_003 + self.worker_index * 7_919
        self.engine = make_engine(self.game, self.num_envs, self.options)
        n, p = self.num_envs, self.engine.num_players
        seat = env_config.get("learner_seat")
        if seat is None:
            self.learner = (np.arange(n) + self.worker_index) % p
        elif isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < p:
            raise ConfigError(
                f"learner_seat must be a seat from 0 to {p - 1} or null, got {seat!r}"
            )
        else:
            self.learner = np.full(n, seat, dtype=np.int64)
        self.league_prob = float(env_config.get("league_prob", 0.5))
        self.tick_sampler = bool(env_config.get("tick", True))
        self.all_seats = bool(env_config.get("all_seats", False))
        names = list(env_config.get("baselines", ("heuristic", "random")))
        self.league = League(
            {nm: baseline_policy(nm, self.game, self.engine, self.seed_value) for nm in names},
            max_snapshots=int(env_config.get("league_size", 5)),
            weighting=str(env_config.get("pfsp", "hard")),
            seed=self.seed_value,
            scale=obs_scale(self.engine.obs_spec),
        )
        self._done_ids: list[np.ndarray] = []
        self._done_outcomes: list[np.ndarray] = []
        self.single_observation_space, self.single_action_space = single_spaces(
            self.game, self.options
        )
        if self.single_observation_space["observation"].shape != (self.engine.obs_dim,):
            raise ConfigError(f"{self.game}: batched engine and per-game env disagree on obs size")
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, n
        )
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, n)
        self.render_mode: str | None = None
        self._rng = np.random.default_rng(self.seed_value + 1)
        self._rows = np.arange(n)
        self._opp = np.full(n, SELF, dtype=np.int64)
        self._pending = np.zeros(n, dtype=bool)
        self._carry = np.zeros(n, dtype=np.float32)
        self._returns = np.zeros((n, p), dtype=np.float64)
        self._obs: Any = None
        self._mask: Any = None
        self._zero_obs = np.zeros((n, self.engine.obs_dim), dtype=np.float32)
        self._zero_mask = np.zeros((n, self.engine.num_actions), dtype=np.int8)

    # ------------------------------------------------------------- the league
    @property
    def table(self) -> list[SeatMember]:
        """The draw table the games' opponents come from (the driver League's)."""
        return self.league.seat_table()

    def set_table(self, table: Sequence[SeatMember]) -> None:
        """Draw from the driver League's table (`League.follow`) from the next game on."""
        self.league.follow(table)

    def take_outcomes(self) -> tuple[np.ndarray, np.ndarray]:
        """The league games ended since the last call: member ids, learner outcomes (1/0.5/0)."""
        ids = np.concatenate([np.zeros(0, dtype=np.int64), *self._done_ids])
        outcomes = np.concatenate([np.zeros(0), *self._done_outcomes])
        self._done_ids, self._done_outcomes = [], []
        return ids, outcomes

    def league_names(self) -> list[str]:
        """Names of the league's current members (baselines, then snapshots)."""
        return [m.name for m in self.league.members]

    def _newest(self) -> int:
        snaps = [m.id for m in self.league.members if m.name.startswith("snapshot@")]
        return snaps[-1] if snaps else self.league.members[0].id

    def _draw(self, rows: np.ndarray) -> None:
        """New opponents for the games ``rows``: league member by PFSP, else self-play."""
        league = self._rng.random(len(rows)) < self.league_prob
        ids = np.full(len(rows), SELF, dtype=np.int64)
        if league.any():
            ids[league] = self.league.draw(int(league.sum()))
        self._opp[rows] = ids

    # ---------------------------------------------------------------- gymnasium
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """New games everywhere; the learners' first observations."""
        if seed is not None:
            self.seed_value = int(seed)
        self._obs, self._mask, _ = self.engine.reset(self.seed_value)
        self._draw(self._rows)
        self._pending[:] = False
        self._returns[:] = 0.0
        self._carry[:] = 0.0
        self._advance(np.zeros(self.num_envs, dtype=np.float32), np.zeros(self.num_envs, bool))
        return self._out(np.zeros(self.num_envs, dtype=bool)), {}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray,
                                          np.ndarray, dict[str, Any]]:  # fmt: skip
        """The learners act (games that ended last step start their next one instead)."""
        reward, done, truncated = self._step(actions, self._pending)
        self._pending = done.copy()
        return self._out(done), reward, done & ~truncated, truncated, {}

    def step_same(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray,
                                               np.ndarray]:  # fmt: skip
        """Like `step` with ``SAME_STEP`` autoreset (for the batched env runner).

        A game that ends returns the first decision of its next game at once;
        its terminal observation is the all-zero one (`terminal_obs`).
        """
        reward, done, truncated = self._step(actions, np.zeros(self.num_envs, dtype=bool))
        return self._out(np.zeros(self.num_envs, dtype=bool)), reward, done & ~truncated, truncated

    def learner_ready(self) -> np.ndarray:
        """``[N]`` bools: a learning seat is to act in the game (see `tick`).

        The learning seat of a game is ``learner[g]``; with ``all_seats``
        every seat of a self-play game learns (no snapshot plays there).
        """
        ready = np.asarray(self.engine.to_act()) == self.learner
        if self.all_seats:
            ready |= self._opp == SELF
        return ready

    def learning_seats(self) -> np.ndarray:
        """``[N, P]`` bools: the seats whose decisions are trained on (see `learner_ready`)."""
        p = self.engine.num_players
        seats = np.arange(p)[None, :] == self.learner[:, None]
        if self.all_seats:
            seats = seats | (self._opp == SELF)[:, None]
        return seats

    def current_obs(self) -> dict[str, np.ndarray]:
        """Every game's observation of the player to act now (a copy)."""
        return self._out(np.zeros(self.num_envs, dtype=bool))

    def tick(self, actions: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One engine step of every game, without waiting for the learner's turn.

        Where the learner is to act (`learner_ready`) it plays
        ``actions`` (``[N]``, read at those games only); everywhere else the
        game's league member (or the newest snapshot) moves. ``None``: only the
        opponents move, the learner's games wait. Returns every seat's
        reward ``[N, P]`` of this step, done and truncated ``[N]``; ended games
        restart at once (the engine's autoreset) and draw new opponents. For
        the tick sampler (`tick_rollout`); do not
        mix with `step` inside one episode.
        """
        if self._obs is None:
            raise ConfigError("call reset() before tick()")
        n = self.num_envs
        waiting = ~self.learner_ready()
        acts = np.zeros(n, dtype=np.int64)
        if actions is not None:
            acts[~waiting] = np.asarray(actions, dtype=np.int64).reshape(-1)[~waiting]
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
        truncated = np.zeros(n, dtype=bool) if tr is None else np.asarray(tr, dtype=bool) & done
        self._obs, self._mask = res.obs, res.mask
        if done.any():
            self._finish(np.flatnonzero(done))
        return r, done, truncated

    def terminal_obs(self) -> dict[str, np.ndarray]:
        """The observation of a finished game: all zeros, all-zero mask."""
        return {"observation": self._zero_obs[0], "action_mask": self._zero_mask[0]}

    def _step(self, actions: Any, pending: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Apply the learners' actions (not in ``pending`` games); rewards, done, truncated."""
        if self._obs is None:
            raise ConfigError("call reset() before step()")
        acts = np.asarray(actions, dtype=np.int64).reshape(-1)
        reward = self._carry.copy()
        self._carry[:] = 0.0
        done = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        active = ~pending
        if active.any():
            res = self.engine.step(acts, active=None if not pending.any() else active)
            self._collect(res, reward, done, truncated)
        self._advance(reward, done, truncated)
        if done.any():
            self._finish(np.flatnonzero(done))
        return reward, done, truncated

    def close(self, **kwargs: Any) -> None:
        """Nothing to release."""

    # ---------------------------------------------------------------- internals
    def _out(self, done: np.ndarray) -> dict[str, np.ndarray]:
        obs = np.asarray(self._obs, dtype=np.float32)
        mask = np.asarray(self._mask).astype(np.int8, copy=False)
        if done.any():
            obs = np.where(done[:, None], self._zero_obs, obs)
            mask = np.where(done[:, None], self._zero_mask, mask)
        return {"observation": obs.copy(), "action_mask": mask.copy()}

    def _collect(self, res: Any, reward: np.ndarray, done: np.ndarray,
                 truncated: np.ndarray | None = None) -> None:  # fmt: skip
        """Credit one engine step: rewards of ended games before their end, after it to carry."""
        r = np.asarray(res.rewards, dtype=np.float32)
        mine = r[self._rows, self.learner]
        late = done.copy()  # these games restarted in an earlier step of this call
        reward += np.where(late, 0.0, mine)
        self._carry += np.where(late, mine, 0.0)
        self._returns += np.where(late[:, None], 0.0, r)
        ended = np.asarray(res.done, dtype=bool) & ~late
        if truncated is not None:
            tr = getattr(res, "truncated", None)
            if tr is not None:
                truncated |= np.asarray(tr, dtype=bool) & ended
        done |= ended
        self._obs, self._mask = res.obs, res.mask

    def _advance(self, reward: np.ndarray, done: np.ndarray,
                 truncated: np.ndarray | None = None) -> None:  # fmt: skip
        """The opponents play until the learner is to act in every game."""
        eng = self.engine
        while True:
            waiting = np.asarray(eng.to_act()) != self.learner
            if not waiting.any():
                return
            rows = np.flatnonzero(waiting)
            ids = self._opp[rows]
            ids = np.where(ids == SELF, self._newest(), ids)
            actions = np.zeros(self.num_envs, dtype=np.int64)
            actions[rows] = self.league.act(ids, self._obs[rows], self._mask[rows])
            self._collect(eng.step(actions, active=waiting), reward, done, truncated)

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
            self._done_ids.append(vs[league])
            self._done_outcomes.append(outcome[league])
        self._returns[rows] = 0.0
        self._draw(rows)
        self.league.prune(self._opp)


def make_batched_env(env_config: Mapping[str, Any]) -> BatchedRLlibEnv:
    """RLlib's env creator (``config.environment(make_batched_env, env_config=...)``)."""
    return BatchedRLlibEnv(env_config)
