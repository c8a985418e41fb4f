"""The quickstart notebook is the tutorial page, cell for cell (issue 23: one source).

``notebooks/build.py`` turns ``docs/tutorial.md`` into
``notebooks/quickstart.ipynb``; the notebook in the repository must be what
it builds now, and a valid nbformat 4 notebook. The notebook itself is run by
``tests/train/test_notebook.py``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("notebook_build", ROOT / "notebooks" / "build.py")
assert spec is not None and spec.loader is not None
build = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build)


def test_the_notebook_is_built_from_the_tutorial() -> None:
    assert build.main(["--check"]) == 0, "run: python notebooks/build.py"


def test_the_notebook_is_valid_and_keeps_every_code_block() -> None:
    nbformat = pytest.importorskip("nbformat")
    book = nbformat.read(ROOT / "notebooks" / "quickstart.ipynb", as_version=4)
    nbformat.validate(book)
    code = ["".join(c.source) for c in book.cells if c.cell_type == "code"]
    tutorial = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    assert len(code) == tutorial.count("```python")
    assert all(block in tutorial for block in code)
    assert not any("docs-test" in "".join(c.source) for c in book.cells)


def test_the_builder_splits_prose_and_code() -> None:
    page = "# T\n\nintro\n\n<!-- docs-test: needs train -->\n```python\nx = 1\ny = 2\n```\n\nend\n"
    cells = build.cells(page)
    assert [c["cell_type"] for c in cells] == ["markdown", "code", "markdown"]
    assert cells[1]["source"] == ["x = 1\n", "y = 2"]
    assert cells[2]["source"] == ["end"]
    assert cells[0]["source"][:3] == ["# T\n", "\n", "intro"]


def test_the_site_publishes_the_notebook_the_tutorial_links_to() -> None:
    pytest.importorskip("mkdocs")
    from mkdocs.config import load_config
    from mkdocs.structure.files import Files

    config = load_config(str(ROOT / "mkdocs.yml"))
    assert "notebooks/mkdocs_hook.py" in [
        Path(h).as_posix()[-len("notebooks/mkdocs_hook.py") :] for h in config["hooks"]
    ]
    hook_spec = importlib.util.spec_from_file_location(
        "hook", ROOT / "notebooks" / "mkdocs_hook.py"
    )
    assert hook_spec is not None and hook_spec.loader is not None
    hook = importlib.util.module_from_spec(hook_spec)
    hook_spec.loader.exec_module(hook)
    config.plugins._current_plugin = None  # what a build sets before it runs the hooks
    files = hook.on_files(Files([]), config)
    published = files.get_file_from_path("quickstart.ipynb")
    assert (
        published is not None
        and Path(published.abs_src_path) == ROOT / "notebooks" / "quickstart.ipynb"
    )
    assert "](quickstart.ipynb)" in (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
