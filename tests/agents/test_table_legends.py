"""Tables that explain themselves (issue 60): units in the headers, the rating anchor named as
the anchor, per-seat win shares named as such, a legend under each table, progress on stderr."""

from __future__ import annotations

import pytest

from cardsuite.agents.arena.leaderboard import to_markdown
from cardsuite.agents.arena.ratings import Ratings
from cardsuite.agents.arena.results import TournamentResult
from cardsuite.agents.arena.round_robin import Board
from cardsuite.agents.arena.stats import GameResult
from cardsuite.cli import main
from tests.agents.test_results import _result


def two_agents_at_four_seats() -> TournamentResult:
    """heuristic (agent 1) finishes 1st and 2nd in each of 4 games, random 3rd and 4th: it wins
    one of its two seats in every game, so its win share is 50% and the column adds to 50%."""
    games = []
    for g in range(4):
        seating = (0, 1, 0, 1) if g % 2 == 0 else (1, 0, 1, 0)
        ranks = tuple((1, 2)[s // 2] if a == 1 else (3, 4)[s // 2] for s, a in enumerate(seating))
        rewards = tuple(float(4 - r) for r in ranks)  # J8 points: 3, 2, 1, 0
        games.append(GameResult(g, g, g % 2, seating, rewards, ranks))
    return _result(games, ("random", "heuristic"), seats=4, duplicate=False)


def test_the_tournament_table_names_its_units_anchor_and_per_seat_wins() -> None:
    result = two_agents_at_four_seats()
    assert [a.win_rate for a in result.agents] == [0.0, 0.5]  # per seat: 50% in all
    lines = result.format_table().splitlines()
    assert lines[:4] == [
        "scum: 4 games, 4 players, seed 0 (seats rotated)",
        "",
        "agent           mean score  ± 95% CI   mean rank  ± 95% CI         wins      95% CI"
        "  rating      95% CI",
        "             (reward/game)           (1 = first)           (% of seats)"
        "               (Elo)",
    ]
    assert lines[4] == (
        "random               0.500     0.000       3.500     0.000         0.0%    0.0-49.0"
        "       0      anchor"
    )
    assert lines[5].startswith("heuristic            2.500     0.000       1.500     0.000")
    assert "        50.0%" in lines[5]
    assert lines[6] == (
        "score: a seat's rewards summed over one game; rank: 1 = first; wins: share of the "
        "agent's own seats that finished first (a share per seat, so the column need not add "
        "to 100%)"
    )
    assert lines[8].startswith(
        "rating: Elo (400 points = 10:1 odds of beating another agent on a unit), random = 0 "
        "(the anchor); one Bradley-Terry fit to every game at once"
    )
    assert lines[-5:] == [
        "head-to-head: share of games the row agent's score beat the column's",
        "                 random  heuristic",
        "random                -      0.000",
        "heuristic         1.000          -",
        "ties count half, so a cell and its mirror across the diagonal add to 1",
    ]


def test_the_leaderboard_section_names_its_units_anchor_and_legends() -> None:
    ratings = Ratings(["random", "heuristic"], [0.0, 830.4], [0.0, 761.0], [0.0, 917.2],
                      "random", 1000, [0, 0])  # fmt: skip
    board = Board("scum", 4, 200, 0, ["random", "heuristic"], [], ratings,
                  [[None, 0.02], [0.98, None]], [[None, (0.0, 0.05)], [(0.95, 1.0), None]])  # fmt: skip
    command = "cardsuite leaderboard --game scum --players 4 --deals 200 --seed 0"
    assert to_markdown(board, command) == (
        "### scum, 4 players\n"
        "\n"
        f"200 duplicate deals per pair, seed 0: `{command}`\n"
        "\n"
        "| rank | agent | rating (Elo) | 95% interval | beats the others (share of deals) |\n"
        "|---|---|---|---|---|\n"
        "| 1 | `heuristic` | 830 | 761 to 917 | 98.0% |\n"
        "| 2 | `random` | 0 | anchor | 2.0% |\n"
        "\n"
        "Rating: Elo scale (400 points = 10:1 odds of winning a deal), `random` = 0 (the anchor); "
        "Bradley-Terry fit to all deals at once, 95% interval by bootstrap over deals (1000 "
        "resamples). Beats the others: the mean over the other agents of the share of deals won "
        "against each (ties half).\n"
        "\n"
        "Head-to-head: share of deals the row agent beat the column agent.\n"
        "\n"
        "| | `heuristic` | `random` |\n"
        "|---|---|---|\n"
        "| `heuristic` | — | 98% |\n"
        "| `random` | 2% | — |\n"
        "\n"
        "Ties count half, so a cell and its mirror add to 100%; 95% bootstrap intervals at most "
        "±2.5 points.\n"
    )


def test_progress_goes_to_stderr_and_the_table_alone_to_stdout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["tournament", "--game", "scum", "--agents", "random", "greedy", "--games", "3"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "scum tournament" in err and "3/3" in err  # the bar, on stderr
    assert out.startswith("scum: 3 games, 4 players") and "tournament" not in out
    assert main([*argv, "--no-progress"]) == 0
    assert capsys.readouterr() == (out, "")
