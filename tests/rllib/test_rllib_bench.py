"""The RLlib benchmark harness runs (no timing is asserted: the machine is shared)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed")

from benchmarks import rllib_bench


def test_table_reports_scaling_per_added_runner() -> None:
    """The table names every path and the 2-runner / 1-runner ratio."""
    rows = [
        {"path": "rllib_batched x1", "runners": 1, "envs_per_runner": 8,
         "sample_steps_per_s": 1000.0, "train_steps_per_s": 500.0},
        {"path": "rllib_batched x2", "runners": 2, "envs_per_runner": 8,
         "sample_steps_per_s": 1800.0, "train_steps_per_s": 800.0},
        {"path": "rllib_per_game x2", "runners": 2, "envs_per_runner": 4,
         "sample_steps_per_s": 100.0, "train_steps_per_s": 90.0},
    ]  # fmt: skip
    text = rllib_bench.table(rows)
    assert "sample_steps_per_s: 2 runners / 1 runner = 1.80x (+80% for the added runner)" in text
    assert "batched / per-game RLlib sampling, 2 runners: 18.0x" in text
    assert "| rllib_batched x1 | 1 x 8 | 1,000 | 500 | - | - |" in text


@pytest.mark.slow
def test_bench_main_one_tiny_path(tmp_path: Path) -> None:
    """One batched runner of 16 games for a moment: a row with positive rates, saved as JSON."""
    out = tmp_path / "bench.json"
    args = ["--seconds", "0.2", "--iterations", "1", "--envs", "16", "--batch-per-runner", "64",
            "--skip", "x2,per_game,ppo", "--out", str(out)]  # fmt: skip
    assert rllib_bench.main(args) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [r["path"] for r in rows] == ["rllib_batched x1"]
    assert rows[0]["sample_steps_per_s"] > 0 and rows[0]["train_steps_per_s"] > 0
    assert set(rows[0]["phase_seconds"]) == {"sample", "learn", "sync"}
