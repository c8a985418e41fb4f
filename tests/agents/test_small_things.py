"""Small things users hit (issue 15, item 6): legend, names, passes in the log, plurals, progress."""

from __future__ import annotations

import re

import pytest

from cardsuite.agents.arena.simulate import format_report, simulate
from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.agents.base import RandomAgent, table_info
from cardsuite.agents.play.terminal import play_games
from cardsuite.agents.play.views import relative_names, table_view
from cardsuite.cli import main
from scandal_env import scandal_v0
from scum_env import scum_v0


def scum_transcript(seed: int = 1) -> list[str]:
    out: list[str] = []
    play_games("scum", ["random"], seed=seed, input_fn=lambda prompt: "1", print_fn=out.append)
    return "\n".join(out).splitlines()


def test_play_prints_the_card_legend() -> None:
    lines = scum_transcript()
    assert any("S = Scum (the lowest)" in line and "W = Wild President" in line for line in lines)


def test_a_round_won_by_passes_says_who_leads() -> None:
    """J6: when every other player has passed, the last player to play leads; the log says so."""
    lines = scum_transcript()
    notes = [
        i for i, line in enumerate(lines) if re.fullmatch(r"  \(round over; .* leads?\)", line)
    ]
    assert notes
    assert any(lines[i - 1].endswith(": pass") for i in notes)  # the pass that ended it


def test_the_table_names_players_as_the_move_log_does() -> None:
    lines = scum_transcript()
    logged = {m.group(1) for line in lines if (m := re.match(r"> (player_\d) \(random\)", line))}
    rows = {m.group(1) for line in lines if (m := re.match(r"  (player_\d) +\w", line))}
    assert logged and logged <= rows


def test_relative_names_follow_the_observation_s_order() -> None:
    env = scum_v0.env()
    hands = [["2", "5", "P"], ["W"], ["4", "6"], ["7", "8"]]
    env.reset(seed=0, options={"roles": [2, 0, 3, 1], "hands": hands})
    names = relative_names(env, "player_0")
    state = env.unwrapped.game
    assert names[0] == "player_0"
    assert [state.pos[int(n[-1])] for n in names] == [(state.pos[0] + i) % 4 for i in range(4)]
    view = table_view(
        table_info(env, "scum", "player_0"), env.observe("player_0")["observation"], names
    )
    assert "player_1" in view and "+1" not in view
    assert "   1 card  " in view  # player_1 holds one card: "1 card", not "1 cards"


def test_scandal_names_and_plurals() -> None:
    env = scandal_v0.env(num_players=3)
    env.reset(seed=0)
    names = relative_names(env, "player_1")
    assert names == ["player_1", "player_2", "player_0"]


def test_simulate_counts_truncated_episodes_not_seats() -> None:
    env = scandal_v0.env(num_players=3, max_turns=4)
    stats = simulate(env, 3, seed=0)
    assert stats["truncated"] == 3  # three episodes, each truncated once (not 3 x 3 seats)
    assert "truncated episodes: 3 of 3" in format_report("scandal", env, stats)


def test_simulate_shows_a_progress_bar(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "scum", "--games", "3"]) == 0
    captured = capsys.readouterr()
    assert "simulate" in captured.err and "3/3" in captured.err
    assert main(["simulate", "scum", "--games", "2", "--no-progress"]) == 0
    assert "2/2" not in capsys.readouterr().err


def test_head_to_head_columns_keep_full_names() -> None:
    class Long(RandomAgent):
        name = "a-rather-long-agent-name"

    table = run_tournament("scum", [Long(0), "random"], games=2).format_table()
    header = table.splitlines()[-4]
    assert "a-rather-long-agent-name" in header and "random" in header
    rows = table.splitlines()[-3:-1]
    assert len({len(r) for r in rows}) == 1  # the matrix stays aligned
