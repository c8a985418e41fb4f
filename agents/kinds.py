"""What an agent kind is (`AgentKind`) and `import_class`: apart from the registry, so that a
layer registering kinds does not re-enter it while it loads its plug-ins.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardsuite.errors import ConfigError


@dataclass(frozen=True)
class AgentKind:
    """One kind of agent the registry can build.

    Attributes:
        name: the spec name (``"ismcts"``); target: ``"module:Class"``, imported on first use;
            doc: one line for help texts.
        argument: what follows ``name:``: ``"params"`` (``key=value`` pairs for
            ``Class(game, seed=..., **params)``), ``"path"`` or ``"name"`` (for
            ``Class.load(path_or_name, game, seed)``).
        extra: the ``pip install cardsuite[EXTRA]`` that provides the kind, if any.
        operator_only: the spec names a file, module or command: a server offers it only
            when its operator listed it (``serve --agents``).
        wraps: ``"module:function"`` splitting the text after ``name:`` into the wrapped
            agent's spec and this kind's parameters.
        leaderboard: ``"module:function"``: ``function(game, shipped)``, the specs of this
            kind ``cardsuite leaderboard`` seats by default.
    """

    name: str
    target: str
    doc: str
    argument: str = "params"
    extra: str | None = None
    operator_only: bool = False
    wraps: str | None = None
    leaderboard: str | None = None


def import_class(text: str, target: str) -> Any:
    """The class ``target`` (``module:Class`` or ``file.py:Class``) of the spec ``text``: imports
    the user's code (a file once per process); ConfigError names what is missing or fails."""
    head, _, cls_name = target.rpartition(":")
    if head.lower().endswith(".py"):
        module = _import_file(text, Path(head))
    else:
        try:
            module = importlib.import_module(head)
        except ModuleNotFoundError as err:
            raise ConfigError(
                f"agent spec {text!r}: module {err.name!r} not found "
                "(is it installed, or on PYTHONPATH?)"
            ) from None
    obj: Any = module
    for part in cls_name.split("."):
        if not hasattr(obj, part):
            raise ConfigError(f"agent spec {text!r}: {head} has no {cls_name!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ConfigError(f"agent spec {text!r}: {cls_name!r} is not a class")
    return obj


def _import_file(text: str, path: Path) -> Any:
    """Execute the Python file ``path`` as a module (once per process)."""
    if not path.is_file():
        raise ConfigError(f"agent spec {text!r}: file {str(path)!r} not found")
    resolved = path.resolve()
    name = "cardsuite_user_agent_" + hashlib.sha256(str(resolved).encode()).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise ConfigError(f"agent spec {text!r}: {str(path)!r} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # the user's own code failed to import
        del sys.modules[name]
        raise ConfigError(
            f"agent spec {text!r}: importing {str(path)!r} failed: {type(err).__name__}: {err}"
        ) from None
    return module
