"""Checks of what a caller hands a batched engine: action ids, active flags, players, presets.

Every wrong input is a named error instead of a silent cast: ``None``, text,
a float that is not a whole number (``1.5`` would be truncated to 1), NaN or
infinity, booleans, numbers past int64, arrays of the wrong length.
Whole-number floats (``3.0``) are accepted, as the AEC envs accept them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.batched.backend import Array, Backend
from cardsuite.errors import IllegalActionError, PresetError, UsageError


def _is_tensor(x: Any) -> bool:
    return type(x).__module__.split(".", 1)[0] == "torch"


def action_ids(xp: Backend, actions: Any, num_games: int) -> Array:
    """``actions`` as an int64 ``[N]`` array of the backend; IllegalActionError if not ids."""
    what = f"step needs {num_games} integer action ids"
    if actions is None or isinstance(actions, str | bytes | dict):
        raise IllegalActionError(f"{what}, got {type(actions).__name__}")
    if _is_tensor(actions):
        import torch

        t = actions.reshape(-1)
        if t.dtype == torch.bool or t.dtype.is_complex:
            raise IllegalActionError(f"{what}, got a {t.dtype} tensor")
        if t.dtype.is_floating_point and not bool(
            (torch.isfinite(t) & (t == torch.trunc(t))).all()
        ):
            raise IllegalActionError(f"{what}, got fractional, NaN or infinite values")
        if t.shape[0] != num_games:
            raise IllegalActionError(f"{what}, got {t.shape[0]}")
        return xp.asarray(t, xp.int64)
    try:
        arr = np.asarray(actions)
    except (TypeError, ValueError, OverflowError) as err:
        raise IllegalActionError(f"{what}: {err}") from None
    arr = arr.reshape(-1)
    if arr.dtype.kind not in "iuf":
        raise IllegalActionError(f"{what}, got {arr.dtype} values")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.trunc(arr)):
            bad = arr[~np.isfinite(arr) | (arr != np.trunc(arr))][0]
            raise IllegalActionError(f"{what}, got {float(bad)!r}, which is not a whole number")
        if np.any(np.abs(arr) >= 2.0**63):
            raise IllegalActionError(f"{what}, got a value past the int64 range")
    elif arr.dtype.kind == "u" and arr.size and arr.max() >= 2**63:
        raise IllegalActionError(f"{what}, got a value past the int64 range")
    if arr.shape[0] != num_games:
        raise IllegalActionError(f"{what}, got {arr.shape[0]}")
    return xp.asarray(arr.astype(np.int64), xp.int64)


def active_flags(xp: Backend, active: Any, num_games: int) -> Array:
    """``active`` as a bool ``[N]`` array of the backend; UsageError if it is not N flags."""
    what = f"step's active must be {num_games} bools (or 0/1), one per game"
    if isinstance(active, str | bytes | dict):
        raise UsageError(f"{what}, got {type(active).__name__}")
    if _is_tensor(active):
        flags = active.reshape(-1)
        if flags.dtype.is_floating_point or flags.dtype.is_complex:
            raise UsageError(f"{what}, got a {flags.dtype} tensor")
        if flags.shape[0] != num_games:
            raise UsageError(f"{what}, got {flags.shape[0]}")
        return xp.asarray(flags, xp.bool)
    try:
        arr = np.asarray(active).reshape(-1)
    except (TypeError, ValueError) as err:
        raise UsageError(f"{what}: {err}") from None
    if arr.dtype.kind not in "biu" or (arr.dtype.kind != "b" and np.any((arr != 0) & (arr != 1))):
        raise UsageError(f"{what}, got {arr.dtype} values {arr[:4].tolist()}")
    if arr.shape[0] != num_games:
        raise UsageError(f"{what}, got {arr.shape[0]}")
    return xp.asarray(arr.astype(bool), xp.bool)


def check_players(xp: Backend, player: Any, num_games: int, n: int) -> Array:
    """``player`` (an int or ``[num_games]`` ids) as ``[num_games]`` int64 ids ``0 .. n-1``.

    The check of every batched engine's ``observe_as``; UsageError otherwise.
    """
    if isinstance(player, bool | np.bool_):
        raise UsageError(f"observe_as: player must be an int 0..{n - 1} or ids, got {player!r}")
    if isinstance(player, int | np.integer):
        if not 0 <= int(player) < n:
            raise UsageError(f"observe_as: player must be 0..{n - 1}, got {int(player)}")
        return xp.full((num_games,), int(player), xp.int64)
    host = np.asarray(player.detach().cpu().numpy() if _is_tensor(player) else player)
    if host.shape != (num_games,) or host.dtype.kind not in "iu":
        raise UsageError(
            f"observe_as: player must be an int or {num_games} integer ids, "
            f"got {host.dtype} of shape {host.shape}"
        )
    if host.size and not (host.min() >= 0 and host.max() < n):
        raise UsageError(f"observe_as: player ids must be 0..{n - 1}, got {host.tolist()[:8]}")
    return xp.asarray(host, xp.int64)


def preset_array(field: str, value: Any) -> np.ndarray:
    """A reset preset as a numpy array; PresetError for text, ragged lists or booleans.

    ``np.asarray([[True, 0]])`` would quietly make ``True`` the integer 1, so
    every entry of nested lists is checked (numpy arrays by their dtype, later).
    """
    if isinstance(value, str | bytes | dict) or value is None:
        raise PresetError(
            f"preset {field} must be an array of integers, got {type(value).__name__}"
        )
    if isinstance(value, list | tuple):
        stack = [value]
        while stack:
            node = stack.pop()
            for item in node:
                if isinstance(item, list | tuple):
                    stack.append(item)
                elif isinstance(item, bool | np.bool_) or not isinstance(item, int | np.integer):
                    raise PresetError(f"preset {field} must hold integers, got {item!r:.40}")
    try:
        return np.asarray(value)
    except (TypeError, ValueError, OverflowError) as err:
        raise PresetError(
            f"preset {field} must be a rectangular array of integers: {err}"
        ) from None


def preset_ints(field: str, value: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
    """A reset preset as a numpy integer array of ``shape``; PresetError naming ``field``."""
    arr = preset_array(field, value)
    if arr.shape != shape or not np.issubdtype(arr.dtype, np.integer):
        raise PresetError(
            f"preset {field} must be {what} of shape {list(shape)}, got shape {arr.shape}"
        )
    return arr


def preset_seating(field: str, value: Any, num_games: int, n: int) -> np.ndarray:
    """A preset seating ``[num_games, n]``: each row lists the ``n`` player ids once."""
    arr = preset_ints(field, value, (num_games, n), "integer player ids")
    if not np.array_equal(np.sort(arr, axis=1), np.broadcast_to(np.arange(n), arr.shape)):
        raise PresetError(f"each row of preset {field} must list the {n} players once")
    return arr


def trade_flags(trade: Any, num_games: int) -> np.ndarray:
    """Reset option ``trade``, a bool or ``[num_games]`` bools, as ``[num_games]`` bools."""
    if isinstance(trade, bool):
        return np.full(num_games, trade)
    arr = np.asarray(trade)
    if arr.dtype != np.bool_ or arr.shape != (num_games,):
        raise PresetError(f"reset option 'trade' must be a bool or {num_games} bools")
    return arr
