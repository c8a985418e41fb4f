"""Agents by spec string: ``random``, ``greedy``, ``heuristic``, ``ismcts``, ``ppo:PATH``, ``rllib:PATH``.

A spec names an agent kind, optionally with parameters::

    random
    ismcts:budget=200,rollouts=heuristic
    ppo:runs/scum-4p/final          (a trained checkpoint directory or file)
    rllib:runs/rllib/iter_000010    (an RLlib checkpoint, with the rllib extra)

Parameter values are read as YAML scalars (``200`` is an int, ``1.5`` a
float, ``true`` a bool, anything else a string). Agent classes are imported
lazily, so listing or parsing specs never imports torch; only a ``ppo:`` spec
imports :mod:`cardsuite.train.policy`, and only an ``rllib:`` spec imports ray.
Kinds that need training code are not named here: the layer that owns them
registers them through the ``cardsuite.agents`` entry-point group
(:data:`ENTRY_POINT_GROUP`), as any other package may. Every mistake raises a named error: an unknown
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

from cardsuite.agents.base import Agent, RandomAgent
from cardsuite.errors import CardsuiteError, CheckpointError, ConfigError


@dataclass(frozen=True)
class AgentKind:
    """One kind of agent the registry can build.

    Attributes:
        name: the spec name (``"ismcts"``).
        target: ``"module:Class"`` imported on first use.
        doc: one line for help texts.
        argument: what follows ``name:`` in a spec: ``"params"`` (``key=value``
            pairs passed to ``Class(game, seed=..., **params)``), ``"path"`` (a
            checkpoint path, loaded by ``Class.load(path, game, seed)``) or
            ``"name"`` (a name, e.g. of a shipped agent, also ``Class.load``).
        extra: the ``pip install cardsuite[EXTRA]`` that provides the kind, if any.
    """

    name: str
    target: str
    doc: str
    argument: str = "params"
    extra: str | None = None


#: The entry-point group through which other layers and other packages add
#: agent kinds; each entry point names an :class:`AgentKind` (or an agent
#: class, whose docstring's first line becomes the help text).
ENTRY_POINT_GROUP = "cardsuite.agents"

_BUILTIN = (
    AgentKind("random", "cardsuite.agents.base:RandomAgent", "uniform over the legal actions"),
    AgentKind(
        "greedy",
        "cardsuite.agents.greedy:GreedyAgent",
        "simple rule bot: sheds the most cards, melds at once",
    ),
    AgentKind("heuristic", "cardsuite.agents.heuristic:HeuristicAgent", "hand-written rule bot"),
    AgentKind(
        "ismcts",
        "cardsuite.agents.ismcts:ISMCTSAgent",
        "information-set Monte Carlo tree search (e.g. ismcts:budget=200)",
    ),
)


def _plugin_kinds() -> list[AgentKind]:
    """Kinds registered through :data:`ENTRY_POINT_GROUP` (``ppo``, ``rllib``, ...).

    Training-based kinds are registered by the layer that owns them
    (``cardsuite.train``), so this package never names it. A plug-in that
    fails to load is skipped with a warning rather than breaking the arena.
    """
    import warnings
    from importlib.metadata import entry_points

    kinds = []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            obj = ep.load()
        except Exception as err:  # a broken third-party plug-in
            warnings.warn(
                f"agent plug-in {ep.name!r} ({ep.value}) could not be loaded: {err}",
                RuntimeWarning,
                stacklevel=2,
            )
            continue
        if isinstance(obj, AgentKind):
            kinds.append(obj)
        elif inspect.isclass(obj):
            doc = (obj.__doc__ or ep.value).strip().splitlines()[0]
            kinds.append(AgentKind(ep.name, ep.value, doc))
    return kinds


KINDS: dict[str, AgentKind] = {}
for _kind in (*_BUILTIN, *_plugin_kinds()):
    KINDS.setdefault(_kind.name, _kind)


def _checkpoint_kinds() -> dict[str, str]:
    """Kinds built with ``Class.load(...)`` and the extra that provides each."""
    return {k.name: k.extra or "" for k in KINDS.values() if k.argument != "params"}


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
    if KINDS[name].argument != "params":
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
    if KINDS[parsed.kind].argument != "params":
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
    kind = KINDS[parsed.kind]
    path: str | Path = parsed.path or ""
    if kind.argument == "path" and not Path(path).exists():
        raise CheckpointError(f"agent spec {parsed.text!r}: checkpoint {str(path)!r} not found")
    module_name, attr = KINDS[parsed.kind].target.split(":")
    try:
        cls = getattr(importlib.import_module(module_name), attr)
    except ModuleNotFoundError as err:
        extra = kind.extra or parsed.kind
        raise ConfigError(
            f"agent spec {parsed.text!r}: {parsed.kind} agents need the {extra} extra "
            f"(pip install cardsuite[{extra}]); module {err.name!r} not found"
        ) from None
    try:
        source = Path(path) if kind.argument == "path" else path
        return cls.load(source, game, seed)  # type: ignore[no-any-return]
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
