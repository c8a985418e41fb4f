"""Every generated table in docs/ matches the code (issue 13: one docs command)."""

from __future__ import annotations

from pathlib import Path

from cardsuite.docs import WRITE_COMMAND, blocks, stale_tables

ROOT = Path(__file__).resolve().parents[2]


def test_every_game_declares_its_generated_tables() -> None:
    pages = {b.page.name for b in blocks(ROOT)}
    assert pages == {"scum.md", "scum_party.md", "scandal.md", "training.md", "rllib.md",
                     "results.md", "agents.md", "README.md"}  # fmt: skip
    assert len(blocks(ROOT)) >= 14


def test_the_training_reference_tables_are_generated_from_the_config_classes() -> None:
    """docs/training.md and docs/rllib.md hold every trainer's config table (issue 20)."""
    names = {(b.page.name, b.name) for b in blocks(ROOT)}
    assert {("training.md", "ppo-config"), ("training.md", "dmc-config"),
            ("training.md", "maskable-ppo-config"), ("rllib.md", "rllib-config")} <= names  # fmt: skip
    table = next(b for b in blocks(ROOT) if b.name == "ppo-config").generate()
    assert "| `learning_rate` | `float` | `0.0003` | Adam step size (> 0) |" in table


def test_no_generated_table_is_stale() -> None:
    stale = stale_tables(ROOT)
    assert stale == [], f"stale generated tables {stale}: run {WRITE_COMMAND}"


def test_the_docs_command_rewrites_a_stale_table(tmp_path: Path) -> None:
    from cardsuite.docs import main

    for b in blocks(ROOT):
        target = tmp_path / b.page.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            target.write_text(b.page.read_text(encoding="utf-8"), encoding="utf-8")
    page = tmp_path / "docs" / "scum.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("| `carousel` |", "| `carousel_old` |"), encoding="utf-8")
    assert main(["--check", "--root", str(tmp_path)]) == 1
    assert main(["--write", "--root", str(tmp_path)]) == 0
    assert page.read_text(encoding="utf-8") == text
    assert main(["--check", "--root", str(tmp_path)]) == 0
