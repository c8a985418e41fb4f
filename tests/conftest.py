"""Test-suite plumbing: optional extras, and the long checks that run only when asked for.

Tests marked ``slow`` (training smoke runs, the long differential runs, RLlib's
cluster and fault runs: minutes in all) are skipped unless the marker
expression names them (``-m slow``, which CI runs as a second job) or
``CARDSUITE_SLOW=1`` is set; tests marked ``exhaustive`` (the 10^6-step fuzz,
tens of minutes) only under ``-m exhaustive``. So the README's test command
stays within a few minutes on 2 cores.

The core install (``pip install cardsuite``) has no torch, stable-baselines3,
ray or web stack. Test modules that need one of those extras are listed in
`EXTRAS` by path; on a core-only install each such module is collected
as a single skipped item that names the extra to install, instead of failing
at import time. Inside other modules, use ``pytest.importorskip``.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

#: Path prefix (relative to tests/) -> (extra, modules it provides). The first
#: matching prefix wins, so list files before their folders.
EXTRAS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("train/test_rllib", "rllib", ("ray", "torch")),
    ("rllib/", "rllib", ("ray", "torch")),
    ("train/", "train", ("torch", "stable_baselines3", "sb3_contrib")),
    ("web/", "web", ("starlette", "uvicorn")),
)


def _missing_extra(path: Path) -> tuple[str, str] | None:
    """(extra, missing module) when the test module at ``path`` needs an absent extra."""
    try:
        rel = path.resolve().relative_to(TESTS).as_posix()
    except ValueError:
        return None
    for prefix, extra, modules in EXTRAS:
        if rel.startswith(prefix):
            for module in modules:
                if importlib.util.find_spec(module) is None:
                    return extra, module
            return None
    return None


class _NeedsExtra(pytest.File):
    """A test module collected as one skipped item, because its extra is missing."""

    reason = ""

    def collect(self) -> list[pytest.Item]:
        """One placeholder item that skips with the reason."""
        return [_SkippedModule.from_parent(self, name=self.path.name)]


class _SkippedModule(pytest.Item):
    def runtest(self) -> None:
        assert isinstance(self.parent, _NeedsExtra)
        pytest.skip(self.parent.reason)


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.File | None:
    """Replace a module whose extra is missing by a skipped placeholder."""
    missing = _missing_extra(module_path)
    if missing is None:
        return None
    extra, module = missing
    node = _NeedsExtra.from_parent(parent, path=module_path)
    node.reason = (
        f"needs the {extra} extra ({module} is not installed): pip install 'cardsuite[{extra}]'"
    )
    return node


@pytest.fixture(autouse=True, scope="session")
def _sb3_logdir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Point Stable-Baselines3's default log folder into pytest's temporary tree.

    A model that learns without a logger (``MaskablePPO(...).learn(...)``, as
    users write it and as some tests do) makes an ``SB3-<date>`` folder under the
    system temporary directory unless ``SB3_LOGDIR`` names one; left unset, every
    test run would leave such folders behind in ``/tmp``.
    """
    if "SB3_LOGDIR" not in os.environ:
        os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip ``slow`` and ``exhaustive`` tests unless they were asked for (module docstring)."""
    asked = config.getoption("markexpr") or ""
    run = {
        "slow": "slow" in asked or os.environ.get("CARDSUITE_SLOW") == "1",
        "exhaustive": "exhaustive" in asked,
    }
    how = {"slow": "-m slow or CARDSUITE_SLOW=1 (CI runs them)", "exhaustive": "-m exhaustive"}
    for item in items:
        for marker, wanted in run.items():
            if marker in item.keywords and not wanted:
                item.add_marker(pytest.mark.skip(reason=f"{marker}: run with {how[marker]}"))
