"""One command grammar (issue 60): every command that takes them names the game, the players
and the rule options alike (``--game GAME --players N --rule KEY=VALUE``), no parser
abbreviates a flag, and the older spellings still work with one warning each."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from cardsuite.cli import build_parser, main, table_options
from cardsuite.errors import ConfigError
from cardsuite.games import get_game

#: The table flags each command takes (dest -> the one spelling).
SPELLING = {"game": "--game", "players": "--players", "rules": "--rule"}
TABLE = set(SPELLING)
TAKES: dict[str, set[str]] = {
    **dict.fromkeys(("tournament", "play", "simulate", "leaderboard"), TABLE),
    **dict.fromkeys(("export", "exploit", "ppo", "dmc", "train"), TABLE),
    "benchmark": {"game", "players"},  # the rules are the deal set's
    "agents": {"game"},
    **{name: set() for name in ("serve", "replay", "dataset")},  # no table of their own
}


def subparsers() -> dict[str, argparse.ArgumentParser]:
    parser, commands = build_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(action.choices) == set(commands)
    return dict(action.choices)


def test_every_command_spells_the_table_flags_one_way() -> None:
    parsers = subparsers()
    assert set(parsers) <= set(TAKES), "a new command: add it to TAKES"
    for name, parser in parsers.items():
        flags = {a.dest: a.option_strings for a in parser._actions}
        assert TAKES[name] <= set(flags), name
        for dest in TABLE & set(flags):
            assert flags[dest] == [SPELLING[dest]], (name, dest, flags[dest])
        assert not {"num_players", "num-players"} & set(flags), name


def test_no_parser_abbreviates_a_flag() -> None:
    parser, _ = build_parser()
    assert parser.allow_abbrev is False
    for name, sub in subparsers().items():
        assert sub.allow_abbrev is False, name
    ns, extra = parser.parse_known_args(["tournament", "--game", "scum", "--agents", "a", "b"])
    assert (ns.game, ns.games, extra) == ("scum", 100, [])  # --game is never --games
    ns, extra = parser.parse_known_args(["tournament", "--agents", "a", "b", "--dup", "--gam", "x"])
    assert (ns.duplicate, ns.game, extra) == (False, None, ["--dup", "--gam", "x"])
    ns, extra = parser.parse_known_args(["ppo", "--total-step", "5"])
    assert ns.total_steps is None and extra == ["--total-step", "5"]


def simulate(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[list[str], list[str]]:
    """The report's lines before its (timed) throughput line, and the lines on stderr."""
    assert main(["simulate", "--games", "2", "--no-progress", *argv]) == 0
    out, err = capsys.readouterr()
    return out.split("\nthroughput")[0].splitlines(), err.splitlines()


def test_the_old_spellings_still_work_with_one_warning_each(
    capsys: pytest.CaptureFixture[str],
) -> None:
    new = simulate(["--game", "scum", "--players", "5", "--rule", "carousel=true"], capsys)
    assert new[0][0] == "scum: 2 games, 5 players, random legal agents" and new[1] == []
    old = simulate(["scum", "--carousel", "true", "--num_players", "5"], capsys)
    assert old[0] == new[0]
    assert old[1] == [
        "warning: the game as a positional argument (scum) is deprecated; use --game scum",
        "warning: --num_players 5 is deprecated; use --players 5",
        "warning: --carousel true is deprecated; use --rule carousel=true",
    ]
    mixed = simulate(["--game", "scum", "--players", "5", "--carousel=true"], capsys)
    assert mixed == (new[0], ["warning: --carousel true is deprecated; use --rule carousel=true"])


def test_tournament_and_play_take_the_game_either_way(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["--agents", "random", "random", "--games", "2", "--no-progress"]
    assert main(["tournament", "--game", "scum", *argv]) == 0
    new = capsys.readouterr()
    assert main(["tournament", "scum", *argv]) == 0
    old = capsys.readouterr()
    assert old.out == new.out and new.err == ""
    assert old.err == (
        "warning: the game as a positional argument (scum) is deprecated; use --game scum\n"
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "--game", "scum", "--players", "5", "--vs", "random", "--seed", "1"]) == 0
    assert "player_4 = random" in capsys.readouterr().out  # --players, which play refused before


def test_leaderboard_takes_the_game_either_way(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # its default checkpoint goes here
    argv = ["--players", "4", "--deals", "1", "--agents", "random", "greedy", "--resamples", "0"]
    argv += ["--no-progress", "--rule", "carousel=true"]
    assert main(["leaderboard", "scum", *argv]) == 0
    old = capsys.readouterr()
    assert main(["leaderboard", "--game", "scum", *argv]) == 0
    new = capsys.readouterr()
    assert old.out == new.out and "warning" not in new.err
    assert "warning: the game as a positional argument (scum) is deprecated" in old.err
    command = "cardsuite leaderboard --game scum --players 4 --deals 1 --seed 0 --agents random "
    assert f"{command}greedy --rule carousel=true`" in new.out  # what plays it again


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "give the game: --game GAME (scum, scum_party or scandal)"),
        (["--game", "scum", "scandal"], "unexpected argument 'scandal' (the game is --game scum)"),
        (["--game", "scum", "--rule", "num_players=5"], "give the player count as --players 5"),
        (["--game", "scum", "--players", "4", "--num_players", "5"], "--players 4 contradicts"),
        (["--game", "scum", "--carousel", "true", "--rule", "carousel=false"], "given twice"),
    ],
)
def test_table_mistakes_are_named(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "--games", "1", "--no-progress", *argv]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("cardsuite simulate: error: ") and message in err[-1], err


def test_a_preset_meets_the_flags() -> None:
    game = get_game("scum")
    ns = argparse.Namespace(players=6, rules=["carousel=true"])
    assert table_options(game, ns, ["--wild_queen", "true"], {"num_players": 6}) == {
        "num_players": 6,
        "wild_queen": True,
        "carousel": True,
    }
    with pytest.raises(ConfigError, match="--players 4 contradicts num_players=6 of the rule"):
        table_options(game, argparse.Namespace(players=4, rules=[]), [], {"num_players": 6})


def test_trainers_read_the_same_flags(capsys: pytest.CaptureFixture[str]) -> None:
    from cardsuite.train.core.cli import config_from_args
    from cardsuite.train.ppo.config import PPOConfig
    from cardsuite.train.sb3.cli import resolve_config

    parser, _ = build_parser()
    base = ["ppo", "--config", "ppo_scum4_quick", "--game", "scum", "--players", "5"]
    ns, _ = parser.parse_known_args([*base, "--rule", "carousel=true", "--rule", "wild-queen=true"])
    config = config_from_args(PPOConfig, ns)
    assert (config.game, config.num_players) == ("scum", 5)
    assert config.options == {"carousel": True, "wild_queen": True}
    assert capsys.readouterr().err == ""
    ns, _ = parser.parse_known_args([*base, "--options", "{carousel: true}"])
    assert config_from_args(PPOConfig, ns).options == {"carousel": True}  # replaces, as before
    assert capsys.readouterr().err == "warning: --options is deprecated; use --rule carousel=true\n"
    ns, _ = parser.parse_known_args([*base, "--rule", "carousle=true"])
    with pytest.raises(ConfigError, match="unknown option carousle for scum"):
        config_from_args(PPOConfig, ns)
    ns, _ = parser.parse_known_args(["train", "--config", "scum_quick", "--game", "scum",
                                     "--rule", "carousel=true"])  # fmt: skip
    assert resolve_config(ns).options == {"reward": "centered", "carousel": True}  # merged
