"""Evaluation helpers: intervals, the report table, the learning-curve plot."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardsuite.train.evaluate import (
    EvalRow,
    append_csv,
    format_report,
    plot_curves,
    read_csv,
    wilson,
)


def test_wilson_interval_matches_the_textbook_values() -> None:
    assert wilson(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson(0, 20) == pytest.approx((0.0, 0.1611), abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


ROW = EvalRow(
    step=1000,
    baseline="random",
    deals=40,
    beats=0.875,
    beats_ci=0.1025,
    win_rate=0.45,
    win_lo=0.38,
    win_hi=0.52,
    mean_score=0.5,
    score_ci=0.04,
    baseline_score=-0.5,
    baseline_score_ci=0.04,
)


def test_report_table_lines() -> None:
    assert format_report([ROW], markdown=True).splitlines()[2] == (
        "| random | 40 | 87.5% ± 10.2 | 45.0% [38.0, 52.0] | +0.500 ± 0.040 | -0.500 ± 0.040 |"
    )
    text = format_report([ROW]).splitlines()
    assert text[0].split() == [
        "vs",
        "deals",
        "beats",
        "(dup.)",
        "win",
        "rate",
        "[95%",
        "CI]",
        "score",
        "baseline",
        "score",
    ]
    assert text[1].split()[:4] == ["random", "40", "87.5%", "±"]


def test_csv_round_trip_and_curve_plot(tmp_path: Path) -> None:
    append_csv(tmp_path / "eval.csv", [ROW])
    append_csv(tmp_path / "eval.csv", [EvalRow(**{**ROW.to_dict(), "step": 2000, "beats": 1.0})])
    rows = read_csv(tmp_path / "eval.csv")
    assert [(r["step"], r["beats"]) for r in rows] == [("1000", "0.875"), ("2000", "1.0")]
    (tmp_path / "curve.csv").write_text("step,ep_rew_mean,episodes\n512,-0.2,30\n1024,0.1,60\n")
    png = plot_curves(tmp_path, tmp_path / "img" / "curves.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
