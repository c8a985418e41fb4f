"""docs/scum_party.md holds exactly the tables the code generates (no drift)."""

from __future__ import annotations

from pathlib import Path

from scum_env import scum_party_v0
from scum_env.party.config import PartyConfig
from scum_env.party.encoding import observation_spec, state_spec

DOC = Path(__file__).resolve().parents[2] / "docs" / "scum_party.md"


def test_docs_hold_the_generated_tables() -> None:
    text = DOC.read_text(encoding="utf-8")
    config = PartyConfig()
    for table in (
        PartyConfig.doc_table(),
        scum_party_v0._action_table(config),
        observation_spec(config).table(),
        state_spec(config).table(),
    ):
        assert table in text
