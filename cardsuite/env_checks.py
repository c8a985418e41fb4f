"""Argument checks of the env API (`cardsuite.aec.CardGameEnv`).

Each check turns a careless call into a [`UsageError`][cardsuite.errors.UsageError]
(or [`IllegalActionError`][cardsuite.errors.IllegalActionError] for an action that is not
an action id) whose one-line message names the argument, instead of a
``KeyError``, ``OverflowError`` or an assertion deep in PettingZoo.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from cardsuite.errors import IllegalActionError, UsageError


def check_seed(seed: Any) -> int | None:
    """``seed`` as an int (None stays None); UsageError unless a non-negative integer."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise UsageError(
            f"reset: seed must be None or a non-negative integer, got {type(seed).__name__} "
            f"{seed!r:.40}"
        )
    return int(seed)


def check_agent(agent: Any, seat_of: Mapping[str, int], call: str) -> int:
    """The seat of ``agent``; UsageError naming the agents if it is not one of them."""
    try:
        return seat_of[agent]
    except (KeyError, TypeError):
        names = list(seat_of)
        raise UsageError(
            f"{call}: unknown agent {agent!r:.40}; agents are {names[0]}..{names[-1]}"
        ) from None


def action_index(action: Any, agent: str, num_actions: int) -> int:
    """``action`` as an int action id; IllegalActionError if it is no integer.

    Floats equal to an integer (``3.0``, ``np.float32(3)``) are accepted;
    So is a 0-d integer array. ``1.5``, ``nan``, ``inf``, booleans, strings
    and longer arrays are not. The range
    and the mask are checked by the caller.
    """
    if type(action) is int:
        return action
    if isinstance(action, np.ndarray) and action.shape == ():  # e.g. SB3's predict()
        action = action.item()
    valid = isinstance(action, numbers.Integral) and not isinstance(action, bool)
    if not valid and isinstance(action, numbers.Real) and not isinstance(action, bool):
        value = float(action)
        valid = math.isfinite(value) and value.is_integer()
    if not valid:
        raise IllegalActionError(
            f"{agent}: action {action!r:.40} is not an integer action id in 0..{num_actions - 1}"
        )
    return int(action)
