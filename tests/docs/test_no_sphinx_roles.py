"""No Sphinx role is left in the package sources (issue 23).

mkdocstrings renders Markdown: a Sphinx role (``:class:``, ``:func:``,
``:meth:``... before a name in backticks) would show as literal text in the
API reference and in every ``--help`` text built from a docstring. Use a
cross-reference ``[X][full.path.X]`` or plain backticks instead.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("cardsuite", "agents", "train", "scum_env", "scandal_env")
ROLE = re.compile(r":(?:py:)?(?:class|func|meth|data|mod|attr|exc|obj|const):`")


def test_no_sphinx_role_in_the_sources() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for folder in FOLDERS
        for path in sorted((ROOT / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ROLE.search(line)
    ]
    assert found == [], "Sphinx roles (use [X][path.X] or `X`):\n" + "\n".join(found[:50])
