"""The full fuzz (10^6 steps per family, minutes) runs only when asked for.

Selected by ``-m slow`` (or any marker expression naming ``slow``) or with
``CARDSUITE_SLOW=1``; otherwise the slow tests here are skipped, so the
default run, and CI, play the bounded version only.
"""

from __future__ import annotations

import os

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip this folder's slow tests unless they were asked for."""
    if "slow" in (config.getoption("markexpr") or "") or os.environ.get("CARDSUITE_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow or CARDSUITE_SLOW=1")
    for item in items:
        if "slow" in item.keywords and "tests/fuzz" in str(item.fspath):
            item.add_marker(skip)
