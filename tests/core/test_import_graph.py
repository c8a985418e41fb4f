"""Every import arrow points down: train -> agents -> games -> cardsuite (issue 13).

Read from the source with ``ast`` (imports inside functions count too), so a
cycle hidden behind a lazy import still shows.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: layer -> (its source files, module prefixes it must never import)
FORBIDDEN = {
    "cardsuite core": (
        "cardsuite",
        ("scum_env", "scandal_env", "cardsuite.agents", "cardsuite.train"),
    ),
    "scum_env": ("scum_env", ("scandal_env", "cardsuite.agents", "cardsuite.train")),
    "scandal_env": ("scandal_env", ("scum_env", "cardsuite.agents", "cardsuite.train")),
    "agents": ("agents", ("cardsuite.train",)),
}
#: (file, module prefix) arrows a layer may take against FORBIDDEN: the user-facing
#: facade cardsuite/api.py imports the agents and training inside its functions
#: only (cardsuite.load_agent, tournament, the Gymnasium single-seat env).
ALLOWED = {
    ("cardsuite/api.py", "cardsuite.agents"),
    ("cardsuite/api.py", "cardsuite.train"),
}
OLD_NAMES = ("scum_env.suite", "agents", "train")  # retired in 0.3


def _sources(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def _matches(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_layer_imports_upwards_or_sideways(layer: str) -> None:
    folder, forbidden = FORBIDDEN[layer]
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in _sources(folder)
        for line, name in _imports(path)
        if any(
            _matches(name, prefix) and (path.relative_to(ROOT).as_posix(), prefix) not in ALLOWED
            for prefix in forbidden
        )
    ]
    assert bad == [], f"{layer} must not import {forbidden}:\n" + "\n".join(bad)


def test_nothing_uses_the_deprecated_import_paths() -> None:
    bad = []
    for folder in (
        "cardsuite",
        "scum_env",
        "scandal_env",
        "agents",
        "train",
        "benchmarks",
        "tests",
    ):
        for path in _sources(folder):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("tests/core/"):
                continue
            bad += [
                f"{rel}:{line} imports {name}"
                for line, name in _imports(path)
                if any(_matches(name, old) for old in OLD_NAMES)
            ]
    assert bad == [], "use cardsuite.* instead of the retired 0.1 paths:\n" + "\n".join(bad)
