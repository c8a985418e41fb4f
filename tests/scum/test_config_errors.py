"""ScumConfig: presets in configs/scum/ and errors that name the problem."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cardsuite.errors import ConfigError
from scum_env import engine as E
from scum_env.config import ScumConfig
from scum_env.rules import scum_rules

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "scum"
PRESETS = sorted(CONFIGS.glob("*.yaml"))

EXPECTED = {
    "default.yaml": {},
    "carousel.yaml": {"num_players": 5, "carousel": True},
    "color_clash.yaml": {"num_players": 5, "color_clash": True},
    "wild_queen.yaml": {"num_players": 5, "wild_queen": True},
    "spanish.yaml": {"num_players": 5, "trade_rules": "spanish"},
    "all_variants.yaml": {
        "num_players": 6,
        "trade_rules": "spanish",
        "carousel": True,
        "color_clash": True,
        "wild_queen": True,
    },
    "six_players.yaml": {"num_players": 6},
    "twelve_players.yaml": {"num_players": 12},
    "game.yaml": {"num_players": 5, "episode": "game", "target_score": 40},
}


def test_every_named_preset_exists() -> None:
    assert {p.name for p in PRESETS} >= set(EXPECTED)


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.name)
def test_every_preset_file_loads_and_plays(path: Path) -> None:
    config = ScumConfig.from_yaml(path)
    if path.name in EXPECTED:
        assert config == ScumConfig(**EXPECTED[path.name])
    state = E.new_game(scum_rules(config), seed=0)
    assert sum(state.ncards) == 54 * config.num_decks
    assert E.legal_mask(state).any()


def test_yaml_overrides_win_over_the_file() -> None:
    config = ScumConfig.from_yaml(CONFIGS / "carousel.yaml", num_players=8)
    assert config.num_players == 8 and config.carousel and config.target == 60


def test_unknown_key_names_it_and_suggests_the_closest() -> None:
    with pytest.raises(
        ConfigError, match=r"unknown config key 'colour_clash'.*did you mean 'color_clash'"
    ):
        ScumConfig.from_dict({"colour_clash": True})
    with pytest.raises(ConfigError, match=r"unknown config key 'players'.*valid keys: num_players"):
        ScumConfig.from_dict({"players": 5})


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("num_players", "5", r"ScumConfig.num_players: expected int, got str '5'"),
        ("num_players", 5.0, r"num_players: expected int, got float"),
        ("carousel", 1, r"ScumConfig.carousel: expected bool, got int 1"),
        ("trade_rules", "french", r"trade_rules: 'french' is not one of 'english', 'spanish'"),
        ("episode", "hand", r"episode: 'hand' is not one of 'series', 'game'"),
        ("reward", "win", r"reward: 'win' is not one of 'points', 'centered'"),
        ("target_score", "40", r"target_score: expected int \| None, got str"),
        ("illegal_action", "ignore", r"illegal_action: 'ignore' is not one of"),
    ],
)
def test_wrong_type_or_value_names_the_field(key: str, value: object, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        ScumConfig.from_dict({key: value})


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"num_players": 3}, r"num_players: Scum is played by 4 to 12 players \(J2\), got 3"),
        ({"num_players": 13}, r"4 to 12 players \(J2\), got 13"),
        ({"target_score": -5}, r"target_score: must be a positive number of points, got -5"),
    ],
)
def test_impossible_values_are_config_errors(data: dict, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        ScumConfig.from_dict(data)


def test_yaml_file_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"cannot read config file .*missing.yaml"):
        ScumConfig.from_yaml(tmp_path / "missing.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("num_players: [4\n")
    with pytest.raises(ConfigError, match=r"broken.yaml is not valid YAML"):
        ScumConfig.from_yaml(broken)
    listing = tmp_path / "list.yaml"
    listing.write_text("- 4\n- 5\n")
    with pytest.raises(ConfigError, match=r"list.yaml must hold a mapping"):
        ScumConfig.from_yaml(listing)
    bad = tmp_path / "bad.yaml"
    bad.write_text("num_players: 3\n")
    with pytest.raises(ConfigError, match=r"bad.yaml: ScumConfig.num_players: .*got 3"):
        ScumConfig.from_yaml(bad)
    typo = tmp_path / "typo.yaml"
    typo.write_text("wildqueen: true\n")
    with pytest.raises(
        ConfigError, match=r"'wildqueen' for ScumConfig in .*typo.yaml \(did you mean 'wild_queen'"
    ):
        ScumConfig.from_yaml(typo)
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    assert ScumConfig.from_yaml(empty) == ScumConfig()


def test_replace_validates_like_a_new_config() -> None:
    config = ScumConfig().replace(num_players=7)
    assert config.num_decks == 2
    with pytest.raises(ConfigError, match="num_players"):
        ScumConfig().replace(num_players=2)
    assert ScumConfig(illegal_penalty=-2).illegal_penalty == -2.0
    assert np.isclose(ScumConfig.from_dict({"illegal_penalty": 1}).illegal_penalty, 1.0)
