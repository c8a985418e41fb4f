"""Build ``notebooks/quickstart.ipynb`` from the tutorial page ``docs/tutorial.md``.

The tutorial is the one source: its prose becomes Markdown cells and its
```` ```python ```` blocks code cells, in order (``bash`` blocks stay in the
Markdown, the ``<!-- docs-test ... -->`` marks are dropped, links to other pages
point into ``docs/``). So the notebook
published with the repository and the page on the docs site cannot drift:
``tests/docs/test_tutorial_notebook.py`` compares them.

    python notebooks/build.py           # rewrite the notebook
    python notebooks/build.py --check   # exit 1 if the notebook is stale
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "tutorial.md"
NOTEBOOK = ROOT / "notebooks" / "quickstart.ipynb"

FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```[ \t]*\n?", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([\w/-]+\.md(?:#[\w-]*)?)\)")
MARK = re.compile(r"^<!--\s*docs-test:[^>]*-->\s*\n", re.MULTILINE)
HEADER = (
    "*Generated from the tutorial page `docs/tutorial.md` by `python notebooks/build.py`;"
    " edit the page, not this notebook.*"
)


def _lines(text: str) -> list[str]:
    rows = text.strip("\n").split("\n")
    return [row + "\n" for row in rows[:-1]] + [rows[-1]]


def cells(markdown: str) -> list[dict[str, object]]:
    """The notebook cells of a tutorial page, in order."""
    found: list[dict[str, object]] = []

    def prose(text: str) -> None:
        text = MARK.sub("", text).strip("\n")
        text = LINK.sub(r"](../docs/\1)", text)  # page links, from notebooks/
        if text:
            found.append({"cell_type": "markdown", "metadata": {}, "source": _lines(text)})

    pos = 0
    for match in FENCE.finditer(markdown):
        prose(markdown[pos : match.start()])
        found.append(
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": _lines(match.group(1)),
            }
        )
        pos = match.end()
    prose(markdown[pos:])
    first = found[0]["source"]
    assert isinstance(first, list)
    first.extend(["\n", "\n", HEADER])
    return found


def notebook(markdown: str) -> dict[str, object]:
    """The whole notebook (nbformat 4) of a tutorial page."""
    return {
        "cells": cells(markdown),
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def render(markdown: str) -> str:
    """The notebook file's text, stable (cell ids are their positions)."""
    book = notebook(markdown)
    for index, cell in enumerate(book["cells"]):  # type: ignore[arg-type]
        cell["id"] = f"cell-{index:02d}"
    return json.dumps(book, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the notebook, or with ``--check`` report whether it is stale."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the notebook is stale")
    args = parser.parse_args(argv)
    text = render(TUTORIAL.read_text(encoding="utf-8"))
    if args.check:
        if NOTEBOOK.read_text(encoding="utf-8") != text:
            print(f"{NOTEBOOK.relative_to(ROOT)} is stale: run python notebooks/build.py")
            return 1
        return 0
    NOTEBOOK.write_text(text, encoding="utf-8")
    print(f"wrote {NOTEBOOK.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
