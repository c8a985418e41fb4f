"""Scandal states as JSON (exact: the RNG state included), read back with every field checked.

[`from_json`][scandal_env.serialize.from_json] trusts nothing: strict JSON,
every field of the right type, shape and range, then the state consistent with
the rules (`scandal_env.invariants.check_state`); a
[`StateError`][cardsuite.errors.StateError] names the field.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from cardsuite import safe_json
from cardsuite.errors import CardsuiteError, StateError
from scandal_env.config import ScandalConfig
from scandal_env.invariants import check_state
from scandal_env.state import (
    END_BLOCKED,
    END_MAX_TURNS,
    END_NONE,
    END_OUT,
    Phase,
    State,
    make_rules,
)

FORMAT = "cardsuite-scandal-state"
#: Version 2 names the player to act ``to_act``; version 1 called it ``current``.
_JSON_VERSION = 2
#: A saved state is a few kB; a larger text is refused unparsed.
MAX_STATE_CHARS = 1 << 20
_BOOL_ARRAYS = ("hands", "known", "build")
_INT_ARRAYS = ("placed_by", "placed_on", "meld_owner", "scores", "hand_scores", "step_scores")
_INT_FIELDS = (
    "build_scandal",
    "to_act",
    "phase",
    "duty",
    "forbidden",
    "turn",
    "dealer",
    "hand_number",
)
_BOOL_FIELDS = ("stock_public", "hand_over", "game_over", "done", "truncated")
_LIST_FIELDS = ("pile", "stock")
_FIELDS = frozenset(("format", "version", "config", "hand_end", "rng")).union(
    _BOOL_ARRAYS, _INT_ARRAYS, _INT_FIELDS, _BOOL_FIELDS, _LIST_FIELDS
)
#: numpy bit generators a saved state may name (``getattr`` on anything else is refused).
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "Philox", "SFC64", "MT19937")
_INT64 = 2**63


def to_json(state: State) -> str:
    """The state as a JSON string (exact: RNG state included)."""
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": _JSON_VERSION,
        "config": state.rules.config.to_dict(),
        "pile": [int(c) for c in state.pile],
        "stock": [int(c) for c in state.stock],
        "hand_end": state.hand_end,
        "rng": state.rng.bit_generator.state,
    }
    for name in _BOOL_ARRAYS + _INT_ARRAYS:
        data[name] = getattr(state, name).tolist()
    for name in _INT_FIELDS:
        data[name] = int(getattr(state, name))
    for name in _BOOL_FIELDS:
        data[name] = bool(getattr(state, name))
    return json.dumps(data, sort_keys=True)


def from_json(text: str | bytes) -> State:
    """Rebuild a state from `to_json` output; StateError naming the field if anything is wrong."""
    if not isinstance(text, str | bytes):
        raise StateError(f"a saved state is JSON text, got {type(text).__name__}")
    if len(text) > MAX_STATE_CHARS:
        raise StateError(f"saved state is longer than the limit of {MAX_STATE_CHARS} characters")
    data = safe_json.loads(text, "saved state", error=StateError, max_chars=MAX_STATE_CHARS)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise StateError(f"not a Scandal state (missing format {FORMAT!r})")
    if data.get("version") == 1 and "current" in data and "to_act" not in data:
        data["to_act"] = data.pop("current")
    elif data.get("version") != _JSON_VERSION:
        raise StateError(f"unsupported state version {data.get('version')!r}")
    missing = sorted(_FIELDS - set(data))
    if missing:
        raise StateError(f"state is missing field(s) {missing}")
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise StateError(f"state has unknown field(s) {unknown}")
    try:
        config = ScandalConfig.from_dict(data["config"], source="state config")
        rules = make_rules(config)
    except CardsuiteError as err:
        raise StateError(f"state config is invalid (field 'config'): {err}") from None
    p, n, ns = config.num_players, rules.deck.n_cards, rules.deck.n_scandals
    shapes = {"hands": (p, n), "known": (p, n), "build": (n,), "meld_owner": (ns,)}
    shapes |= {"placed_by": (n,), "placed_on": (n,)}
    shapes |= {"scores": (p,), "hand_scores": (p,), "step_scores": (p,)}
    bounds = {"placed_by": (-1, p - 1), "placed_on": (-1, ns - 1), "meld_owner": (-1, p - 1)}
    fields: dict[str, Any] = {}
    for name in _BOOL_ARRAYS:
        fields[name] = _array(data[name], name, shapes[name], bool, (0, 1))
    for name in _INT_ARRAYS:
        low, high = bounds.get(name, (-_INT64, _INT64 - 1))
        dtype = np.int8 if name in bounds else np.int64
        fields[name] = _array(data[name], name, shapes[name], dtype, (low, high))
    ranges = {
        "build_scandal": (-1, ns - 1),
        "to_act": (0, p - 1),
        "phase": (0, len(Phase) - 1),
        "duty": (-1, n - 1),
        "forbidden": (-1, n - 1),
        "turn": (0, config.max_turns),
        "dealer": (0, p - 1),
        "hand_number": (0, config.max_hands - 1),
    }
    for name in _INT_FIELDS:
        fields[name] = _int(data[name], name, *ranges[name])
    fields["phase"] = Phase(fields["phase"])
    for name in _BOOL_FIELDS:
        if not isinstance(data[name], bool):
            raise StateError(f"state field {name!r} must be true or false, got {data[name]!r}")
        fields[name] = data[name]
    for name in _LIST_FIELDS:
        seq = data[name]
        if not isinstance(seq, list) or len(seq) > n:
            raise StateError(f"state field {name!r} must be a list of at most {n} card ids")
        fields[name] = [_int(c, name, 0, n - 1) for c in seq]
    if data["hand_end"] not in (END_NONE, END_OUT, END_BLOCKED, END_MAX_TURNS):
        raise StateError(f"state field 'hand_end' is not a known reason: {data['hand_end']!r}")
    state = State(
        rules=rules,
        hand_counts=[int(x) for x in fields["hands"].sum(axis=1)],
        hand_end=data["hand_end"],
        rng=_rng(data["rng"]),
        **fields,
    )
    check_state(state)
    return state


def _int(value: Any, name: str, low: int, high: int) -> int:
    """``value`` if it is an int in ``low..high`` (a bool is not an int); StateError otherwise."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise StateError(f"state field {name!r} must be an integer {low}..{high}, got {value!r}")
    return value


def _array(
    value: Any, name: str, shape: tuple[int, ...], dtype: Any, bounds: tuple[int, int]
) -> Any:
    """A nested list of exactly ``shape`` as an array; every entry checked first."""
    kind = "true/false" if dtype is bool else f"integers {bounds[0]}..{bounds[1]}"
    what = f"state field {name!r} must be a {'x'.join(map(str, shape))} array of {kind}"
    rows = [value]
    for size in shape:
        if not all(isinstance(row, list) and len(row) == size for row in rows):
            try:
                got: Any = np.shape(value)
            except ValueError:
                got = "ragged"
            raise StateError(f"state field {name!r} has shape {got}, expected {shape}: {what}")
        rows = [item for row in rows for item in row]
    for item in rows:
        if dtype is bool:
            if not isinstance(item, bool):
                raise StateError(f"{what}, got {item!r}")
        elif not isinstance(item, int) or isinstance(item, bool):
            raise StateError(f"{what}, got {item!r}")
        elif not bounds[0] <= item <= bounds[1]:
            raise StateError(f"{what}, got {item}")
    return np.array(value, dtype=dtype).reshape(shape)


def _rng(value: Any) -> np.random.Generator:
    """The numpy Generator of a saved ``bit_generator.state``; StateError if it is not one."""
    name = value.get("bit_generator") if isinstance(value, dict) else None
    if name not in _BIT_GENERATORS:
        raise StateError(
            f"state field 'rng' must be a numpy bit generator state ({', '.join(_BIT_GENERATORS)})"
        )
    try:
        bg = getattr(np.random, name)(0)
        bg.state = value
        bg.random_raw()  # a malformed state can pass the setter and fail on first use
    except (KeyError, TypeError, ValueError, OverflowError) as err:
        raise StateError(f"state field 'rng' is not a valid {name} state: {err}") from None
    bg.state = value
    return np.random.Generator(bg)
