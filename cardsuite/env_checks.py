"""Argument checks of the env API (`cardsuite.aec.CardGameEnv`): a careless call is a
[`UsageError`][cardsuite.errors.UsageError] (or [`IllegalActionError`][cardsuite.errors.IllegalActionError])
whose one-line message names the argument."""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cardsuite.errors import IllegalActionError, PresetError, UsageError
from cardsuite.safe_yaml import brief

#: Reset option keys accepted and ignored: ``pettingzoo.test.api_test`` probes
#: ``reset(seed=0, options={"options": 1})``. Any other unknown key is refused.
_PROBE_KEYS = frozenset({"options"})


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

    Whole-number floats and 0-d integer arrays are accepted; ``1.5``, NaN,
    booleans and strings are not. The caller checks the range and the mask.
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


def check_reset_options(options: Any, known: Sequence[str], env: str) -> dict[str, Any] | None:
    """``options`` of env ``env``'s ``reset`` as a dict of ``known`` keys (None stays None).

    Raises:
        PresetError: ``options`` is not a mapping, or holds an unknown key
            (named, with the closest known one; ``"options"`` is ignored).
    """
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise PresetError(
            f"reset options must be a dict of {', '.join(known)}, got {type(options).__name__}"
        )
    for key in options:
        if key not in known and key not in _PROBE_KEYS:
            hint = difflib.get_close_matches(str(key)[:100], known, n=1)
            suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise PresetError(
                f"{env}.reset: unknown option {brief(key)}{suggestion}; "
                f"known options: {', '.join(known)}"
            )
    return dict(options)


def flag_option(options: Mapping[str, Any], key: str, default: bool) -> bool:
    """Reset option ``key`` (``default`` when absent); PresetError unless True or False."""
    value = options.get(key, default)
    if not isinstance(value, bool):
        raise PresetError(f"reset option {key!r} must be True or False, got {value!r}")
    return value
