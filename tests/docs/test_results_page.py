"""The results pages show what the tree holds today (issue 56: docs a reader can scan).

docs/results.md gives every shipped agent one headline row that names its
model card, and no page tells a reader to run a benchmark script that has
left ``benchmarks/`` (the archive cites those by the commit that holds them).
"""

from __future__ import annotations

import re
from pathlib import Path

from cardsuite.agents.learned.pretrained import CATALOGUE

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_every_shipped_agent_has_one_headline_row_naming_its_card() -> None:
    section = _section((ROOT / "docs" / "results.md").read_text(encoding="utf-8"), "Shipped agents")
    rows = re.findall(r"^\| `pretrained:(\w+)` \|(.*)\|$", section, re.M)
    assert sorted(name for name, _ in rows) == sorted(CATALOGUE)
    for name, cells in rows:
        assert f"`agents/learned/models/{name}/README.md`" in cells, name
        assert len(re.findall(r"\*\*[\d.]+% ± [\d.]+\*\*", cells)) == 1, f"{name}: one headline"


def test_benchmark_commands_in_the_docs_name_scripts_that_exist() -> None:
    missing = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for name in re.findall(r"python (?:-m benchmarks\.(\w+)|benchmarks/(\w+)\.py)", text):
            script = ROOT / "benchmarks" / f"{name[0] or name[1]}.py"
            if not script.is_file():
                missing.append(f"{page.relative_to(ROOT)}: {script.relative_to(ROOT)}")
    assert missing == []
