"""The MaskablePPO report on the core's evaluation rows: the table, the CSV log, the curves."""

from __future__ import annotations

from pathlib import Path

from cardsuite.train.core.evaluate import DuelResult, EvalRow
from cardsuite.train.sb3.report import append_csv, format_report, plot_curves, read_csv

ROW = EvalRow(
    step=1000,
    against="random",
    deals=40,
    beats=0.875,
    beats_ci=0.1025,
    mean_a=0.5,
    mean_b=-0.5,
    margin=1.0,
    margin_ci=0.04,
)


def test_a_duel_result_becomes_a_row_with_its_step_and_opponent() -> None:
    duel = DuelResult(deals=40, beats=0.875, beats_ci=0.1025, mean_a=0.5, mean_b=-0.5,
                      margin=1.0, margin_ci=0.04)  # fmt: skip
    assert EvalRow.of(1000, "random", duel) == ROW
    assert type(EvalRow.of(1000, "random", duel).deals) is int


def test_report_table_lines() -> None:
    assert format_report([ROW], markdown=True).splitlines()[2] == (
        "| random | 40 | 87.5% ± 10.2 | +1.000 ± 0.040 | +0.500 | -0.500 |"
    )
    text = format_report([ROW]).splitlines()
    assert text[0].split() == ["vs", "deals", "beats", "(dup.)", "margin", "score", "baseline",
                               "score"]  # fmt: skip
    assert text[1].split() == ["random", "40", "87.5%", "±", "10.2", "+1.000", "±", "0.040",
                               "+0.500", "-0.500"]  # fmt: skip


def test_csv_round_trip_and_curve_plot(tmp_path: Path) -> None:
    append_csv(tmp_path / "eval.csv", [ROW])
    append_csv(tmp_path / "eval.csv", [EvalRow(**{**ROW.to_dict(), "step": 2000, "beats": 1.0})])
    rows = read_csv(tmp_path / "eval.csv")
    assert [(r["step"], r["against"], r["beats"]) for r in rows] == [
        ("1000", "random", "0.875"),
        ("2000", "random", "1.0"),
    ]
    (tmp_path / "curve.csv").write_text("step,ep_rew_mean,episodes\n512,-0.2,30\n1024,0.1,60\n")
    png = plot_curves(tmp_path, tmp_path / "img" / "curves.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_one_run_curve_keeps_its_steps_its_intervals_and_the_last_row_of_a_step(
    tmp_path: Path,
) -> None:
    """A resumed run may log a step twice: the last row wins; one run draws its own evaluation
    intervals (``beats_ci``), not a band over seeds; the panels it has no rows for are left out."""
    from cardsuite.train.core.log import PANELS, band, eval_opponents, panel_column

    (tmp_path / "curve.csv").write_text("step,ep_rew_mean\n512,-0.2\n1024,0.1\n1024,0.3\n")
    append_csv(tmp_path / "eval.csv", [ROW, EvalRow(**{**ROW.to_dict(), "against": "heuristic"})])
    grid, mean, half, n = band([tmp_path], "curve.csv", "ep_rew_mean")
    assert n == 1 and list(grid) == [512, 1024] and list(mean) == [-0.2, 0.3] and not half.any()
    grid, mean, half, n = band([tmp_path], "eval.csv", "beats", "random")
    assert (n, list(grid), list(mean), list(half)) == (1, [1000], [0.875], [ROW.beats_ci])
    assert eval_opponents([tmp_path]) == ["heuristic", "random"]
    assert panel_column([tmp_path], "progress.csv", PANELS[0][1]) == PANELS[0][1][0]
    assert band([tmp_path], "progress.csv", "league_win")[3] == 0
