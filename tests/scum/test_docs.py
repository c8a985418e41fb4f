"""docs/scum.md holds exactly the tables generated from the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scum_env.config import ScumConfig
from scum_env.encoding import observation_spec
from scum_env.rules import scum_rules
from scum_env.scum_v0 import _action_table

DOC = Path(__file__).resolve().parents[2] / "docs" / "scum.md"


def block(name: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    found = re.findall(rf"<!-- {name} -->\n(.*?)\n<!-- /{name} -->", text, flags=re.S)
    assert len(found) == 1, f"docs/scum.md needs exactly one {name} block"
    return found[0]


@pytest.mark.parametrize(
    ("name", "generate"),
    [
        ("config-table", ScumConfig.doc_table),
        ("action-table", _action_table),
        ("observation-table", lambda: observation_spec(scum_rules(ScumConfig())).table()),
    ],
)
def test_docs_tables_match_the_code(name: str, generate) -> None:
    assert block(name) == generate(), f"regenerate the {name} in docs/scum.md"


def test_docs_cover_every_ruling_and_option() -> None:
    text = DOC.read_text(encoding="utf-8")
    for ruling in range(1, 10):
        assert re.search(rf"^## J{ruling} ", text, flags=re.M), f"J{ruling} section missing"
    for option in ScumConfig.field_names():
        assert f"`{option}`" in text
    rules = scum_rules(ScumConfig())
    spec = observation_spec(rules)
    assert f"default rules: {rules.num_actions} actions" in text
    assert f"default rules: {spec.size} floats" in text
