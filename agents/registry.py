"""Agents by spec string: ``random``, ``greedy``, ``heuristic``, ``ismcts``, ``ppo:PATH``, ``rllib:PATH``.

A spec names an agent kind, optionally with parameters::

    random
    ismcts:budget=200,rollouts=heuristic
    ppo:runs/scum-4p/final          (a trained checkpoint directory or file)
    rllib:runs/rllib/iter_000010    (an RLlib checkpoint, with the rllib extra)

Parameter values are read as YAML scalars (``200`` is an int, ``1.5`` a
float, ``true`` a bool, anything else a string). Agent classes are imported
lazily, so listing or parsing specs never imports torch; only a ``ppo:`` spec
imports :mod:`train.policy`, and only an ``rllib:`` spec imports ray. Every mistake raises a named error: an unknown
kind, a malformed or unknown parameter (:class:`ConfigError`), a missing
checkpoint (:class:`CheckpointError`).
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agents.base import Agent, RandomAgent
from scum_env.suite.errors import CardsuiteError, CheckpointError, ConfigError


@dataclass(frozen=True)
class AgentKind:
    """One kind of agent the registry can build.

    Attributes:
        name: the spec name (``"ismcts"``).
        target: ``"module:Class"`` imported on first use.
        doc: one line for help texts.
    """

    name: str
    target: str
    doc: str


KINDS: dict[str, AgentKind] = {
    k.name: k
    for k in (
        AgentKind("random", "agents.base:RandomAgent", "uniform over the legal actions"),
        AgentKind(
            "greedy",
            "agents.greedy:GreedyAgent",
            "simple rule bot: sheds the most cards, melds at once",
        ),
        AgentKind("heuristic", "agents.heuristic:HeuristicAgent", "hand-written rule bot"),
        AgentKind(
            "ismcts",
            "agents.ismcts:ISMCTSAgent",
            "information-set Monte Carlo tree search (e.g. ismcts:budget=200)",
        ),
        AgentKind("ppo", "train.policy:PPOAgent", "a trained policy: ppo:PATH (checkpoint)"),
        AgentKind("rllib", "train.rllib.policy:RLlibAgent", "an RLlib-trained policy: rllib:PATH"),
    )
}

# Kinds loaded from a checkpoint path with ``Class.load(path, game, seed)``,
# and the extra that provides them.
CHECKPOINT_KINDS = {"ppo": "train", "rllib": "rllib"}


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec string.

    Attributes:
        text: the spec as written.
        kind: the agent kind (a key of :data:`KINDS`).
        params: constructor parameters (not for ``ppo``).
        path: the checkpoint of a ``ppo`` spec.
    """

    text: str
    kind: str
    params: dict[str, Any] = field(default_factory=dict)
    path: str | None = None


def available_agents() -> list[str]:
    """One help line per agent kind (``"ismcts  information-set ..."``)."""
    width = max(len(name) for name in KINDS)
    return [f"{k.name:<{width}}  {k.doc}" for k in KINDS.values()]


def parse_spec(spec: str) -> AgentSpec:
    """Parse ``name[:key=value,...]`` or ``ppo:PATH``; ConfigError naming the mistake."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(f"agent spec must be a non-empty string, got {spec!r}")
    text = spec.strip()
    name, sep, rest = text.partition(":")
    name = name.strip().lower()
    if name not in KINDS:
        raise ConfigError(f"unknown agent {name!r} in spec {text!r}; agents: {', '.join(KINDS)}")
    if name in CHECKPOINT_KINDS:
        if not rest.strip():
            raise ConfigError(
                f"agent spec {text!r}: a {name} agent needs a checkpoint, {name}:PATH"
            )
        return AgentSpec(text, name, {}, rest.strip())
    if sep and not rest.strip():
        raise ConfigError(f"agent spec {text!r}: nothing after ':'; write {name}:key=value")
    params: dict[str, Any] = {}
    for item in rest.split(",") if rest.strip() else []:
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq or not key.isidentifier():
            raise ConfigError(
                f"agent spec {text!r}: parameter {item.strip()!r} is not key=value "
                f"(e.g. {name}:budget=200)"
            )
        if key in params:
            raise ConfigError(f"agent spec {text!r}: parameter {key!r} given twice")
        params[key] = _scalar(raw.strip())
    return AgentSpec(text, name, params)


def _scalar(raw: str) -> Any:
    try:
        value = yaml.safe_load(raw)
    except yaml.YAMLError:
        return raw
    return value if isinstance(value, int | float | bool | str) else raw


def make_agent(spec: str, game: str, seed: int | None = None) -> Agent:
    """Build the agent ``spec`` for ``game`` (a registry name such as ``"scum"``).

    Args:
        spec: an agent spec (see the module documentation).
        game: the game the agent will play.
        seed: seeds the agent's own randomness.

    Raises:
        ConfigError: unknown kind, malformed or unknown parameter, a bad value,
            or an agent kind not part of this install.
        CheckpointError: a ``ppo:`` checkpoint that does not exist or cannot be loaded.
    """
    parsed = parse_spec(spec)
    if parsed.kind in CHECKPOINT_KINDS:
        return _make_from_checkpoint(parsed, game, seed)
    if parsed.kind == "random":
        if parsed.params:
            raise ConfigError(
                f"agent spec {parsed.text!r}: random takes no parameters, "
                f"got {', '.join(parsed.params)}"
            )
        return RandomAgent(seed)
    cls = _load(parsed)
    _check_params(parsed, cls)
    try:
        agent = cls(game, seed=seed, **parsed.params)
    except CardsuiteError:
        raise
    except (TypeError, ValueError) as err:
        raise ConfigError(f"agent spec {parsed.text!r}: {err}") from None
    return agent  # type: ignore[no-any-return]


def _load(parsed: AgentSpec) -> Any:
    module_name, attr = KINDS[parsed.kind].target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        raise ConfigError(
            f"agent {parsed.kind!r} is not available in this install "
            f"(module {err.name!r} not found)"
        ) from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ConfigError(
            f"agent {parsed.kind!r} is not available: {module_name} has no {attr}"
        ) from None


def _check_params(parsed: AgentSpec, cls: Any) -> None:
    """ConfigError naming a parameter the constructor does not accept."""
    params = inspect.signature(cls).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    accepted = [
        name
        for name, p in params.items()
        if name not in ("game", "seed")
        and p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    ]
    for key in parsed.params:
        if key not in accepted:
            raise ConfigError(
                f"agent spec {parsed.text!r}: unknown parameter {key!r} for {parsed.kind}; "
                f"parameters: {', '.join(accepted) or 'none'}"
            )


def _make_from_checkpoint(parsed: AgentSpec, game: str, seed: int | None) -> Agent:
    path = Path(parsed.path or "")
    if not path.exists():
        raise CheckpointError(f"agent spec {parsed.text!r}: checkpoint {str(path)!r} not found")
    module_name, attr = KINDS[parsed.kind].target.split(":")
    try:
        cls = getattr(importlib.import_module(module_name), attr)
    except ModuleNotFoundError as err:
        extra = CHECKPOINT_KINDS[parsed.kind]
        raise ConfigError(
            f"agent spec {parsed.text!r}: {parsed.kind} agents need the {extra} extra "
            f"(pip install cardsuite[{extra}]); module {err.name!r} not found"
        ) from None
    try:
        return cls.load(path, game, seed)  # type: ignore[no-any-return]
    except CardsuiteError:
        raise
    except (OSError, ValueError, KeyError, RuntimeError) as err:
        raise CheckpointError(
            f"agent spec {parsed.text!r}: cannot load checkpoint {str(path)!r}: {err}"
        ) from None


def display_names(specs: list[str]) -> list[str]:
    """Distinct names for a list of specs: repeats become ``random#1``, ``random#2``."""
    texts = [s.strip() for s in specs]
    counts = {t: texts.count(t) for t in texts}
    seen: dict[str, int] = {}
    names = []
    for t in texts:
        if counts[t] > 1:
            seen[t] = seen.get(t, 0) + 1
            names.append(f"{t}#{seen[t]}")
        else:
            names.append(t)
    return names
