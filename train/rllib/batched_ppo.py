"""``BatchedPPO``: RLlib's PPO whose ``training_step`` trains on the batched runners' array
batches (advantages standardized over the whole batch, as RLlib does). docs/rllib.md."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from ray.rllib.algorithms.ppo import PPO
from ray.rllib.core import DEFAULT_MODULE_ID
from ray.rllib.execution.rollout_ops import synchronous_parallel_sample
from ray.rllib.policy.sample_batch import MultiAgentBatch, SampleBatch
from ray.rllib.utils import metrics as m


def concat(batches: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The runners' batches as one, advantages standardized over all of it (RLlib's rule)."""
    out: dict[str, Any] = {}
    for key, first in batches[0].items():
        if isinstance(first, dict):
            out[key] = {k: np.concatenate([b[key][k] for b in batches]) for k in first}
        else:
            out[key] = np.concatenate([b[key] for b in batches])
    adv = out["advantages"]
    out["advantages"] = ((adv - adv.mean()) / max(1e-4, float(adv.std()))).astype(np.float32)
    return out


def whole_minibatches(batch: dict[str, Any], minibatch_size: int) -> dict[str, Any]:
    """The first whole multiple of ``minibatch_size`` rows (all if fewer): RLlib would wrap a
    last partial minibatch around, paying a whole one for the few rows over the batch size."""
    rows = len(batch["actions"])
    keep = rows - rows % minibatch_size
    if keep in (0, rows):
        return batch
    return {k: ({kk: vv[:keep] for kk, vv in v.items()} if isinstance(v, dict) else v[:keep])
            for k, v in batch.items()}  # fmt: skip


class BatchedPPO(PPO):  # type: ignore[misc]
    """PPO over array train batches from `BatchedEnvRunner` (module doc)."""

    def training_step(self) -> None:
        """Sample arrays, update the learner from one batch, sync the weights."""
        c: Any = self.config
        metrics: Any = self.metrics
        runners: Any = self.env_runner_group
        learners: Any = self.learner_group
        with metrics.log_time((m.TIMERS, m.ENV_RUNNER_SAMPLING_TIMER)):
            out: Any = synchronous_parallel_sample(
                worker_set=runners, max_env_steps=c.total_train_batch_size,
                sample_timeout_s=c.sample_timeout_s, concat=False,
                _uses_new_env_runners=True, _return_metrics=True,
            )  # fmt: skip
            batches, stats = out
            if not batches:
                return
            metrics.aggregate(stats, key=m.ENV_RUNNER_RESULTS)
        with metrics.log_time((m.TIMERS, m.LEARNER_UPDATE_TIMER)):
            data = whole_minibatches(concat(batches), c.minibatch_size)
            batch = MultiAgentBatch({DEFAULT_MODULE_ID: SampleBatch(data)},
                                    env_steps=len(data["actions"]))  # fmt: skip
            sampled = (m.ENV_RUNNER_RESULTS, m.NUM_ENV_STEPS_SAMPLED_LIFETIME)
            trained = (m.LEARNER_RESULTS, m.ALL_MODULES, m.NUM_MODULE_STEPS_TRAINED_LIFETIME)
            results = learners.update(
                batch=batch, num_epochs=c.num_epochs, minibatch_size=c.minibatch_size,
                timesteps={m.NUM_ENV_STEPS_SAMPLED_LIFETIME: metrics.peek(sampled),
                           m.NUM_MODULE_STEPS_TRAINED_LIFETIME: metrics.peek(trained, default=0)},
                shuffle_batch_per_epoch=c.shuffle_batch_per_epoch,
            )  # fmt: skip
            metrics.aggregate(results, key=m.LEARNER_RESULTS)
        with metrics.log_time((m.TIMERS, m.SYNCH_WORKER_WEIGHTS_TIMER)):
            runners.sync_weights(
                from_worker_or_learner_group=learners,
                policies=sorted(set(results[0]) - {m.ALL_MODULES}), inference_only=True,
            )  # fmt: skip
