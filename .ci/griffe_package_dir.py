"""A griffe extension (the docs site): read `agents/`, `train/` as `cardsuite.agents`, `cardsuite.train`.

setuptools installs them under those names (`[tool.setuptools] package-dir` in
pyproject.toml); griffe, which reads the tree, does not know the mapping. When
griffe loads the `cardsuite` package, this extension loads each mapped folder
and attaches it as a submodule, so `::: cardsuite.agents.registry` and every
cross-reference resolve.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import griffe

ROOT = Path(__file__).resolve().parents[1]


class PackageDir(griffe.Extension):
    """Attach pyproject's `package-dir` folders to the package griffe reads."""

    def on_module_members(self, *, mod: griffe.Module, **kwargs: Any) -> None:
        """When a package of the mapping is read, attach its mapped subpackages."""
        text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
        mapping: dict[str, str] = tomllib.loads(text)["tool"]["setuptools"]["package-dir"]
        for name, folder in mapping.items():
            parent, _, child = name.rpartition(".")
            if parent != mod.path or child in mod.members:
                continue
            loader = griffe.GriffeLoader(
                extensions=griffe.load_extensions(self), search_paths=[ROOT / folder]
            )
            module = loader.load(ROOT / folder, try_relative_path=False)
            assert isinstance(module, griffe.Module)
            module.name = child
            mod.set_member(child, module)
