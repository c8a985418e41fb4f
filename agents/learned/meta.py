"""An agent's metadata (``agent.json``): `AgentMeta`, and the checks every field meets.

`validate_meta` checks each field (a `CheckpointError` names it) before any tensor is used;
`check_weights` checks the tensors against the declared actor network.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.learned.features import CountInputs
from cardsuite.agents.learned.netspec import ACTIVATIONS, NetworkSpec
from cardsuite.errors import CheckpointError

FORMAT = "cardsuite-agent"
META_FILE = "agent.json"
WEIGHTS_FILE = "weights.safetensors"
TENSOR_NAME = re.compile(r"[A-Za-z0-9_.\-/]{1,200}")
MAX_JSON_DEPTH = 32
OBS_SCALES = ("obs_spec", "none")
LAYOUTS = ("table", "generic", "projected")
_SHA = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class AgentMeta:
    """What ``agent.json`` records besides the checksum: game and rule options, observation and
    action sizes, the actor network, learner steps, the trainer, its config and the package
    versions at save time (filled by `save_agent`)."""

    game: str
    options: dict[str, Any]
    obs_size: int
    num_actions: int
    network: NetworkSpec
    step: int = 0
    trainer: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The metadata as a JSON object (``network.actor`` as a list)."""
        doc = asdict(self)
        doc["network"]["actor"] = list(self.network.actor)
        if self.network.features is None:
            del doc["network"]["features"]  # absent, as in agents saved before the field
        else:
            doc["network"]["features"] = self.network.features.to_json()
        return doc


def check_json(where: str, value: Any, depth: int = 0) -> None:
    """JSON values only (finite numbers, str keys), bounded nesting."""
    if depth > MAX_JSON_DEPTH:
        raise CheckpointError(f"{where}: nested deeper than {MAX_JSON_DEPTH} levels")
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CheckpointError(f"{where}: {value!r} is not a finite number")
        return
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            check_json(f"{where}[{i}]", item, depth + 1)
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise CheckpointError(f"{where}: key {key!r} is not a string")
            check_json(f"{where}.{key}", item, depth + 1)
        return
    raise CheckpointError(f"{where}: {type(value).__name__} is not a JSON value")


def validate_meta(doc: Any, d: Path) -> tuple[AgentMeta, str]:
    """Check every field of an ``agent.json`` document; the meta and its sha256."""
    where = f"agent {str(d)!r}: {META_FILE}"

    def fail(name: str, message: str) -> CheckpointError:
        return CheckpointError(f"{where}: field {name!r} {message}")

    if not isinstance(doc, dict):
        raise CheckpointError(f"{where}: expected a JSON object")
    known = {"format", "sha256", *AgentMeta.__dataclass_fields__}
    unknown = sorted(set(doc) - known)
    if unknown:
        raise fail(unknown[0], "is not a known field")
    for name in ("format", "sha256", "game", "options", "obs_size", "num_actions", "network"):
        if name not in doc:
            raise fail(name, "is missing")
    if doc["format"] != FORMAT:
        raise fail("format", f"must be {FORMAT!r}, got {doc['format']!r}")
    if not isinstance(doc["sha256"], str) or not _SHA.fullmatch(doc["sha256"]):
        raise fail("sha256", "must be 64 lowercase hex digits")
    game = doc["game"]
    if not isinstance(game, str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,40}", game):
        raise fail("game", f"must be a game's registry name, got {str(game)[:60]!r}")
    for name in ("options", "config"):
        if not isinstance(doc.get(name, {}), dict):
            raise fail(name, "must be a JSON object")
        check_json(f"{where}: field {name!r}", doc.get(name, {}))
    for name, low in (("obs_size", 1), ("num_actions", 1), ("step", 0)):
        value = doc.get(name, 0)
        if type(value) is not int or not low <= value < 1 << 40:
            raise fail(name, f"must be an integer >= {low}, got {value!r}")
    if not isinstance(doc.get("trainer", ""), str) or len(doc.get("trainer", "")) > 100:
        raise fail("trainer", "must be a short string")
    versions = doc.get("versions", {})
    if not isinstance(versions, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and len(v) < 100 for k, v in versions.items()
    ):
        raise fail("versions", "must map package names to version strings")
    net = doc["network"]
    if not isinstance(net, dict):
        raise fail("network", "must be a JSON object")
    extra = sorted(set(net) - set(NetworkSpec.__dataclass_fields__))
    if extra:
        raise fail(f"network.{extra[0]}", "is not a known field")
    if net.get("kind", "mlp") != "mlp":
        raise fail("network.kind", f"must be 'mlp', got {net.get('kind')!r}")
    for name, allowed, default in (("activation", ACTIVATIONS, None),
                                   ("obs_scale", OBS_SCALES, "obs_spec"),
                                   ("layout", LAYOUTS, "table")):  # fmt: skip
        if net.get(name, default) not in allowed:
            raise fail(f"network.{name}", f"must be one of {allowed}, got {net.get(name)!r}")
    actor = net.get("actor")
    if (
        not isinstance(actor, list)
        or not 1 <= len(actor) <= 64
        or not all(isinstance(p, str) and TENSOR_NAME.fullmatch(p) for p in actor)
    ):
        raise fail("network.actor", "must list 1 to 64 state-dict prefixes of linear layers")
    features = None
    if net.get("features") is not None:
        features = CountInputs.from_json(net["features"], doc["obs_size"], where)
    network = NetworkSpec(**{**net, "actor": tuple(actor), "features": features})
    fields = {name: doc[name] for name in AgentMeta.__dataclass_fields__ if name in doc}
    return AgentMeta(**{**fields, "network": network}), doc["sha256"]


def check_weights(arrays: Mapping[str, np.ndarray], meta: AgentMeta, d: Path) -> None:
    """The actor's tensors exist, are float, and chain obs_size -> ... -> num_actions."""
    where = f"agent {str(d)!r}: {WEIGHTS_FILE}"
    width = meta.obs_size + meta.network.extra_inputs
    for i, prefix in enumerate(meta.network.actor):
        w, b = arrays.get(f"{prefix}.weight"), arrays.get(f"{prefix}.bias")
        if w is None or b is None:
            raise CheckpointError(f"{where}: network.actor layer {prefix!r} has no weight/bias")
        for t, name in ((w, "weight"), (b, "bias")):
            if t.dtype.kind != "f":
                raise CheckpointError(f"{where}: {prefix}.{name} has dtype {t.dtype}, not float")
            if not np.all(np.isfinite(t)):
                raise CheckpointError(f"{where}: {prefix}.{name} holds NaN or inf")
        if w.ndim != 2 or w.shape[1] != width or b.shape != (w.shape[0],):
            raise CheckpointError(
                f"{where}: layer {i} ({prefix}) has weight {tuple(w.shape)} and bias "
                f"{tuple(b.shape)}; expected [out, {width}] and [out]"
            )
        width = w.shape[0]
    if width != meta.num_actions:
        raise CheckpointError(
            f"{where}: the actor outputs {width} logits but num_actions is {meta.num_actions}"
        )
