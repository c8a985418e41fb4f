"""Runtime state a checkpoint records besides the weights: RNG states and the optimizer.

* `capture_rng` / `restore_rng`: the global RNG states of python,
  numpy and torch as JSON values; `check_rng` validates their shape
  before anything is restored (a CheckpointError naming ``rng.<part>``).
* `flatten_optimizer` / `restore_optimizer`: a torch optimizer's
  state as flat tensors (saved as safetensors) and JSON ``param_groups``,
  checked against the optimizer they are loaded into (keys, parameter
  indices, shapes) so a tampered file cannot smuggle in other structure.

Nothing here unpickles; torch is imported only when called.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Mapping
from typing import Any

import numpy as np

from cardsuite.errors import CheckpointError


# ----------------------------------------------------------------- RNG states
def capture_rng() -> dict[str, Any]:
    """The global RNG states of python, numpy and torch, JSON-friendly."""
    import torch

    version, internal, gauss = random.getstate()
    kind, keys, pos, has_gauss, cached = np.random.get_state(legacy=True)  # type: ignore[misc]
    return {
        "python": [version, list(internal), gauss],
        "numpy": [kind, np.asarray(keys).tolist(), int(pos), int(has_gauss), float(cached)],
        "torch": base64.b64encode(torch.get_rng_state().numpy().tobytes()).decode("ascii"),
    }


def check_rng(state: Any) -> None:
    """Check the shape of captured RNG states; CheckpointError naming the part."""

    def bad(part: str) -> CheckpointError:
        return CheckpointError(f"state.json: field 'rng.{part}' is malformed")

    if not isinstance(state, dict) or set(state) != {"python", "numpy", "torch"}:
        raise CheckpointError("state.json: field 'rng' must hold python, numpy and torch states")
    py = state["python"]
    if not (
        isinstance(py, list)
        and len(py) == 3
        and type(py[0]) is int
        and isinstance(py[1], list)
        and len(py[1]) == 625
        and all(type(x) is int and 0 <= x < 1 << 32 for x in py[1])
        and (py[2] is None or isinstance(py[2], float))
    ):
        raise bad("python")
    npy = state["numpy"]
    if not (
        isinstance(npy, list)
        and len(npy) == 5
        and npy[0] == "MT19937"
        and isinstance(npy[1], list)
        and len(npy[1]) == 624
        and all(type(x) is int and 0 <= x < 1 << 32 for x in npy[1])
        and type(npy[2]) is int
        and 0 <= npy[2] <= 624
        and npy[3] in (0, 1)
        and isinstance(npy[4], float | int)
    ):
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
        raw = np.frombuffer(base64.b64decode(state["torch"]), dtype=np.uint8).copy()
        torch.set_rng_state(torch.from_numpy(raw))
    except (KeyError, TypeError, ValueError, RuntimeError) as err:
        raise CheckpointError(f"state.json: field 'rng' is malformed: {err}") from None


# ------------------------------------------------------------------ optimizer
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
    """Load a flattened optimizer state into ``optimizer`` after checking it fits.

    The saved ``param_groups`` must have the optimizer's own keys and
    parameter indices; every state tensor must belong to a parameter and
    match its shape. CheckpointError names what does not fit.
    """
    fresh = optimizer.state_dict()
    where = "checkpoint optimizer"
    if not isinstance(groups, list) or len(groups) != len(fresh["param_groups"]):
        raise CheckpointError(
            f"{where}: field 'optimizer' must list {len(fresh['param_groups'])} groups"
        )
    restored = []
    for i, (saved, own) in enumerate(zip(groups, fresh["param_groups"])):
        if not isinstance(saved, dict) or set(saved) != set(own):
            raise CheckpointError(
                f"{where}: field 'optimizer[{i}]' has other keys than the optimizer"
            )
        if saved["params"] != own["params"]:
            raise CheckpointError(
                f"{where}: field 'optimizer[{i}].params' does not match the model"
            )
        group = {}
        for key, value in saved.items():
            if isinstance(own[key], tuple):
                if not isinstance(value, list) or len(value) != len(own[key]):
                    raise CheckpointError(f"{where}: field 'optimizer[{i}].{key}' is malformed")
                value = tuple(value)
            elif own[key] is not None and type(value) is not type(own[key]):
                raise CheckpointError(
                    f"{where}: field 'optimizer[{i}].{key}' must be {type(own[key]).__name__}"
                )
            group[key] = value
        restored.append(group)
    params = [p for g in optimizer.param_groups for p in g["params"]]
    state: dict[int, dict[str, Any]] = {}
    for name, tensor in tensors.items():
        parts = name.split(".")
        if len(parts) != 3 or parts[0] != "state" or not parts[1].isdigit():
            raise CheckpointError(f"{where}: unexpected tensor {name!r}")
        index = int(parts[1])
        if index >= len(params):
            raise CheckpointError(f"{where}: tensor {name!r} names no parameter")
        if parts[2] != "step" and tuple(tensor.shape) != tuple(params[index].shape):
            raise CheckpointError(
                f"{where}: tensor {name!r} has shape {tuple(tensor.shape)}, "
                f"the parameter {tuple(params[index].shape)}"
            )
        state.setdefault(index, {})[parts[2]] = tensor
    optimizer.load_state_dict({"state": state, "param_groups": restored})
