"""Scandal states as JSON (exact: the RNG state included)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from cardsuite.errors import CardsuiteError, StateError
from scandal_env.config import ScandalConfig
from scandal_env.state import (
    END_BLOCKED,
    END_MAX_TURNS,
    END_NONE,
    END_OUT,
    Phase,
    State,
    check_cards,
    make_rules,
)

#: Version 2 names the player to act ``to_act``; version 1 called it ``current``.
_JSON_VERSION = 2
_ARRAY_FIELDS = {
    "hands": ("bool", 2),
    "known": ("bool", 2),
    "placed_by": ("int8", 1),
    "placed_on": ("int8", 1),
    "meld_owner": ("int8", 1),
    "build": ("bool", 1),
    "scores": ("int64", 1),
    "hand_scores": ("int64", 1),
    "step_scores": ("int64", 1),
}
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


def to_json(state: State) -> str:
    """The state as a JSON string (exact: RNG state included)."""
    data: dict[str, Any] = {
        "format": "cardsuite-scandal-state",
        "version": _JSON_VERSION,
        "config": state.rules.config.to_dict(),
        "pile": [int(c) for c in state.pile],
        "stock": [int(c) for c in state.stock],
        "hand_end": state.hand_end,
        "rng": state.rng.bit_generator.state,
    }
    for name in _ARRAY_FIELDS:
        data[name] = getattr(state, name).tolist()
    for name in _INT_FIELDS:
        data[name] = int(getattr(state, name))
    for name in _BOOL_FIELDS:
        data[name] = bool(getattr(state, name))
    return json.dumps(data, sort_keys=True)


def from_json(text: str) -> State:
    """Rebuild a state from :func:`to_json` output.

    Raises:
        StateError: the text is not valid JSON, a field is missing or of the
            wrong type or shape, the config is invalid, or the cards are not
            each in exactly one place.
    """
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError) as err:
        raise StateError(f"state is not valid JSON: {err}") from None
    if not isinstance(data, dict) or data.get("format") != "cardsuite-scandal-state":
        raise StateError("not a Scandal state (missing format 'cardsuite-scandal-state')")
    if data.get("version") == 1 and "current" in data and "to_act" not in data:
        data["to_act"] = data.pop("current")
    elif data.get("version") != _JSON_VERSION:
        raise StateError(f"unsupported state version {data.get('version')!r}")
    needed = {"config", "pile", "stock", "hand_end", "rng"} | set(_ARRAY_FIELDS)
    needed |= set(_INT_FIELDS) | set(_BOOL_FIELDS)
    missing = sorted(needed - set(data))
    if missing:
        raise StateError(f"state is missing field(s) {missing}")
    try:
        config = ScandalConfig.from_dict(data["config"], source="state config")
        rules = make_rules(config)
    except CardsuiteError as err:
        raise StateError(f"state config is invalid: {err}") from None
    p, n, ns = config.num_players, rules.deck.n_cards, rules.deck.n_scandals
    shapes = {"hands": (p, n), "known": (p, n), "placed_by": (n,), "placed_on": (n,)}
    shapes |= {"meld_owner": (ns,), "build": (n,), "scores": (p,)}
    shapes |= {"hand_scores": (p,), "step_scores": (p,)}
    arrays: dict[str, np.ndarray] = {}
    for name, (dtype, _) in _ARRAY_FIELDS.items():
        try:
            arr = np.array(data[name], dtype=dtype)
        except (TypeError, ValueError, OverflowError) as err:
            raise StateError(f"state field {name!r} is not a {dtype} array: {err}") from None
        if arr.shape != shapes[name]:
            raise StateError(f"state field {name!r} has shape {arr.shape}, expected {shapes[name]}")
        arrays[name] = arr
    for name in _INT_FIELDS:
        if not isinstance(data[name], int) or isinstance(data[name], bool):
            raise StateError(f"state field {name!r} must be an int, got {data[name]!r}")
    for name in _BOOL_FIELDS:
        if not isinstance(data[name], bool):
            raise StateError(f"state field {name!r} must be a bool, got {data[name]!r}")
    for name in ("pile", "stock"):
        seq = data[name]
        if not isinstance(seq, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) and 0 <= c < n for c in seq
        ):
            raise StateError(f"state field {name!r} must be a list of card ids 0..{n - 1}")
    if not 0 <= data["to_act"] < p or not 0 <= data["dealer"] < p:
        raise StateError(f"state 'to_act'/'dealer' must be seats 0..{p - 1}")
    if data["phase"] not in (Phase.DRAW, Phase.MELD, Phase.BUILD):
        raise StateError(f"state 'phase' must be 0, 1 or 2, got {data['phase']}")
    if data["hand_end"] not in (END_NONE, END_OUT, END_BLOCKED, END_MAX_TURNS):
        raise StateError(f"state 'hand_end' is not a known reason: {data['hand_end']!r}")
    try:
        bg_cls = getattr(np.random, data["rng"]["bit_generator"])
        bg = bg_cls(0)
        bg.state = data["rng"]
    except (AttributeError, KeyError, TypeError, ValueError) as err:
        raise StateError(f"state 'rng' is not a numpy bit generator state: {err}") from None
    fields: dict[str, Any] = {**arrays}
    fields |= {name: data[name] for name in _INT_FIELDS + _BOOL_FIELDS}
    fields["phase"] = Phase(data["phase"])
    state = State(
        rules=rules,
        pile=list(data["pile"]),
        stock=list(data["stock"]),
        hand_counts=[int(x) for x in arrays["hands"].sum(axis=1)],
        hand_end=data["hand_end"],
        rng=np.random.Generator(bg),
        **fields,
    )
    try:
        check_cards(state)
    except AssertionError as err:
        raise StateError(f"state is inconsistent: {err}") from None
    return state
