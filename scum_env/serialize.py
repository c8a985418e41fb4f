"""JSON round trip of a Scum table state (:class:`scum_env.state.State`).

:func:`to_dict` / :func:`from_dict` and :func:`to_json` / :func:`from_json`
save and restore a table exactly, its generator included, so a resumed game
deals as the original would. The rules are not saved: keep the config beside
the state and compile it again. A state that does not fit the rules raises
:class:`~cardsuite.errors.StateError` naming the field.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from cardsuite.errors import PresetError, StateError
from scum_env.phase import Phase
from scum_env.presets import check_roles
from scum_env.rules import Rules, TradeStep
from scum_env.state import ARRAY_FIELDS, SCALAR_FIELDS, State, new_stamp


def to_dict(state: State) -> dict[str, Any]:
    """A JSON-ready dict of the state (rules excepted: keep the config beside it)."""
    data: dict[str, Any] = {name: getattr(state, name).tolist() for name in ARRAY_FIELDS}
    for name in SCALAR_FIELDS:
        data[name] = getattr(state, name)
    data["phase"] = int(state.phase)
    data["ncards"] = list(state.ncards)
    data["order"] = list(state.order)
    data["finish"] = list(state.finish)
    data["trade_log"] = [list(t) for t in state.trade_log]
    data["pending"] = [[t.kind, t.giver, t.receiver, t.count] for t in state.pending]
    data["rng"] = state.rng.bit_generator.state
    return data


def from_dict(rules: Rules, data: dict[str, Any]) -> State:
    """Rebuild a state from :func:`to_dict`; StateError if it does not fit ``rules``."""
    n, k = rules.num_players, rules.num_slots
    try:
        state = State.__new__(State)
        state.rules = rules
        for name in ARRAY_FIELDS:
            shape, dtype = _array_layout(rules, name)
            arr: np.ndarray = np.asarray(data[name], dtype=dtype)
            if arr.shape != shape:
                raise StateError(f"field {name!r} has shape {arr.shape}, expected {shape}")
            setattr(state, name, arr)
        for name in SCALAR_FIELDS:
            value = data[name]
            expected = bool if name == "game_over" else int
            if type(value) is not expected:
                raise StateError(f"field {name!r} must be {expected.__name__}, got {value!r}")
            setattr(state, name, value)
        state.phase = Phase(state.phase)
        state.ncards = [int(v) for v in data["ncards"]]
        state.order = check_roles(n, data["order"])
        state.pos = [0] * n
        for position, player in enumerate(state.order):
            state.pos[player] = position
        state.finish = [int(p) for p in data["finish"]]
        state.trade_log = [(int(a), int(b), int(c), bool(d)) for a, b, c, d in data["trade_log"]]
        state.pending = [
            TradeStep(kind, int(g), int(r), int(c)) for kind, g, r, c in data["pending"]
        ]
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = data["rng"]
        state.rng = rng
        state.stamp = new_stamp()
    except StateError:
        raise
    except (KeyError, TypeError, ValueError, PresetError) as err:
        raise StateError(f"corrupt Scum state: {type(err).__name__}: {err}") from None
    held = state.hands.sum(axis=0) + state.played
    if state.hands.min() < 0 or list(state.hands.sum(axis=1)) != state.ncards:
        raise StateError("corrupt Scum state: hand counts do not match ncards")
    if np.any(held > rules.deck):
        raise StateError("corrupt Scum state: hands and played cards hold more cards than the pack")
    if not (0 <= state.to_act < n and state.top_slot < k):
        raise StateError("corrupt Scum state: to_act, phase or top play out of range")
    return state


def _array_layout(rules: Rules, name: str) -> tuple[tuple[int, ...], type]:
    n, k = rules.num_players, rules.num_slots
    if name in ("hands", "played_by", "given", "received"):
        return (n, k), np.int16
    if name in ("top_cards", "played"):
        return (k,), np.int16
    if name in ("passed", "acted"):
        return (n,), np.bool_
    return (n,), np.int64


def to_json(state: State) -> str:
    """The state as a JSON string (exact round trip with :func:`from_json`)."""
    return json.dumps(to_dict(state), separators=(",", ":"))


def from_json(rules: Rules, text: str) -> State:
    """Rebuild a state from :func:`to_json`; StateError if corrupt."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError) as err:
        raise StateError(f"Scum state is not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise StateError("Scum state JSON must be an object")
    return from_dict(rules, data)


def load_state(rules: Rules, saved: Any) -> State:
    """A state from ``reset(options={"state": ...})``: JSON text or an already parsed dict."""
    if isinstance(saved, str):
        return from_json(rules, saved)
    if isinstance(saved, dict):
        return from_dict(rules, saved)
    raise StateError(
        "reset option 'state' must be the JSON text of a saved state "
        f"(scum_env.engine.to_json) or its parsed dict, got {type(saved).__name__}"
    )
