"""The benchmark harness runs (no timing is asserted: the machine is noisy)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import bench


@pytest.mark.parametrize("name", sorted(bench.OURS))
def test_every_suite_benchmark_measures_steps(name: str) -> None:
    rate = bench.OURS[name](0.05)
    assert rate > 0


def test_bench_main_writes_results_and_ratios(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    status = bench.main(
        ["--seconds", "0.05", "--only", "scum4.env", "scum4.engine", "--out", str(out)]
    )
    assert status == 0
    data = json.loads(out.read_text())
    assert data["results"]["scum4.env"]["status"] == "ok"
    assert "Scum 4p engine / env() (cost of the env layer)" in data["ratios"]


def test_unknown_benchmark_is_named() -> None:
    with pytest.raises(SystemExit, match="unknown benchmark 'nope'"):
        bench.run(["nope"], 0.01)
