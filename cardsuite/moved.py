"""Old module names that keep importing, with a warning that names the new home.

`alias_modules` maps an old dotted module name to the module at its new home
(the same object, so ``isinstance`` keeps working). A name that left a module
that stays is found by that module's ``__getattr__`` (PEP 562) through
`moved_table` and `moved_name`. Each layer registers its own moves.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module name and loads the module at its new home instead."""

    def __init__(self) -> None:
        self.table: dict[str, str] = {}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        """A spec for ``fullname`` when it is an old name of a moved module."""
        if fullname not in self.table:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        """The module at the new home (imported now), after the warning."""
        new = self.table[spec.name]
        warnings.warn(
            f"{spec.name} moved to {new} in cardsuite 0.3; import it from there "
            "(the old name will be removed in 0.4)",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the new module is already loaded."""


_FINDER = _MovedFinder()


def alias_modules(table: Mapping[str, str]) -> None:
    """Keep each old dotted module name of ``table`` importable as its new one."""
    _FINDER.table.update(table)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)  # first: before the path finder loads a file twice


Moved = ModuleType | str | tuple[ModuleType | str, str]
"""Where a moved name lives now: its new module (same name), or (module, new name); a
module given by its dotted name is imported when the name is first asked for."""


def moved_table(home: ModuleType | str, *names: str) -> dict[str, Moved]:
    """``{name: home}`` for each of the space-separated ``names`` (a module's 0.2 names)."""
    return {name: home for text in names for name in text.split()}


def moved_getattr(module: str, table: Mapping[str, Moved]) -> Callable[[str], Any]:
    """A module's ``__getattr__`` (PEP 562) for the 0.2 names of ``table`` (`moved_name`)."""

    def __getattr__(name: str) -> Any:
        return moved_name(module, name, table)

    return __getattr__


def moved_name(module: str, name: str, table: Mapping[str, Moved]) -> Any:
    """For a module's ``__getattr__``: ``name`` from its new home in ``table``, with a
    `DeprecationWarning` naming it; AttributeError for a name that never was there."""
    entry = table.get(name)
    if entry is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    home, new = entry if isinstance(entry, tuple) else (entry, name)
    if isinstance(home, str):
        home = importlib.import_module(home)
    warnings.warn(
        f"{module}.{name} moved to {home.__name__}.{new}; import it from there "
        "(the old place will be removed in 0.4)",
        DeprecationWarning,
        stacklevel=3,
    )
    return getattr(home, new)
