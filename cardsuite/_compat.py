"""Old import paths that still work for one release, with a DeprecationWarning.

Before 0.2 the shared core lived in ``scum_env.suite`` and the agents and the
trainer were installed as the top-level packages ``agents`` and ``train``.
Those names were shadowed by any ``train.py`` or ``agents/`` of the user's own
(common in RL work), so they are now imported as :mod:`cardsuite.agents` and
:mod:`cardsuite.train`. An old name is redirected to the new module *object*:
``import agents.registry`` returns ``cardsuite.agents.registry`` itself, so no
module is ever loaded twice under two names.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves ``old.x.y`` as the already-importable module ``new.x.y``."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new
        self._real_specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def _target(self, fullname: str) -> str | None:
        if fullname.startswith(self.old + "."):
            return self.new + fullname[len(self.old) :]
        return None

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        """A spec for an old dotted name whose new module exists; None otherwise."""
        real = self._target(fullname)
        if real is None:
            return None
        try:
            real_spec = importlib.util.find_spec(real)
        except ModuleNotFoundError:
            return None
        if real_spec is None:
            return None
        return importlib.util.spec_from_loader(
            fullname, self, is_package=real_spec.submodule_search_locations is not None
        )

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        """Import the new module and hand it out under the old name."""
        real = self._target(spec.name)
        assert real is not None  # find_spec only answers for old names
        module = importlib.import_module(real)
        self._real_specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module is already loaded; restore its own spec."""
        for name, real_spec in list(self._real_specs.items()):
            if real_spec is not None and real_spec.name == module.__name__:
                module.__spec__ = real_spec
                del self._real_specs[name]


def redirect(old: str, new: str) -> ModuleType:
    """Make ``old`` (and every ``old.*``) an alias of ``new``; warn once.

    Called from the package ``__init__`` when it finds itself imported under
    its old name. Returns the new package, which replaces the old one in
    :data:`sys.modules`.
    """
    warnings.warn(
        f"'{old}' is deprecated and will be removed in cardsuite 0.3; import '{new}' instead",
        DeprecationWarning,
        stacklevel=3,
    )
    package = importlib.import_module(new)
    sys.modules[old] = package
    if not any(isinstance(f, _AliasFinder) and f.old == old for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder(old, new))
    return package
