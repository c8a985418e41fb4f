"""The guided search's ``root="paired"``: candidates compared on common determinizations.

A search over a strong policy rarely beats it by noise-driven deviations: at
Scandal's budgets a candidate move gets a handful of rollouts, each on its
own determinization, and the spread between deals (tenths of a reward)
drowns the differences between moves (hundredths). The paired root removes
the deal from the comparison, as a rollout algorithm with common random
numbers does:

* the prior's ``candidates`` best moves are each played on the *same*
  determinizations (``budget // candidates`` of them, at least 2), then
  rolled out by the search's rollout policy (deterministic given the
  determinization: the wrapped policy's most likely move for every player);
* each determinization gives one gain per candidate, its reward minus the
  prior's top move's reward on that determinization;
* the prior's top move is played unless another candidate's mean gain
  exceeds ``gate`` standard errors of its paired gains (and zero); then the
  candidate of highest mean gain among those is played (`paired_choice`).

With ``gate`` large the search plays the wrapped policy's own top move; at
``gate=0`` it plays the best paired mean.
"""

from __future__ import annotations

import math

import numpy as np


def candidates_by_prior(prior: np.ndarray, legal: np.ndarray, count: int) -> list[int]:
    """The ``count`` legal moves of highest prior (the lower id among equals), best first."""
    return sorted((int(a) for a in legal), key=lambda a: (-float(prior[a]), a))[:count]


def paired_choice(rewards: np.ndarray, gate: float) -> int:
    """The column to play of ``rewards`` ``[determinizations, candidates]`` (column 0: the prior's
    top move).

    Column ``j > 0`` qualifies when the mean of ``rewards[:, j] - rewards[:, 0]``
    is above zero and above ``gate`` times its standard error (sample
    standard deviation over the square root of the rows); the qualifying
    column of highest mean gain is played (the lower column among equals),
    else column 0. Fewer than two rows give no standard error: column 0.
    """
    rewards = np.asarray(rewards, dtype=np.float64)
    rows = rewards.shape[0]
    if rewards.ndim != 2 or rewards.shape[1] < 2 or rows < 2:
        return 0
    gains = rewards[:, 1:] - rewards[:, :1]
    mean = gains.mean(axis=0)
    se = gains.std(axis=0, ddof=1) / math.sqrt(rows)
    ok = (mean > 0) & (mean > gate * se)
    if not ok.any():
        return 0
    return 1 + int(np.argmax(np.where(ok, mean, -np.inf)))
