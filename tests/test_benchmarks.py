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


def test_a_one_descent_search_never_differs_from_the_agent_it_wraps() -> None:
    """Budget 1 visits the move of highest prior: the wrapped agent's own (docs/search.md)."""
    from benchmarks import search_agreement

    row = search_agreement.measure("scandal", 2, "scandal2", "budget=1", deals=1, seed=900)
    assert row.spec == "search:pretrained:scandal2:budget=1"
    assert row.decisions >= 10 and row.differ == 0


def test_search_agreement_prints_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks import search_agreement

    args = ["--game", "scum", "--players", "4", "--agent", "scum4", "--deals", "1"]
    assert search_agreement.main([*args, "--extra", "budget=2,max_hand=3"]) == 0
    out = capsys.readouterr().out
    assert "| `search:pretrained:scum4:budget=2,max_hand=3` |" in out
    assert "differ from the wrapped agent" in out
