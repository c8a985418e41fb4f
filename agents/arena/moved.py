"""Names that moved out of an arena module keep resolving there, with a warning naming the new home."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any


def moved_name(module: str, name: str, *homes: ModuleType) -> Any:
    """For a module's ``__getattr__`` (PEP 562): public ``name`` from the first of ``homes`` with it."""
    for home in homes:
        if not name.startswith("_") and hasattr(home, name):
            found = getattr(home, name)
            where = getattr(found, "__module__", None)  # where a class or function is defined
            if not (isinstance(where, str) and where.startswith("cardsuite.agents.arena.")):
                where = home.__name__
            warnings.warn(
                f"{module}.{name} moved to {where}.{name}; import it from there "
                "(the old place will be removed in 0.4)",
                DeprecationWarning,
                stacklevel=3,
            )
            return found
    raise AttributeError(f"module {module!r} has no attribute {name!r}")
