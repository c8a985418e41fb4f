"""The one override parser (cardsuite.overrides) behind every config (issue 13)."""

from __future__ import annotations

import math

import pytest

from cardsuite.errors import ConfigError
from cardsuite.games import get_game, parse_options
from cardsuite.overrides import merge_overrides, parse_assignments, parse_flags, read_value

FIELDS = ("num_players", "carousel", "trade_rules")


def test_values_are_yaml_scalars_or_the_raw_string() -> None:
    assert read_value("5") == 5 and read_value("true") is True and read_value("null") is None
    assert read_value("{a: 1}") == {"a": 1} and read_value("1e-3") == 0.001
    assert read_value("-2E+2") == -200.0 and read_value("3e") == "3e"
    assert math.isnan(read_value(".nan"))  # the config, not the parser, refuses it
    assert read_value("[1,") == "[1," and read_value("spanish") == "spanish"
    assert read_value("{a: 1, a: 2}") == "{a: 1, a: 2}"  # a repeated key is not a mapping


def test_flags_both_spellings_dashes_and_errors() -> None:
    assert parse_flags(
        ["--num-players", "5", "--carousel=true", "--trade_rules", "a-b"], FIELDS, what="scum"
    ) == {"num_players": 5, "carousel": True, "trade_rules": "a-b"}
    with pytest.raises(
        ConfigError, match=r"unknown option --num_player for scum \(did you mean --num_players\?\)"
    ):
        parse_flags(["--num_player"], FIELDS, what="scum")  # unknown, not "needs a value"
    with pytest.raises(ConfigError, match="option --carousel needs a value"):
        parse_flags(["--carousel"], FIELDS, what="scum")
    with pytest.raises(ConfigError, match="option --carousel given twice"):
        parse_flags(["--carousel", "1", "--carousel=2"], FIELDS, what="scum")
    with pytest.raises(ConfigError, match="expected an option like --key value, got 'five'"):
        parse_flags(["five"], FIELDS, what="scum")


def test_assignments_nest_options_and_name_unknown_keys() -> None:
    assert parse_assignments(
        ["seed=3", "options={num_players: 4, carousel: true}", "options.num_players=6"],
        ("seed", "options"),
    ) == {"seed": 3, "options": {"num_players": 6, "carousel": True}}
    with pytest.raises(ConfigError, match="unknown option sed for the config"):
        parse_assignments(["sed=3"], ("seed", "options"))
    with pytest.raises(ConfigError, match="--set expects key=value, got 'seed'"):
        parse_assignments(["seed"])
    with pytest.raises(ConfigError, match=r"--set options=\.\.\. expects a mapping"):
        parse_assignments(["options=5", "options.carousel=true"])


def test_merge_keeps_the_files_other_options() -> None:
    base = {"game": "scum", "options": {"num_players": 5, "carousel": True}}
    merged = merge_overrides(base, {"options": {"num_players": 6}, "seed": 1})
    assert merged == {"game": "scum", "options": {"num_players": 6, "carousel": True}, "seed": 1}
    assert base["options"] == {"num_players": 5, "carousel": True}  # untouched
    with pytest.raises(ConfigError, match=r"f\.yaml: options must be a mapping"):
        merge_overrides({"options": [1]}, {"options": {"a": 1}}, "f.yaml")


def test_every_config_uses_it() -> None:
    from cardsuite.train.rllib.config import parse_overrides as rllib_overrides
    from cardsuite.train.sb3.config import parse_overrides as train_overrides

    assert parse_options(get_game("scum"), ["--num-players", "5"]) == {"num_players": 5}
    with pytest.raises(ConfigError, match="unknown option --dupliate for scum"):
        parse_options(get_game("scum"), ["--dupliate"])
    assert train_overrides(["options.num_players=5"]) == {"options": {"num_players": 5}}
    assert rllib_overrides(["iterations=3", "options.num_players=5"]) == {
        "iterations": 3,
        "options": {"num_players": 5},
    }
    from cardsuite.train.rllib.config import load_run

    with pytest.raises(ConfigError, match="unknown config key 'iteration'"):
        load_run(None, **rllib_overrides(["iteration=3"]))
