"""Every Python block of README.md and docs/*.md runs (issue 23: docs that cannot drift).

A small Markdown runner on the standard library: the fenced ```python blocks
of one page run in order in one namespace (a later block may use what an
earlier one made, as a reader would), in a fresh temporary folder, with
matplotlib's non-interactive backend and ``CARDSUITE_QUICK=1`` (an example
that trains reads it and shrinks its budget, so the test trains a few steps). A page's blocks are one test, and a
failure names the page and the line of the block.

A block may be marked by an HTML comment on the line just above its fence
(invisible on the site and on GitHub):

* ``<!-- docs-test: needs EXTRA -->``: skipped, naming the extra, when the
  extra's modules are not installed (``train``, ``rllib``, ``openspiel``, ``web``);
* ``<!-- docs-test: skip REASON -->``: deliberately not runnable (a sketch
  that needs a file the reader makes, a cluster...). Keep these rare; the
  reason is required and shown.

A fence titled ``sketch`` (```` ```python title="sketch" ````) is skipped as well;
the site shows the title, so the reader sees it is not a complete program.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: extra -> the modules it provides (a block that needs the extra skips without them)
EXTRAS = {
    "train": ("torch", "stable_baselines3", "sb3_contrib"),
    "rllib": ("ray", "torch"),
    "openspiel": ("pyspiel",),
    "web": ("starlette", "uvicorn"),
    "pandas": ("pandas",),
}

#: pages whose blocks also run as a notebook (built from the page by notebooks/build.py):
#: where the modules the notebook test needs are installed, tests/train/test_notebook.py
#: runs them there, so they are not run twice; elsewhere the blocks that need no extra
#: run here.
NOTEBOOK_PAGES = {
    "docs/tutorial.md": (
        "torch",
        "stable_baselines3",
        "sb3_contrib",
        "nbclient",
        "nbformat",
        "ipykernel",
    )
}

FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```(?:python|py)(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
MARK = re.compile(r"<!--\s*docs-test:\s*(?P<kind>needs|skip)\s+(?P<arg>[^>]*?)\s*-->\s*$")


@dataclass(frozen=True)
class Example:
    """One Python block of a page."""

    page: Path
    line: int
    code: str
    skip: str | None  # why it does not run here, or None


def examples(page: Path) -> list[Example]:
    """The Python blocks of ``page`` with their marks resolved."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        indent = match.group("indent")
        code = "\n".join(row.removeprefix(indent) for row in match.group("body").splitlines())
        skip = None
        mark = MARK.search(before)
        if 'title="sketch"' in match.group("info"):
            skip = "a sketch (titled so on the page)"
        elif mark and mark.group("kind") == "skip":
            skip = mark.group("arg")
            assert skip, f"{page.name}:{line}: a docs-test skip needs a reason"
        elif mark and mark.group("kind") == "needs":
            extra = mark.group("arg")
            assert extra in EXTRAS, f"{page.name}:{line}: unknown extra {extra!r}"
            missing = [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]
            if missing:
                skip = f"needs the {extra} extra ({missing[0]} is not installed)"
        found.append(Example(page, line, code, skip))
    return found


def _id(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


PAGES_WITH_CODE = [p for p in PAGES if examples(p)]


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=_id)
def test_every_python_block_of_the_page_runs(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs = NOTEBOOK_PAGES.get(_id(page))
    if needs and all(importlib.util.find_spec(m) is not None for m in needs):
        pytest.skip("runs as notebooks/quickstart.ipynb in tests/train/test_notebook.py")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # Examples that train shrink their budgets under this variable (as the notebook does).
    monkeypatch.setenv("CARDSUITE_QUICK", "1")
    namespace: dict[str, object] = {"__name__": "__docs_example__"}
    skipped = []
    for ex in examples(page):
        if ex.skip is not None:
            skipped.append(f"line {ex.line}: {ex.skip}")
            continue
        code = compile(ex.code, f"{_id(page)}:{ex.line}", "exec")
        try:
            exec(code, namespace)
        except Exception as err:  # name the page and block, keep the traceback
            raise AssertionError(
                f"{_id(page)}, the block at line {ex.line} failed: {err!r}"
            ) from err
    if skipped and len(skipped) == len(examples(page)):
        pytest.skip("; ".join(skipped))


def test_the_runner_reads_marks_and_fences(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n```python\nx = 1\n```\n\n<!-- docs-test: skip needs your own file -->\n"
        '```python\nopen("mine.txt")\n```\n\n```python title="sketch"\n...\n```\n\n'
        "* item:\n\n  ```python\n  y = 2\n  ```\n\n```bash\nls\n```\n",
        encoding="utf-8",
    )
    found = examples(page)
    assert [(e.line, e.code, e.skip) for e in found] == [
        (3, "x = 1", None),
        (8, 'open("mine.txt")', "needs your own file"),
        (12, "...", "a sketch (titled so on the page)"),
        (18, "y = 2", None),
    ]


def test_every_page_with_python_has_a_test() -> None:
    """README.md and the docs pages with Python blocks are all collected (none is lost)."""
    names = {_id(p) for p in PAGES_WITH_CODE}
    assert {"README.md", "docs/tutorial.md", "docs/agents.md", "docs/batched.md"} <= names
