"""OpenSpiel interop: Scum, Scum Party and Scandal as OpenSpiel Python games.

``pip install 'cardsuite[openspiel]'``; `register` imports pyspiel and registers
``cardsuite_scum``, ``cardsuite_scum_party`` and ``cardsuite_scandal``; `load_game` loads
one with checked keyword options. Design and limits: ``docs/openspiel.md``.
"""

from __future__ import annotations

import importlib
from typing import Any

from cardsuite.agents.parts import PARTS
from cardsuite.errors import ConfigError
from cardsuite.games import games


def register() -> list[str]:
    """Import pyspiel and register every game whose record names an adapter; their short names.

    Raises:
        ConfigError: pyspiel (the ``open-spiel`` package) is not installed.
    """
    try:
        importlib.import_module("pyspiel")
    except ImportError:
        raise ConfigError(
            "OpenSpiel is not installed: pip install 'cardsuite[openspiel]' (open-spiel==2.0.2)"
        ) from None
    return list(_registered())


def _registered() -> dict[str, Any]:
    """Short name -> adapter module (its ``openspiel`` part) of every installed game, each
    imported (and so registered)."""
    modules = [importlib.import_module(PARTS[g].openspiel) for g in games() if g in PARTS]
    return {module.GAME_TYPE.short_name: module for module in modules}


def load_game(name: str, **params: Any) -> Any:
    """``pyspiel.load_game(name, params)`` after `register`; ``name`` may omit ``cardsuite_``."""
    register()
    import pyspiel

    adapters = _registered()
    key = name if name.startswith("cardsuite_") else f"cardsuite_{name}"
    if key not in adapters:
        raise ConfigError(f"unknown OpenSpiel game {name!r}; games: {', '.join(adapters)}")
    spec: dict[str, Any] = adapters[key].PARAMETERS
    for field, value in params.items():
        if field not in spec:
            raise ConfigError(
                f"{key}: unknown parameter {field!r}; parameters: {', '.join(sorted(spec))}"
            )
        kind = type(spec[field])
        ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = params[field] = float(value)
            ok = True
        if not ok:
            raise ConfigError(f"{key}: parameter {field} must be {kind.__name__}, got {value!r}")
    return pyspiel.load_game(key, params)
