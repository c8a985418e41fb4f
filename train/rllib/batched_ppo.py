"""``BatchedPPO``: RLlib's PPO whose batched env runners hand the learner arrays.

RLlib's ``PPO.training_step`` samples ``SingleAgentEpisode`` lists and runs
the learner connector pipeline over them. With batched env runners of
hundreds of games, cutting the rollout into episode objects on the runner and
turning them back into a batch on the learner (one appended timestep per
chunk, per-episode gathering) cost more than the PPO update. ``BatchedPPO``
keeps everything else of PPO (the learner, its loss, KL and entropy
schedules, weight sync, metrics, fault tolerance) and changes only what
travels: each `BatchedEnvRunner`
returns its rollout as a flat train batch with GAE already computed
(`sample_arrays`,
`array_batch`), the driver concatenates the
runners' batches and standardizes the advantages, and the learner group
updates from that batch (``LearnerGroup.update(batch=...)``).
"""

from __future__ import annotations

import time
from typing import Any

from ray.rllib.algorithms.ppo import PPO
from ray.rllib.core import DEFAULT_MODULE_ID
from ray.rllib.policy.sample_batch import MultiAgentBatch, SampleBatch
from ray.rllib.utils.metrics import (
    ALL_MODULES,
    ENV_RUNNER_RESULTS,
    ENV_RUNNER_SAMPLING_TIMER,
    LEARNER_RESULTS,
    LEARNER_UPDATE_TIMER,
    NUM_ENV_STEPS_SAMPLED,
    NUM_ENV_STEPS_SAMPLED_LIFETIME,
    NUM_MODULE_STEPS_TRAINED_LIFETIME,
    SYNCH_WORKER_WEIGHTS_TIMER,
    TIMERS,
)

from cardsuite.train.rllib.array_batch import concat, length, whole_minibatches

ROUND = "cardsuite_sample_round"
"""Tag of the overlapped sampling requests."""


def _sample(runner: Any) -> tuple[dict[str, Any], Any]:
    """On a runner: its share of the train batch and its metrics."""
    return runner.sample_arrays(), runner.get_metrics()


def sample_arrays(
    group: Any, total: int, timeout_s: float | None
) -> tuple[list[dict[str, Any]], list[Any]]:
    """Array batches of at least ``total`` steps from the healthy runners (else the local one).

    As RLlib's ``synchronous_parallel_sample``: rounds of one sample per
    runner until ``total`` steps; a runner that fails is left out (RLlib
    restarts it); no healthy runner left ends the loop early.
    """
    batches: list[dict[str, Any]] = []
    stats: list[Any] = []
    steps = 0
    while steps < total:
        if group.num_remote_workers() <= 0:
            out = [_sample(group.local_env_runner)]
        else:
            out = group.foreach_env_runner(_sample, local_env_runner=False,
                                           timeout_seconds=timeout_s)  # fmt: skip
            if not out or group.num_healthy_remote_workers() <= 0:
                break
        for batch, metrics in out:
            batches.append(batch)
            stats.append(metrics)
            steps += int(metrics.get(NUM_ENV_STEPS_SAMPLED, length(batch)))
    return batches, stats


class BatchedPPO(PPO):  # type: ignore[misc]
    """PPO over array train batches from `BatchedEnvRunner` (module doc)."""

    _in_flight = False

    def _overlapped(self, runners: Any, timeout_s: float) -> tuple[list[Any], list[Any]]:
        """The round of samples launched last iteration; the next round starts at once.

        The runners sample round ``k + 1`` with the weights they hold while
        the learner updates on round ``k``; the weights the update produces
        reach each runner after its round (an actor runs one call at a time),
        so every batch is one update behind the learner. PPO's ratio and
        clipping are taken against the logged behaviour log-probs, so the
        update stays correct off by one policy. One round is each healthy
        runner's share of the train batch (a failed runner's share is missing
        from that iteration; RLlib restarts it).
        """
        if not self._in_flight:
            runners.foreach_env_runner_async(_sample, tag=ROUND)
        ready = runners.fetch_ready_async_reqs(tags=ROUND, timeout_seconds=timeout_s)
        self._in_flight = runners.foreach_env_runner_async(_sample, tag=ROUND) > 0
        out = [result for _, result in ready]
        return [b for b, _ in out], [m for _, m in out]

    def training_step(self) -> None:
        """Sample arrays, update the learner from one batch, sync the weights."""
        c: Any = self.config
        metrics: Any = self.metrics
        runners: Any = self.env_runner_group
        learners: Any = self.learner_group
        t0 = time.perf_counter()
        with metrics.log_time((TIMERS, ENV_RUNNER_SAMPLING_TIMER)):
            if c.env_config.get("overlap") and runners.num_remote_workers() > 0:
                batches, stats = self._overlapped(runners, c.sample_timeout_s)
            else:
                batches, stats = sample_arrays(
                    runners, c.total_train_batch_size, c.sample_timeout_s
                )
            if not batches:
                return
            metrics.aggregate(stats, key=ENV_RUNNER_RESULTS)
        t1 = time.perf_counter()
        with metrics.log_time((TIMERS, LEARNER_UPDATE_TIMER)):
            data = whole_minibatches(concat(batches), c.minibatch_size)
            rows = length(data)
            self.trained_rows = rows
            batch = MultiAgentBatch({DEFAULT_MODULE_ID: SampleBatch(data)}, env_steps=rows)
            trained = metrics.peek(
                (LEARNER_RESULTS, ALL_MODULES, NUM_MODULE_STEPS_TRAINED_LIFETIME), default=0
            )
            results = learners.update(
                batch=batch,
                timesteps={
                    NUM_ENV_STEPS_SAMPLED_LIFETIME: metrics.peek(
                        (ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME)
                    ),
                    NUM_MODULE_STEPS_TRAINED_LIFETIME: trained,
                },
                num_epochs=c.num_epochs,
                minibatch_size=c.minibatch_size,
                shuffle_batch_per_epoch=c.shuffle_batch_per_epoch,
            )
            metrics.aggregate(results, key=LEARNER_RESULTS)
        t2 = time.perf_counter()
        with metrics.log_time((TIMERS, SYNCH_WORKER_WEIGHTS_TIMER)):
            modules = set(results[0].keys()) - {ALL_MODULES}
            runners.sync_weights(
                from_worker_or_learner_group=learners,
                policies=sorted(modules),
                inference_only=True,
            )
        # The last iteration's phases in seconds (RLlib's timers are smoothed).
        self.phase_seconds = {"sample": t1 - t0, "learn": t2 - t1,
                              "sync": time.perf_counter() - t2}  # fmt: skip
