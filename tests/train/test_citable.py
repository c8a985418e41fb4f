"""The citable results table (`cardsuite.train.tools.citable`): its arithmetic, and that every
row names a preset that loads and commands that name it.

That the page shows the table as generated is the drift test's
(``tests/core/test_docs_generated.py``).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from cardsuite.train.tools.citable import MINUTES_LIMIT, RECORD, Row, SeedRun, table

ROOT = Path(__file__).resolve().parents[2]


def _row(won: tuple[float, ...], target: float = 65.0, minutes: float = 20.0) -> Row:
    runs = tuple(SeedRun(s, 1_000_000, minutes, w, 4.0, 400) for s, w in enumerate(won))
    return Row("Scum 4p", "heuristic", target, "dmc_scum4.yaml", "`measure`", 7, runs,
               "anchor")  # fmt: skip


def test_mean_and_intervals_by_hand() -> None:
    row = _row((60.0, 70.0, 80.0))
    assert row.mean() == pytest.approx(70.0)
    # standard deviation 10 over three seeds, Student t with 2 degrees of freedom 4.3027
    assert row.seed_half_width() == pytest.approx(4.3027 * 10 / 3**0.5, abs=1e-3)
    # three independent intervals of 4 points: sqrt(3 * 16) / 3
    assert row.deal_half_width() == pytest.approx(48**0.5 / 3)


@pytest.mark.parametrize(
    ("target", "verdict"),
    [(55.0, "**yes**, every seed"), (65.0, "**yes** on the mean (2 of 3 seeds)"), (75.0, "**no**")],
)
def test_verdict(target: float, verdict: str) -> None:
    assert _row((60.0, 70.0, 80.0), target).verdict() == verdict


def test_a_run_over_the_limit_is_named() -> None:
    row = _row((60.0, 70.0, 80.0), minutes=MINUTES_LIMIT + 1.5)
    text = table((row,))
    assert f"Over the {MINUTES_LIMIT:.0f}-minute limit: seed 0 (31.5 min)" in text
    assert "Over the" not in table((_row((60.0, 70.0, 80.0)),))


def test_a_row_renders_each_seed() -> None:
    text = table((_row((60.0, 66.0, 80.25)),))
    line = text.splitlines()[2]
    assert "60.0% ± 4.0 / 66.0% ± 4.0 / 80.25% ± 4.0 (400 deals)" in line
    assert "**68.75%**" in line


@pytest.mark.parametrize("row", RECORD, ids=lambda r: f"{r.game} vs {r.opponent}")
def test_each_row_names_a_preset_that_loads(row: Row) -> None:
    from cardsuite.train.core.cli import preset
    from cardsuite.train.dmc.config import DMCConfig
    from cardsuite.train.ppo.config import PPOConfig

    path = ROOT / "configs" / "train" / row.preset
    assert path.is_file(), row.preset
    words = shlex.split(row.train)
    assert words[:2] == ["cardsuite", "ppo" if row.preset.startswith("ppo_") else "dmc"]
    assert {"--seed", "S", "--run-dir", "RUN"} <= set(words)
    assert words[words.index("--config") + 1] == f"configs/train/{row.preset}"
    config = (PPOConfig if words[1] == "ppo" else DMCConfig).from_dict(preset(str(path)))
    players = int(re.search(r"(\d+)p$", row.game).group(1))  # type: ignore[union-attr]
    sizes = {int(n) for n in str(config.sizes or config.num_players).split(",")}
    assert players in sizes, (row.game, config.sizes, config.num_players)
    assert len({r.seed for r in row.runs}) == len(row.runs) >= 3, "three training seeds"
    assert all(0.0 <= r.won <= 100.0 and r.half_width > 0 and r.deals > 0 for r in row.runs)
    # the measured deals are not the training's own: the seed is named in the command,
    # or the row measures with the trainer's own evaluation deals (1,000,003)
    commands = re.findall(r"`([^`]+)`", row.measure)
    seeds = [int(c.split("--seed ")[1].split()[0]) for c in commands if "--seed " in c]
    assert seeds == [row.deal_seed] or (not seeds and row.deal_seed == 1_000_003)


def test_each_row_links_to_a_section_of_the_page() -> None:
    page = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    ids = set(re.findall(r'<a id="([^"]+)"></a>', page))
    for heading in re.findall(r"^#+ (.+)$", page, re.M):  # Markdown's heading ids
        ids.add(re.sub(r"[^\w\- ]", "", heading).strip().lower().replace(" ", "-"))
    assert {"citable-results", "scum", "scum-party", "scandal"} <= ids  # one section per game
    for row in RECORD:
        assert row.section in ids, row.section


def test_the_data_file_is_checked_field_by_field(tmp_path: Path) -> None:
    """The measurements are data (configs/results/citable.yaml), refused with the field named."""
    from cardsuite.errors import ConfigError
    from cardsuite.train.tools.citable import load_record

    row = ("{game: X, opponent: h, target: %s, preset: p, measure: m, deal_seed: 1, section: s, "
           "runs: [%s]}")  # fmt: skip
    for target, run, message in (
        ("high", "[0, 1, 2.0, 50, 4.0, 400]", r"rows\[0\]\.target: expected float"),
        ("60", "[0, 1, 2.0, 50, 4.0]", r"rows\[0\]\.runs\[0\]: expected \[seed"),
        ("60", "[0, 1.5, 2.0, 50, 4.0, 400]", r"runs\[0\]\.decisions: expected int"),
    ):
        bad = tmp_path / f"{len(message)}.yaml"
        bad.write_text(f"rows:\n  - {row % (target, run)}\n")
        with pytest.raises(ConfigError, match=message):
            load_record(str(bad))
    good = tmp_path / "good.yaml"
    good.write_text(f"rows:\n  - {row % ('60', '[0, 1, 2, 50, 4.0, 400]')}\n")
    (only,) = load_record(str(good))
    assert only.target == 60.0 and only.runs[0].minutes == 2.0 and only.note == ""
