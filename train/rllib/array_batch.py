"""PPO train batches as arrays: GAE on the env runner, one concatenation on the driver.

RLlib's default PPO path hands the learner a list of ``SingleAgentEpisode``
chunks (one per game and episode) and runs the learner connector pipeline
over them: one extra timestep appended to every chunk, observations gathered
episode by episode, a value forward pass, GAE per chunk. With a batched env
runner of hundreds of games that is a few thousand Python objects per
iteration, and it cost more than the gradient step itself.

Here the env runner keeps its rollout as ``[T, N]`` arrays (``T`` vector
steps of ``N`` games), computes the values of every observation with its
copy of the module (the weights the learner synced before the rollout, the
same ones RLlib's connector would use), runs GAE along the time axis of every
game at once, and returns the flat train batch. The driver concatenates the
runners' batches, standardizes the advantages over the whole batch (as
RLlib's ``GeneralAdvantageEstimation`` connector does) and calls
``LearnerGroup.update(batch=...)``. The semantics are RLlib's
(``compute_value_targets``):

* a terminated step does not bootstrap (the next value is 0);
* a truncated step bootstraps from the value of its final observation (the
  all-zero terminal observation of the batched env) and GAE does not run
  across it;
* the last step of a rollout that did not end bootstraps from the value of
  the observation after it (the chunk continues in the next rollout).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Rollout = tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray
]
"""``(obs [T+1,N,D], mask [T+1,N,A], actions, logp, logits [T,N,A], rewards, terminated,
truncated)`` of one rollout (the last two and rewards, actions, logp: ``[T, N]``)."""

OBS, MASK = "observation", "action_mask"
ADVANTAGES, VALUE_TARGETS = "advantages", "value_targets"


def gae(
    values: np.ndarray,
    next_values: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    gamma: float,
    lam: float,
) -> np.ndarray:
    """GAE advantages of ``[T, N]`` steps, every game (column) at once.

    ``values[t]`` is the value of the observation acted on at step ``t``;
    ``next_values[t]`` the value of the observation after it (the terminal
    observation for a step that ended its game); the last row continues
    past the rollout. Terminated steps do not bootstrap; neither kind of
    ending lets the advantage run across it.
    """
    steps = rewards.shape[0]
    live = 1.0 - terminated.astype(np.float32)
    carry_on = 1.0 - (terminated | truncated).astype(np.float32)
    delta = rewards + gamma * live * next_values - values
    adv = np.empty_like(delta, dtype=np.float32)
    running = np.zeros(rewards.shape[1], dtype=np.float32)
    for t in range(steps - 1, -1, -1):
        running = delta[t] + gamma * lam * carry_on[t] * running
        adv[t] = running
    return adv


def train_arrays(
    rollout: Rollout,
    value_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
    terminal: dict[str, np.ndarray],
    gamma: float,
    lam: float,
) -> dict[str, Any]:
    """The flat train batch of a rollout: RLlib's PPO columns plus advantages and targets.

    ``value_fn(obs [B, D], mask [B, A])`` returns the module's values ``[B]``;
    ``terminal`` is the env's terminal observation (one row). Rows are in
    step-major order (all games of step 0, then step 1, ...). Advantages are
    not standardized here (the driver does it over the whole batch).
    """
    obs, mask, acts, logp, logits, rew, term, trunc = rollout
    steps, n = acts.shape
    v_all = value_fn(obs.reshape(-1, obs.shape[-1]), mask.reshape(-1, mask.shape[-1]))
    v_all = v_all.reshape(steps + 1, n)
    v_end = float(value_fn(terminal[OBS][None], terminal[MASK][None])[0])
    done = term | trunc
    next_v = np.where(done, np.float32(v_end), v_all[1:])
    adv = gae(v_all[:steps], next_v, rew, term, trunc, gamma, lam)
    b = steps * n
    return {
        "obs": {OBS: obs[:steps].reshape(b, -1), MASK: mask[:steps].reshape(b, -1)},
        "actions": acts.reshape(b),
        "action_logp": logp.reshape(b),
        "action_dist_inputs": logits.reshape(b, -1),
        ADVANTAGES: adv.reshape(b),
        VALUE_TARGETS: (adv + v_all[:steps]).reshape(b).astype(np.float32),
    }


def concat(batches: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The runners' batches as one, advantages standardized over all of it (RLlib's rule)."""
    out: dict[str, Any] = {}
    for key, first in batches[0].items():
        if isinstance(first, dict):
            out[key] = {k: np.concatenate([b[key][k] for b in batches]) for k in first}
        else:
            out[key] = np.concatenate([b[key] for b in batches])
    adv = out[ADVANTAGES]
    out[ADVANTAGES] = ((adv - adv.mean()) / max(1e-4, float(adv.std()))).astype(np.float32)
    return out


def whole_minibatches(batch: dict[str, Any], minibatch_size: int) -> dict[str, Any]:
    """The first whole multiple of ``minibatch_size`` rows (all of them if fewer than one).

    RLlib's minibatch iterator covers an epoch with ``ceil(rows / size)``
    minibatches, the last one wrapping around to the first rows: a batch a
    few rows over the train batch size (runners sample whole engine steps)
    would pay for a nearly empty extra minibatch. The rows dropped are the
    last runner's last ones, fewer than one minibatch.
    """
    rows = length(batch)
    keep = rows - rows % minibatch_size
    if keep in (0, rows):
        return batch
    return {k: ({kk: vv[:keep] for kk, vv in v.items()} if isinstance(v, dict) else v[:keep])
            for k, v in batch.items()}  # fmt: skip


def length(batch: dict[str, Any]) -> int:
    """Rows of a train batch."""
    return len(batch["actions"])
