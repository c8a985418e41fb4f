"""Run mypy over the packages as setuptools installs them.

`agents/`, `train/` and `configs/` sit at the top of the repository and are
installed as `cardsuite.agents`, `cardsuite.train` and `cardsuite.configs` by
pyproject's `[tool.setuptools] package-dir` (no links). mypy has no such
mapping, so this script reads the package list and the mapping from
pyproject.toml and hands mypy every source file under its installed module
name: each file is checked once, and `import cardsuite.agents.x` resolves to
`agents/x.py`. The `[tool.mypy]` settings of pyproject.toml apply as usual.

    .venv/bin/python .ci/mypy_packages.py            # everything
    .venv/bin/python .ci/mypy_packages.py cardsuite  # only packages under these names
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

from mypy import build
from mypy.main import process_options
from mypy.modulefinder import BuildSource

ROOT = Path(__file__).resolve().parents[1]


def _folder(package: str, package_dir: dict[str, str]) -> Path:
    """The folder setuptools installs `package` from (the longest mapped prefix wins)."""
    parts = package.split(".")
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        if prefix in package_dir:
            return ROOT / package_dir[prefix] / Path(*parts[cut:])
    return ROOT / package_dir.get("", ".") / Path(*parts)


def sources(only: list[str]) -> Iterator[BuildSource]:
    """Every module file of the listed packages, named as installed."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]
    for package in setuptools["packages"]:
        if only and not any(package == o or package.startswith(o + ".") for o in only):
            continue
        for path in sorted(_folder(package, setuptools["package-dir"]).glob("*.py")):
            module = package if path.stem == "__init__" else f"{package}.{path.stem}"
            yield BuildSource(str(path.relative_to(ROOT)), module, None)


def main(argv: list[str]) -> int:
    """Type-check; the exit status is mypy's (0 clean, 1 errors)."""
    _, options = process_options(["cardsuite"])  # reads [tool.mypy] from pyproject.toml
    found = list(sources(argv))
    try:
        result = build.build(found, options)
    except build.CompileError as err:
        print("\n".join(err.messages))
        return 2
    print("\n".join(result.errors))
    files = len(found)
    if result.errors:
        print(f"mypy: errors in {files} source files", file=sys.stderr)
        return 1
    print(f"Success: no issues found in {files} source files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
