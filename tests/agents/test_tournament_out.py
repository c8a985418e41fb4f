"""``cardsuite tournament --out DIR`` leaves no empty or partial folder behind (issue 25).

The folder is checked before any game is played, but created only when the
results are written; if writing fails, the files and folders this run made
are removed again, and a folder the user made is never removed.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from cardsuite.agents.arena.cli import add_command
from cardsuite.agents.arena.results import RESULT_FILES, TournamentResult, check_results_dir
from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.errors import ConfigError

BOOM = """
class Boom:
    name = "boom"

    def __init__(self, seed=None):
        self.moves = 0

    def reset(self, *args, **kwargs):
        pass

    def act(self, observation, action_mask, info):
        self.moves += 1
        if self.moves > 3:
            raise RuntimeError("boom in the middle of a game")
        return int(action_mask.nonzero()[0][0])
"""


def tournament(argv: list[str]) -> int:
    """``cardsuite tournament ARGV`` through the subcommand's own parser and runner."""
    parser = argparse.ArgumentParser()
    name, runner = add_command(parser.add_subparsers())
    args, extra = parser.parse_known_args([name, *argv])
    return int(runner(args, extra))


def test_a_run_refused_after_the_check_leaves_no_folder(tmp_path: Path) -> None:
    out = tmp_path / "new" / "deeper"
    with pytest.raises(ConfigError, match="unknown agent 'nope'"):
        tournament(["scum", "--agents", "random", "nope", "--no-progress", "--out", str(out)])
    assert not (tmp_path / "new").exists()
    with pytest.raises(ConfigError, match="games must be a positive integer"):
        tournament(["scum", "--agents", "random", "random", "--games", "0", "--out", str(out)])
    assert list(tmp_path.iterdir()) == []


def test_a_run_that_crashes_mid_game_leaves_no_folder(tmp_path: Path) -> None:
    (tmp_path / "boom.py").write_text(BOOM)
    out = tmp_path / "results"
    argv = ["scum", "--agents", f"{tmp_path}/boom.py:Boom", "random", "--games", "2"]
    with pytest.raises(Exception, match="boom in the middle of a game"):
        tournament([*argv, "--no-progress", "--out", str(out)])
    assert not out.exists()


def test_the_check_creates_nothing_and_names_bad_folders(tmp_path: Path) -> None:
    assert check_results_dir(tmp_path / "a" / "b") == tmp_path / "a" / "b"
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="is a file"):
        check_results_dir(tmp_path / "file")
    with pytest.raises(ConfigError, match="is a file, not a folder"):
        check_results_dir(tmp_path / "file" / "sub")
    (tmp_path / "done").mkdir()
    (tmp_path / "done" / "results.json").write_text("{}")
    with pytest.raises(ConfigError, match=r"already holds results\.json"):
        check_results_dir(tmp_path / "done")


@pytest.fixture(scope="module")
def result() -> TournamentResult:
    return run_tournament("scum", ["random", "random"], games=2, seed=0)


def failing_plot(self: TournamentResult, path: Any = None) -> Any:
    raise OSError(28, "No space left on device")


def test_a_failed_write_removes_what_it_made(
    result: TournamentResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(TournamentResult, "plot", failing_plot)
    out = tmp_path / "x" / "y"
    with pytest.raises(OSError, match="No space"):
        result.write(out)
    assert list(tmp_path.iterdir()) == []  # x/ and x/y/ were made by the run: gone


def test_a_failed_write_keeps_the_users_folder_and_files(
    result: TournamentResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    monkeypatch.setattr(TournamentResult, "plot", failing_plot)
    with pytest.raises(OSError):
        result.write(mine)
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    assert (mine / "notes.txt").read_text() == "keep me"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(OSError):
        result.write(empty)
    assert empty.is_dir() and list(empty.iterdir()) == []  # the user's folder stays


def test_a_good_write_creates_the_folder_with_every_file(
    result: TournamentResult, tmp_path: Path
) -> None:
    paths = result.write(tmp_path / "a" / "b")
    assert [p.name for p in paths] == list(RESULT_FILES)
    assert all(p.is_file() and p.stat().st_size > 0 for p in paths)
    with pytest.raises(ConfigError, match="already holds"):
        result.write(tmp_path / "a" / "b")
