"""Agents by spec string: ``random``, ``heuristic``, ``ismcts:budget=200``, ``ppo:PATH``,
``pretrained:scum4``, or a user's own class (``mypackage.bots:Cautious``,
``my_agent.py:Cautious:margin=2``, ``Class(game, seed=..., **params)``); the grammar:
``docs/agents.md``. Only [`make_agent`][cardsuite.agents.registry.make_agent] imports a
user's code, for specs the user typed, never for names read from a record or results file.
Other kinds come through the ``cardsuite.agents`` entry-point group (`ENTRY_POINT_GROUP`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import inspect
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardsuite.agents.base import Agent, RandomAgent
from cardsuite.agents.kinds import AgentKind, import_class
from cardsuite.errors import CardsuiteError, CheckpointError, ConfigError
from cardsuite.games import resolve
from cardsuite.safe_yaml import load_yaml_text

#: The entry-point group of agent kinds: each names an `AgentKind` (or an agent class,
#: whose docstring's first line becomes the help text).
ENTRY_POINT_GROUP = "cardsuite.agents"

_BUILTIN = (
    AgentKind("random", "cardsuite.agents.base:RandomAgent", "uniform over the legal actions"),
    AgentKind("greedy", "cardsuite.agents.baselines.greedy:GreedyAgent",
              "simple rule bot: sheds the most cards, melds at once"),
    AgentKind("heuristic", "cardsuite.agents.baselines.heuristic:HeuristicAgent",
              "hand-written rule bot"),
    AgentKind("ismcts", "cardsuite.agents.search.reference:BatchedISMCTSAgent",
              "information-set Monte Carlo tree search, rollouts batched (e.g. ismcts:budget=200)"),
    AgentKind("ismcts-reference", "cardsuite.agents.search.reference:ISMCTSAgent",
              "the readable ISMCTS, one rollout at a time: the same budget, slower"),
)  # fmt: skip


def _plugin_kinds() -> list[AgentKind]:
    """Kinds registered through `ENTRY_POINT_GROUP` (``ppo``, ``rllib``...); a plug-in that
    fails to load is skipped with a warning rather than breaking the arena."""
    kinds = []
    for ep in sorted(
        importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name
    ):
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


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec: ``text``, ``kind`` (of `KINDS`, or `CLASS_KIND`), constructor ``params``,
    a checkpoint kind's ``path`` (or name), a class spec's ``target``."""

    text: str
    kind: str
    params: dict[str, Any] = field(default_factory=dict)
    path: str | None = None
    target: str | None = None


#: The kind of a user's ``module:Class`` or ``path/to/file.py:Class`` spec.
CLASS_KIND = "class"


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
    if sep and name.strip().lower() not in KINDS and _is_class_target(name.strip(), rest):
        return _parse_class_spec(text, name.strip(), rest)
    name = name.strip().lower()
    if name not in KINDS:
        raise ConfigError(
            f"unknown agent {name!r} in spec {text!r}; agents: {', '.join(KINDS)}, "
            "or your own class as module:Class or path/to/file.py:Class"
        )
    if KINDS[name].argument != "params":
        if not rest.strip():
            raise ConfigError(
                f"agent spec {text!r}: a {name} agent needs a checkpoint, {name}:PATH"
            )
        return AgentSpec(text, name, {}, rest.strip())
    if sep and not rest.strip():
        raise ConfigError(f"agent spec {text!r}: nothing after ':'; write {name}:key=value")
    return AgentSpec(text, name, parse_params(text, rest, name))


def wrapped_spec(parsed: AgentSpec) -> tuple[str, dict[str, Any]] | None:
    """The spec a wrapping kind wraps and the kind's own parameters (None: it wraps nothing):
    ``search:pretrained:scum4:budget=50`` -> ``("pretrained:scum4", {"budget": 50})``."""
    kind = KINDS.get(parsed.kind)
    if kind is None or kind.wraps is None:
        return None
    inner, params = resolve(kind.wraps)(parsed.path or "")
    return str(inner), dict(params)


def weights_sha256(spec: str, depth: int = 0) -> str | None:
    """SHA-256 of the ``weights.safetensors`` (or checkpoint file) a spec plays, through any
    wrapper (``search:``); None for a rule-based agent, an unresolved name or path, or
    wrappers nested over 3 deep."""
    parsed = parse_spec(spec)
    inner = wrapped_spec(parsed)
    if inner is not None:
        return weights_sha256(inner[0], depth + 1) if depth < 3 else None
    kind = KINDS.get(parsed.kind)
    if kind is None or kind.argument not in ("name", "path") or not parsed.path:
        return None
    source = agent_folder(parsed) if kind.argument == "name" else Path(parsed.path).expanduser()
    if source is not None and source.is_dir():
        source = source / "weights.safetensors"
    if source is None or not source.is_file():
        return None
    with source.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def agent_folder(parsed: AgentSpec) -> Path | None:
    """Where a named agent's files are (its kind's ``folder``: ``pretrained:NAME``), or None."""
    if parsed.kind not in KINDS or not parsed.path:
        return None
    try:
        folder = getattr(_load(parsed), "folder", None)
        return Path(folder(parsed.path)) if folder else None
    except ConfigError:
        return None


def parse_params(
    text: str,
    rest: str,
    example: str | None = None,
    kind: str = "agent",
    allowed: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """``key=value,...`` (``rest``, the parameters of spec ``text``) as a dict.

    Args:
        text: the whole spec, quoted in the messages.
        rest: the ``key=value`` items, comma-separated.
        example: the kind or class a malformed item's hint names; None: no hint.
        kind: what the messages call the spec (``"agent"``, ``"search"``).
        allowed: the parameters the kind takes; None: any.

    Raises:
        ConfigError: a malformed, unknown or repeated item, named.
    """
    where = f"{kind} spec {text!r}:"
    params: dict[str, Any] = {}
    for item in rest.split(",") if rest.strip() else []:
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq or not key.isidentifier():
            bad = f"{item.strip()!r} is not key=value"
            if example:
                bad = f"parameter {bad} (e.g. {example}:budget=200)"
            raise ConfigError(f"{where} {bad}")
        if allowed is not None and key not in allowed:
            raise ConfigError(
                f"{where} unknown parameter {key!r}; parameters: {', '.join(allowed)}"
            )
        if key in params:
            raise ConfigError(f"{where} parameter {key!r} given twice")
        params[key] = spec_scalar(raw.strip())
    return params


def _is_class_target(head: str, rest: str) -> bool:
    """Whether ``head:rest`` is ``file.py:...`` or ``module:Class...`` (not ``kind:k=v``)."""
    if head.lower().endswith(".py"):
        return True
    cls_name = rest.partition(":")[0].strip()
    return all(part.isidentifier() for part in (*head.split("."), *cls_name.split(".")))


def _parse_class_spec(text: str, head: str, rest: str) -> AgentSpec:
    """``module:Class[:k=v,...]`` or ``file.py:Class[:k=v,...]``."""
    cls_name, _, params = rest.partition(":")
    cls_name = cls_name.strip()
    if not all(part.isidentifier() for part in cls_name.split(".")):
        raise ConfigError(
            f"agent spec {text!r}: {cls_name!r} is not a class name; "
            "write module:Class or path/to/file.py:Class"
        )
    return AgentSpec(
        text, CLASS_KIND, parse_params(text, params, cls_name), target=f"{head}:{cls_name}"
    )


def spec_scalar(raw: str) -> Any:
    """A spec parameter's value: a YAML scalar (int, float, bool, str), else the raw text."""
    try:
        value = load_yaml_text(raw, "agent spec parameter")
    except ConfigError:
        return raw
    return value if isinstance(value, int | float | bool | str) else raw


def make_agent(spec: str, game: str, seed: int | None = None) -> Agent:
    """Build the agent ``spec`` (module doc) for ``game`` (``"scum"``), its randomness seeded.

    Raises:
        ConfigError: unknown kind, a bad parameter or value, or a kind this install lacks.
        CheckpointError: a ``ppo:`` checkpoint that does not exist or cannot be loaded.
    """
    parsed = parse_spec(spec)
    if parsed.kind == CLASS_KIND:
        return _build(parsed, load_class(parsed), game, seed)
    if KINDS[parsed.kind].argument != "params":
        return _make_from_checkpoint(parsed, game, seed)
    if parsed.kind == "random":
        if parsed.params:
            raise ConfigError(
                f"agent spec {parsed.text!r}: random takes no parameters, "
                f"got {', '.join(parsed.params)}"
            )
        return RandomAgent(seed)
    return _build(parsed, _load(parsed), game, seed)


def _build(parsed: AgentSpec, cls: Any, game: str, seed: int | None) -> Agent:
    """``cls(game, seed=..., **params)`` (game and seed only where accepted), checked.

    Raises:
        ConfigError: a parameter the constructor does not take, a value it refuses, or an
            object that is not an `Agent`.
    """
    try:
        signature: Any = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        signature = None
    accepted = dict(signature or {})
    takes_all = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values())
    if signature is not None and not takes_all:
        kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        named = [n for n, p in accepted.items() if n not in ("game", "seed") and p.kind in kinds]
        for key in parsed.params:
            if key not in named:
                raise ConfigError(
                    f"agent spec {parsed.text!r}: unknown parameter {key!r} for "
                    f"{parsed.target or parsed.kind}; parameters: {', '.join(named) or 'none'}"
                )
    kwargs = dict(parsed.params)
    if "seed" in accepted or takes_all:
        kwargs["seed"] = seed
    try:
        agent = cls(game, **kwargs) if "game" in accepted else cls(**kwargs)
    except CardsuiteError:
        raise
    except (TypeError, ValueError) as err:
        raise ConfigError(f"agent spec {parsed.text!r}: {err}") from None
    if not isinstance(agent, Agent):
        missing = [a for a in ("name", "reset", "act") if not hasattr(agent, a)]
        raise ConfigError(
            f"agent spec {parsed.text!r}: {type(agent).__name__} is not an agent; "
            f"it lacks {', '.join(missing)} (see cardsuite.agents.base.Agent)"
        )
    return agent


def load_class(parsed: AgentSpec) -> Any:
    """The class of a ``module:Class`` or ``file.py:Class`` spec (imports the user's code)."""
    return import_class(parsed.text, parsed.target or "")


def _load(parsed: AgentSpec, missing: str = "") -> Any:
    """The class ``parsed``'s kind names; ConfigError where this install lacks it (``missing``
    starts the message)."""
    module_name, attr = KINDS[parsed.kind].target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if missing:
            raise ConfigError(f"{missing}; module {err.name!r} not found") from None
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


def _make_from_checkpoint(parsed: AgentSpec, game: str, seed: int | None) -> Agent:
    kind = KINDS[parsed.kind]
    path: str | Path = parsed.path or ""
    if kind.argument == "path" and not Path(path).exists():
        raise CheckpointError(f"agent spec {parsed.text!r}: checkpoint {str(path)!r} not found")
    extra = kind.extra or parsed.kind
    needs_extra = (
        f"agent spec {parsed.text!r}: {parsed.kind} agents need the {extra} extra "
        f"(pip install cardsuite[{extra}])"
    )
    cls = _load(parsed, needs_extra)
    try:
        source = Path(path) if kind.argument == "path" else path
        return cls.load(source, game, seed)  # type: ignore[no-any-return]
    except CardsuiteError:
        raise
    except ModuleNotFoundError as err:  # torch, stable-baselines3... imported by load()
        raise ConfigError(f"{needs_extra}; module {err.name!r} not found") from None
    except (OSError, ValueError, KeyError, RuntimeError) as err:
        raise CheckpointError(
            f"agent spec {parsed.text!r}: cannot load checkpoint {str(path)!r}: {err}"
        ) from None


def display_names(specs: list[str]) -> list[str]:
    """Distinct names for a list of specs: repeats become ``random#1``, ``random#2``."""
    texts = [s.strip() for s in specs]
    return [
        f"{t}#{texts[: i + 1].count(t)}" if texts.count(t) > 1 else t for i, t in enumerate(texts)
    ]
