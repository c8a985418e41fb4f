"""JSON round trip of a Scum table state (`scum_env.state.State`).

[`to_dict`][scum_env.serialize.to_dict] / [`from_dict`][scum_env.serialize.from_dict]
and `to_json` / `from_json` restore a table exactly, its generator included.
The rules are not saved: keep the config beside the state. A state that does
not fit the rules raises [`StateError`][cardsuite.errors.StateError] naming the field.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from cardsuite import safe_json
from cardsuite.errors import PresetError, StateError
from scum_env.presets import check_roles
from scum_env.rules import Rules
from scum_env.state import ARRAY_FIELDS, SCALAR_FIELDS, Phase, State, new_stamp
from scum_env.validate import (
    MAX_SERIES,
    check_state,
    flag,
    grid,
    pending_steps,
    rng_from,
    trade_log,
    whole,
    whole_list,
)

T = TypeVar("T")
R = TypeVar("R")


def to_dict(state: State) -> dict[str, Any]:
    """A JSON-ready dict of the state (rules excepted: keep the config beside it)."""
    data: dict[str, Any] = {name: getattr(state, name).tolist() for name in ARRAY_FIELDS}
    for name in SCALAR_FIELDS:
        data[name] = getattr(state, name)
    data["phase"] = int(state.phase)
    for name in ("ncards", "order", "finish"):
        data[name] = list(getattr(state, name))
    data["trade_log"] = [list(t) for t in state.trade_log]
    data["pending"] = [[t.kind, t.giver, t.receiver, t.count] for t in state.pending]
    data["rng"] = state.rng.bit_generator.state
    return data


FIELDS = (*ARRAY_FIELDS, *SCALAR_FIELDS, "ncards", "order", "finish", "trade_log", "pending", "rng")


def from_dict(rules: Rules, data: Any) -> State:
    """Rebuild a state from `to_dict`; StateError naming the field if it is not one.

    Every field is read with its type, shape and range, then checked against
    the others (`scum_env.validate.check_state`).
    """
    if not isinstance(data, dict):
        raise StateError(f"a saved Scum state must be a JSON object, got {type(data).__name__}")
    missing = [name for name in FIELDS if name not in data]
    unknown = [str(name)[:40] for name in data if name not in FIELDS]
    if missing or unknown:
        which = f"missing {missing}" if missing else f"unknown {unknown[:5]}"
        raise StateError(f"saved Scum state: fields {which}")
    n = rules.num_players
    state = State.__new__(State)
    state.rules = rules
    for name in ARRAY_FIELDS:
        shape, low, high = _array_layout(rules, name)
        setattr(state, name, grid(name, data[name], shape, low, high).astype(_DTYPES[name]))
    limits = _scalar_limits(rules)
    for name in SCALAR_FIELDS:
        if name == "game_over":
            state.game_over = flag(name, data[name])
        else:
            setattr(state, name, whole(name, data[name], *limits[name]))
    state.phase = Phase(state.phase)
    state.ncards = whole_list("ncards", data["ncards"], 0, rules.deck_size, n)
    try:
        state.order = check_roles(n, data["order"], field="order")
    except PresetError as err:
        raise StateError(f"saved Scum state: {err}") from None
    state.pos = np.argsort(state.order).tolist()  # role position of each player
    state.finish = whole_list("finish", data["finish"], 0, n - 1)
    state.trade_log = trade_log(rules, data["trade_log"])
    state.pending = pending_steps(rules, data["pending"])
    state.rng = rng_from(data["rng"])
    state.stamp = new_stamp()
    check_state(state)
    return state


_DTYPES: dict[str, type[np.generic]] = {name: np.int16 for name in ARRAY_FIELDS}
_DTYPES.update(passed=np.bool_, acted=np.bool_, scores=np.int64, last_points=np.int64)


def _array_layout(rules: Rules, name: str) -> tuple[tuple[int, ...], int, int]:
    """Shape and value range of an array field (``high < 0``: booleans)."""
    n, k = rules.num_players, rules.num_slots
    most = int(rules.deck.max())
    if name in ("hands", "played_by", "given", "received"):
        return (n, k), 0, most
    if name in ("top_cards", "played"):
        return (k,), 0, most
    if name in ("passed", "acted"):
        return (n,), 0, -1
    if name == "scores":  # a total never passes target + n - 1 (J8)
        return (n,), 0, rules.target + n - 1
    return (n,), 0, n  # last_points: the J8 points 1..n


def _scalar_limits(rules: Rules) -> dict[str, tuple[int, int]]:
    n, k = rules.num_players, rules.num_slots
    most_back = max((t.count for t in rules.trades if t.kind == "choice"), default=0)
    return {
        "phase": (0, len(Phase) - 1),
        "to_act": (0, n - 1),
        "top_count": (0, rules.max_count),
        "top_slot": (-1, k - 1),
        "top_player": (-1, n - 1),
        "passes": (0, n),
        "series": (1, MAX_SERIES),
        "give_left": (0, most_back),
        "winner": (-1, n - 1),
    }


def to_json(state: State) -> str:
    """The state as a JSON string (exact round trip with `from_json`)."""
    return json.dumps(to_dict(state), separators=(",", ":"))


def from_json(rules: Rules, text: str) -> State:
    """Rebuild a state from `to_json`; StateError if corrupt."""
    return from_dict(rules, parse_json(text, "Scum"))


MAX_STATE_CHARS = 5_000_000  # a 50-player Scum Party state is about 60 kB


def parse_json(text: Any, game: str) -> dict[str, Any]:
    """The JSON object of a saved state; StateError if it is not JSON or too big or deep."""
    if not isinstance(text, str | bytes):
        raise StateError(f"{game} state must be JSON text, got {type(text).__name__}")
    if len(text) > MAX_STATE_CHARS:
        raise StateError(f"{game} state is {len(text)} characters, more than any saved state")
    data = safe_json.loads(text, f"{game} state", error=StateError, max_chars=MAX_STATE_CHARS)
    if not isinstance(data, dict):
        raise StateError(f"{game} state JSON must be an object")
    return data


def read_saved(
    saved: Any, rules: R, read: tuple[Callable[[R, str], T], Callable[[R, Any], T]], what: str
) -> T:
    """``reset(options={"state": saved})``: ``saved`` is JSON text (read with ``read[0]``)
    or its parsed dict (``read[1]``); StateError naming ``what`` (the writer) otherwise."""
    if isinstance(saved, str):
        return read[0](rules, saved)
    if isinstance(saved, dict):
        return read[1](rules, saved)
    raise StateError(
        f"reset option 'state' must be the JSON text of {what} or its parsed dict, "
        f"got {type(saved).__name__}"
    )


def load_state(rules: Rules, saved: Any) -> State:
    """A state from ``reset(options={"state": ...})``: JSON text or an already parsed dict."""
    return read_saved(
        saved, rules, (from_json, from_dict), "a saved state (scum_env.engine.to_json)"
    )
