"""The run state a checkpoint holds besides its weights: a batched engine's arrays, the
generators and an optimizer's state, each checked before it is restored."""

from __future__ import annotations

import base64
import random
from collections.abc import Mapping
from typing import Any

import numpy as np

from cardsuite.errors import CheckpointError


def engine_state(engine: Any) -> dict[str, np.ndarray] | None:
    """The arrays and numbers (seed, counters) of a batched engine and its encoder, to
    continue its games; None if the engine keeps state in Python containers (then a
    resumed run deals fresh games)."""
    out: dict[str, np.ndarray] = {}
    for owner, obj in (("engine", engine), ("encoder", getattr(engine, "encoder", None))):
        if obj is None:
            continue
        for key, value in vars(obj).items():
            if isinstance(value, np.ndarray):
                out[f"{owner}.{key}"] = value
            elif isinstance(value, bool | int | float):  # the seed, counters of the streams
                out[f"{owner}.{key}"] = np.asarray(value)
            elif isinstance(value, list | dict | set) and owner == "engine":
                return None  # per-game Python objects: not an array engine
    return out


def restore_engine_state(engine: Any, arrays: dict[str, Any]) -> None:
    """Put back the arrays `engine_state` saved into an engine that has been reset: in place
    when the shape fits (views stay intact), else replaced; CheckpointError for a name the
    engine does not have."""
    for name, value in arrays.items():
        owner_name, _, key = name.partition(".")
        owner = engine if owner_name == "engine" else getattr(engine, "encoder", None)
        old = getattr(owner, key, None) if owner is not None else None
        if isinstance(old, bool | int | float) and np.ndim(value) == 0:
            setattr(owner, key, type(old)(np.asarray(value).item()))
            continue
        if not isinstance(old, np.ndarray):
            raise CheckpointError(f"checkpoint engine state: {name} does not fit this engine")
        if old.shape == tuple(value.shape):
            old[...] = np.asarray(value, dtype=old.dtype)
        else:
            setattr(owner, key, np.array(value, dtype=old.dtype))


def gen_state(gen: Any) -> str:
    """A torch generator's state (a uint8 tensor) as base64 text (JSON)."""
    return base64.b64encode(gen.get_state().numpy().tobytes()).decode("ascii")


def set_gen(gen: Any, text: str) -> None:
    """Restore a torch generator from `gen_state`'s text."""
    import torch

    raw = np.frombuffer(base64.b64decode(text.encode("ascii")), dtype=np.uint8).copy()
    gen.set_state(torch.from_numpy(raw))


def capture_rng() -> dict[str, Any]:
    """The global RNG states of python, numpy and torch, JSON-friendly."""
    import torch

    version, internal, gauss = random.getstate()
    kind, keys, pos, has_gauss, cached = np.random.get_state(legacy=True)  # type: ignore[misc]
    return {
        "python": [version, list(internal), gauss],
        "numpy": [kind, np.asarray(keys).tolist(), int(pos), int(has_gauss), float(cached)],
        "torch": gen_state(torch.default_generator),
    }


def _words(x: Any, n: int) -> bool:
    """Whether ``x`` is a Mersenne Twister's ``n`` 32-bit words."""
    return isinstance(x, list) and len(x) == n and all(type(v) is int and 0 <= v < 2**32 for v in x)


def check_rng(state: Any) -> None:
    """Check the shape of captured RNG states; CheckpointError naming the part."""

    def bad(part: str) -> CheckpointError:
        return CheckpointError(f"state.json: field 'rng.{part}' is malformed")

    if not isinstance(state, dict) or set(state) != {"python", "numpy", "torch"}:
        raise CheckpointError("state.json: field 'rng' must hold python, numpy and torch states")

    match state["python"]:  # JSON lists: version, 625 words, the cached gauss
        case [version, words, None | float()] if type(version) is int and _words(words, 625):
            pass
        case _:
            raise bad("python")
    match state["numpy"]:  # kind, 624 words, position, has_gauss, cached gauss
        case ["MT19937", words, pos, 0 | 1, float() | int()] if (
            _words(words, 624) and type(pos) is int and 0 <= pos <= 624
        ):
            pass
        case _:
            raise bad("numpy")
    if not isinstance(state["torch"], str) or len(state["torch"]) > 100_000:
        raise bad("torch")
    try:
        base64.b64decode(state["torch"], validate=True)
    except ValueError:
        raise bad("torch") from None


def restore_rng(state: dict[str, Any]) -> None:
    """Set the global RNG states captured by `capture_rng`."""
    import torch

    check_rng(state)
    try:
        version, internal, gauss = state["python"]
        random.setstate((version, tuple(internal), gauss))
        kind, keys, pos, has_gauss, cached = state["numpy"]
        np.random.set_state((kind, np.asarray(keys, dtype=np.uint32), pos, has_gauss, cached))
        set_gen(torch.default_generator, state["torch"])
    except (KeyError, TypeError, ValueError, RuntimeError) as err:
        raise CheckpointError(f"state.json: field 'rng' is malformed: {err}") from None


def flatten_optimizer(state_dict: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A torch optimizer's state dict as flat tensors and JSON ``param_groups``."""
    tensors = {
        f"state.{index}.{key}": value
        for index, entry in state_dict["state"].items()
        for key, value in entry.items()
    }
    groups = [
        {k: list(v) if isinstance(v, tuple) else v for k, v in group.items()}
        for group in state_dict["param_groups"]
    ]
    return tensors, groups


def restore_optimizer(optimizer: Any, tensors: Mapping[str, Any], groups: Any) -> None:
    """Load a flattened optimizer state into ``optimizer`` after checking it fits: the
    ``groups`` must have the optimizer's keys and parameter indices (None: keep its own),
    every tensor must belong to a parameter and match its shape (CheckpointError)."""
    fresh = optimizer.state_dict()

    def bad(message: str) -> CheckpointError:
        return CheckpointError(f"checkpoint optimizer: {message}")

    if groups is None:
        groups = flatten_optimizer(fresh)[1]
    if not isinstance(groups, list) or len(groups) != len(fresh["param_groups"]):
        raise bad(f"field 'optimizer' must list {len(fresh['param_groups'])} groups")
    restored = []
    for i, (saved, own) in enumerate(zip(groups, fresh["param_groups"])):
        if not isinstance(saved, dict) or set(saved) != set(own):
            raise bad(f"field 'optimizer[{i}]' has other keys than the optimizer")
        if saved["params"] != own["params"]:
            raise bad(f"field 'optimizer[{i}].params' does not match the model")
        group = {}
        for key, value in saved.items():
            if isinstance(own[key], tuple):
                if not isinstance(value, list) or len(value) != len(own[key]):
                    raise bad(f"field 'optimizer[{i}].{key}' is malformed")
                value = tuple(value)
            elif own[key] is not None and type(value) is not type(own[key]):
                raise bad(f"field 'optimizer[{i}].{key}' must be {type(own[key]).__name__}")
            group[key] = value
        restored.append(group)
    params = [p for g in optimizer.param_groups for p in g["params"]]
    state: dict[int, dict[str, Any]] = {}
    for name, tensor in tensors.items():
        parts = name.split(".")
        if len(parts) != 3 or parts[0] != "state" or not parts[1].isdigit():
            raise bad(f"unexpected tensor {name!r}")
        index = int(parts[1])
        if index >= len(params):
            raise bad(f"tensor {name!r} names no parameter")
        if parts[2] != "step" and tuple(tensor.shape) != tuple(params[index].shape):
            raise bad(
                f"tensor {name!r} has shape {tuple(tensor.shape)}, the parameter "
                f"{tuple(params[index].shape)}"
            )
        state.setdefault(index, {})[parts[2]] = tensor
    optimizer.load_state_dict({"state": state, "param_groups": restored})
