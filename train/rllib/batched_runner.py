"""An RLlib env runner that builds its episodes from arrays: the batched engine at array speed.

RLlib's ``SingleAgentEnvRunner`` handles every game of its vector env one by
one in Python at every step (connector passes per game, one episode append
per game, per-step callbacks): with hundreds of games per runner that costs
several times what the batched engine does. `BatchedEnvRunner` is a
``SingleAgentEnvRunner`` (same module, weights sync, metrics, checkpoints,
fault tolerance) whose ``sample(num_timesteps=...)`` runs one loop per
vector step over arrays:

1. the module's ``forward_exploration`` (or ``forward_inference``) on the
   ``[N, ...]`` observation of every game at once;
2. the module's action distribution samples the actions and their log-probs
   (what RLlib's default module-to-env connectors do);
3. `step_same` steps
   every game (``SAME_STEP`` autoreset: no wasted reset step).

At the end the steps are cut into RLlib ``SingleAgentEpisode`` chunks, one
per game and episode, built from array slices (numpy'd, as RLlib returns
them), with ``action_logp`` and ``action_dist_inputs`` as extra model
outputs. An episode still running continues in the next ``sample`` under
the same id, as RLlib's own runner does. The env-to-module and module-to-env
connector pipelines are not run (the suite's module needs none); per-episode
callbacks are not called. ``sample(num_episodes=...)`` (evaluation) falls
back to RLlib's own loop.

`BatchedEnvRunner.sample_arrays` is what
`BatchedPPO` calls instead: no
episode objects at all, the runner's share of the train batch as flat
arrays with GAE already done, sampled by the tick sampler
(`tick_rollout`) or by the vector-step loop
above (`train_arrays`).
"""

from __future__ import annotations

import time
import uuid
from typing import Any, cast

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.env.single_agent_episode import SingleAgentEpisode
from ray.rllib.env.utils.infinite_lookback_buffer import InfiniteLookbackBuffer
from ray.rllib.utils.metrics import SAMPLE_TIMER

from cardsuite.train.rllib.array_batch import Rollout, train_arrays
from cardsuite.train.rllib.config import ILLEGAL_ACTIONS
from cardsuite.train.rllib.tick_rollout import Episodes, tick_rollout

OBS, MASK = "observation", "action_mask"


class BatchedEnvRunner(SingleAgentEnvRunner):  # type: ignore[misc]
    """``SingleAgentEnvRunner`` over a `BatchedRLlibEnv`, sampling with array operations."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """RLlib's runner; the batched loop's state starts empty."""
        super().__init__(*args, **kwargs)
        self._b_obs: dict[str, np.ndarray] | None = None
        self._b_ids: list[str] = []
        self._b_t0 = np.zeros(0, dtype=np.int64)  # t_started of each game's running chunk
        self._b_ret = np.zeros(0, dtype=np.float64)  # running episode return
        self._b_len = np.zeros(0, dtype=np.int64)  # running episode length
        self._b_start = np.zeros(0, dtype=np.float64)  # episode start time
        self._tick_eps: Episodes | None = None  # the tick sampler's running episodes

    def _vec(self) -> Any:
        """The runner's vector env (RLlib's wrapper around the batched env)."""
        return self.env

    # ------------------------------------------------------------------ loop
    def _sample(
        self,
        *,
        num_timesteps: int | None = None,
        num_episodes: int | None = None,
        explore: bool,
        random_actions: bool = False,
        force_reset: bool = False,
    ) -> list[SingleAgentEpisode]:
        """``num_timesteps`` steps over every game as arrays (else RLlib's loop)."""
        env: Any = self._vec().unwrapped
        if num_timesteps is None or random_actions or not hasattr(env, "step_same"):
            self._b_obs = None  # RLlib's loop resets the games
            return list(
                super()._sample(
                    num_timesteps=num_timesteps,
                    num_episodes=num_episodes,
                    explore=explore,
                    random_actions=random_actions,
                    force_reset=force_reset,
                )
            )
        r = self._rollout(int(num_timesteps), explore, force_reset)
        episodes, done_count = self._episodes(*r)
        self._count(r[3].size, done_count)
        return episodes

    def sample_arrays(self, num_timesteps: int | None = None) -> dict[str, Any]:
        """Sample ``num_timesteps`` learner decisions as a flat PPO train batch.

        ``None``: RLlib's share of this runner (rollout fragment length x
        games). With ``tick_sampler`` (the env config's ``tick``, default)
        every engine step moves every game
        (`tick_rollout`); otherwise one decision
        per game and vector step (`_rollout`,
        `train_arrays`). GAE runs
        here, on the values of this runner's module (the weights the learner
        synced before the rollout). Episode metrics, sampling counters and
        the sample timer are logged as `sample` logs them.
        """
        c: Any = self.config
        if num_timesteps is None:
            num_timesteps = c.get_rollout_fragment_length(self.worker_index) * self.num_envs
        env: Any = self._vec().unwrapped
        with self.metrics.log_time(SAMPLE_TIMER):
            if not env.tick_sampler:
                r = self._rollout(int(num_timesteps), explore=True)
                done_count = self._track(r[5], r[6] | r[7])
                batch = train_arrays(r, self._values, env.terminal_obs(), c.gamma, c.lambda_)
            else:
                if self._tick_eps is None:
                    env.reset(seed=self._seed)
                    self._seed = None if self._seed is None else self._seed + 1
                    self._tick_eps = Episodes.new(
                        self.num_envs, time.time(), env.engine.num_players
                    )
                    self._b_obs = None  # the vector-step loop restarts its games
                eps = self._tick_eps
                batch, sampled = tick_rollout(env, self._act, self._values, int(num_timesteps),
                                              eps, c.gamma, c.lambda_, time.time)  # fmt: skip
                done_count = len(eps.ended)
                self._log_ended(eps.ended)
                eps.ended.clear()
                self._count(sampled, done_count)
                return batch
        self._count(len(batch["actions"]), done_count)
        return batch

    def _act(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sampled actions, their log-probs and the logits of ``obs`` rows (exploration)."""
        module: Any = self.module
        batch = {Columns.OBS: {OBS: torch.from_numpy(obs).to(self._device),
                               MASK: torch.from_numpy(mask).to(self._device)}}  # fmt: skip
        with torch.no_grad():
            inputs = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
            dist = module.get_exploration_action_dist_cls().from_logits(inputs)
            a = dist.sample()
            lp = dist.logp(a)
        return a.cpu().numpy(), lp.cpu().numpy(), inputs.cpu().numpy()

    def _values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The module's state values of ``obs`` rows (no gradient)."""
        module: Any = self.module
        batch = {Columns.OBS: {OBS: torch.from_numpy(obs).to(self._device),
                               MASK: torch.from_numpy(mask).to(self._device)}}  # fmt: skip
        with torch.no_grad():
            return cast(np.ndarray, module.compute_values(batch).cpu().numpy())

    def _track(self, rew: np.ndarray, done: np.ndarray) -> int:
        """Running returns and lengths over ``[T, N]`` steps; log the ended episodes."""
        now = time.time()
        ended: list[tuple[int, float, float]] = []
        for t in range(rew.shape[0]):
            self._b_ret += rew[t]
            self._b_len += 1
            rows = np.flatnonzero(done[t])
            if rows.size:
                ended += [(int(self._b_len[i]), float(self._b_ret[i]),
                           now - float(self._b_start[i])) for i in rows]  # fmt: skip
                for i in rows:
                    self._b_ids[i] = uuid.uuid4().hex
                self._b_ret[rows] = 0.0
                self._b_len[rows] = 0
                self._b_start[rows] = now
        self._b_t0 = self._b_len.copy()  # the running chunks continue from here
        self._log_ended(ended)
        return len(ended)

    def _log_ended(self, ended: list[tuple[int, float, float]]) -> None:
        """Log ``(length, return, seconds)`` of ended episodes over RLlib's smoothing window.

        The episode metrics are means over a window of the newest episodes
        (``metrics_num_episodes_for_smoothing``, split over the runners):
        logging only the newest ``window`` gives the same means.
        """
        c = self.config
        window = max(1, -(-c.metrics_num_episodes_for_smoothing // (c.num_env_runners or 1)))
        for length, ret, sec in ended[-window:]:
            self._log_episode_metrics(length, ret, sec)

    def _count(self, ts: int, done_count: int) -> None:
        """RLlib's sampling counters for ``ts`` steps and ``done_count`` finished episodes."""
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=ts)
        self._increase_sampled_metrics(ts, done_count)
        self.metrics.log_value(ILLEGAL_ACTIONS, 0, reduce="lifetime_sum")  # the engine raises

    def _rollout(self, num_timesteps: int, explore: bool, force_reset: bool = False) -> Rollout:
        """At least ``num_timesteps`` steps over every game: the arrays of every step.

        Returns ``(obs, mask, actions, logp, logits, rewards, terminated,
        truncated)``; ``obs`` and ``mask`` have one row more than the steps
        (the observation after the last step).
        """
        env: Any = self._vec().unwrapped
        n = self.num_envs
        if self._b_obs is None or force_reset:
            self._tick_eps = None  # the tick sampler restarts its games
            self._b_obs, _ = env.reset(seed=self._seed)
            self._seed = None if self._seed is None else self._seed + 1
            self._b_ids = [uuid.uuid4().hex for _ in range(n)]
            self._b_t0 = np.zeros(n, dtype=np.int64)
            self._b_ret = np.zeros(n, dtype=np.float64)
            self._b_len = np.zeros(n, dtype=np.int64)
            self._b_start = np.full(n, time.time())
        steps = max(1, -(-int(num_timesteps) // n))
        obs_o = np.empty((steps + 1, n, env.engine.obs_dim), dtype=np.float32)
        obs_m = np.empty((steps + 1, n, env.engine.num_actions), dtype=np.int8)
        acts = np.empty((steps, n), dtype=np.int64)
        logp = np.empty((steps, n), dtype=np.float32)
        logits = np.empty((steps, n, env.engine.num_actions), dtype=np.float32)
        rew = np.empty((steps, n), dtype=np.float32)
        term = np.empty((steps, n), dtype=bool)
        trunc = np.empty((steps, n), dtype=bool)
        obs = self._b_obs
        module: Any = self.module
        for t in range(steps):
            obs_o[t], obs_m[t] = obs[OBS], obs[MASK]
            batch = {Columns.OBS: {OBS: torch.from_numpy(obs_o[t]).to(self._device),
                                   MASK: torch.from_numpy(obs_m[t]).to(self._device)}}  # fmt: skip
            with torch.no_grad():
                if explore:
                    out = module.forward_exploration(batch)
                    dist_cls = module.get_exploration_action_dist_cls()
                else:
                    out = module.forward_inference(batch)
                    dist_cls = module.get_inference_action_dist_cls()
                inputs = out[Columns.ACTION_DIST_INPUTS]
                dist = dist_cls.from_logits(inputs)
                a: Any = dist.sample() if explore else dist.to_deterministic().sample()
                lp: Any = dist.logp(a)
            acts[t] = a.cpu().numpy()
            logp[t] = lp.cpu().numpy()
            logits[t] = inputs.cpu().numpy()
            obs, rew[t], term[t], trunc[t] = env.step_same(acts[t])
        obs_o[steps], obs_m[steps] = obs[OBS], obs[MASK]
        self._b_obs = obs
        return obs_o, obs_m, acts, logp, logits, rew, term, trunc

    # -------------------------------------------------------------- episodes
    def _episodes(
        self,
        obs_o: np.ndarray,
        obs_m: np.ndarray,
        acts: np.ndarray,
        logp: np.ndarray,
        logits: np.ndarray,
        rew: np.ndarray,
        term: np.ndarray,
        trunc: np.ndarray,
    ) -> tuple[list[SingleAgentEpisode], int]:
        """Cut the steps of every game into episode chunks; (chunks, episodes finished)."""
        steps, n = acts.shape
        env: Any = self._vec().unwrapped
        zero = env.terminal_obs()
        done = term | trunc
        out: list[SingleAgentEpisode] = []
        finished = 0
        now = time.time()
        ended_stats: list[tuple[int, float, float]] = []
        for i in range(n):
            ends = np.flatnonzero(done[:, i]).tolist()
            s = 0
            for e in [*ends, steps - 1]:
                if e < s:
                    continue
                ended = bool(done[e, i])
                sl = slice(s, e + 1)
                last_o = zero[OBS] if ended else obs_o[e + 1, i]
                last_m = zero[MASK] if ended else obs_m[e + 1, i]
                o = {OBS: np.concatenate([obs_o[sl, i], last_o[None]]),
                     MASK: np.concatenate([obs_m[sl, i], last_m[None]])}  # fmt: skip
                ep = self._chunk(i, o, acts[sl, i], rew[sl, i], logp[sl, i], logits[sl, i],
                                 bool(term[e, i]), bool(trunc[e, i]))  # fmt: skip
                out.append(ep)
                length = e + 1 - s
                self._b_ret[i] += float(rew[sl, i].sum())
                self._b_len[i] += length
                if ended:
                    finished += 1
                    ended_stats.append(
                        (int(self._b_len[i]), float(self._b_ret[i]), now - float(self._b_start[i]))
                    )
                    self._b_ids[i] = uuid.uuid4().hex
                    self._b_t0[i] = 0
                    self._b_ret[i] = 0.0
                    self._b_len[i] = 0
                    self._b_start[i] = now
                else:
                    self._b_t0[i] += length
                s = e + 1
        self._log_ended(ended_stats)
        return out, finished

    def _chunk(
        self,
        i: int,
        obs: dict[str, np.ndarray],
        acts: np.ndarray,
        rew: np.ndarray,
        logp: np.ndarray,
        logits: np.ndarray,
        terminated: bool,
        truncated: bool,
    ) -> SingleAgentEpisode:
        """One numpy'd episode chunk of game ``i``."""
        k = len(acts)
        env = self._vec()
        seq = np.full(k, self._weights_seq_no, dtype=np.int64)
        return SingleAgentEpisode(
            id_=self._b_ids[i],
            observations=InfiniteLookbackBuffer(cast(Any, obs), 0, env.single_observation_space),
            observation_space=env.single_observation_space,
            infos=InfiniteLookbackBuffer([{}] * (k + 1)),
            actions=InfiniteLookbackBuffer(acts.copy(), 0, env.single_action_space),
            action_space=env.single_action_space,
            rewards=InfiniteLookbackBuffer(rew.copy()),
            extra_model_outputs={
                Columns.ACTION_LOGP: InfiniteLookbackBuffer(logp.copy()),
                Columns.ACTION_DIST_INPUTS: InfiniteLookbackBuffer(logits.copy()),
                "weights_seq_no": InfiniteLookbackBuffer(seq),
            },
            terminated=terminated,
            truncated=truncated,
            t_started=int(self._b_t0[i]),
            len_lookback_buffer=0,
        )
