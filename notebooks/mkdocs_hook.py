"""mkdocs hook: publish ``notebooks/quickstart.ipynb`` on the docs site.

The notebook is built from the tutorial page (``notebooks/build.py``) and
lives once, in ``notebooks/``; this hook adds it to the site's files as
``quickstart.ipynb``, so the tutorial's download link resolves under
``mkdocs build --strict`` and no copy is tracked in ``docs/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

NOTEBOOK = Path(__file__).resolve().parent / "quickstart.ipynb"


def on_files(files: Files, config: Any) -> Files:
    """Add the quickstart notebook to the site, beside the tutorial page."""
    files.append(File.generated(config, "quickstart.ipynb", abs_src_path=str(NOTEBOOK)))
    return files
