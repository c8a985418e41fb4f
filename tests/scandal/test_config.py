"""ScandalConfig: presets, defaults and named errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cardsuite.errors import ConfigError, DeckError
from scandal_env import engine as E
from scandal_env.config import PRESET_DIR, ScandalConfig


def test_defaults_reproduce_the_rule_book() -> None:
    cfg = ScandalConfig()
    assert (cfg.num_players, cfg.target_score, cfg.episode) == (2, 500, "hand")
    assert cfg.hand_size == 10


@pytest.mark.parametrize("name", sorted(p.stem for p in PRESET_DIR.glob("*.yaml")))
def test_every_preset_loads_and_plays(name: str) -> None:
    cfg = ScandalConfig.preset(name)
    s = E.new_game(cfg, seed=1)
    assert E.legal_actions(s)


def test_default_yaml_equals_defaults() -> None:
    assert ScandalConfig.preset("default") == ScandalConfig()


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"num_player": 3}, "unknown config key 'num_player'.*did you mean 'num_players'"),
        ({"num_players": "2"}, "ScandalConfig.num_players: expected int"),
        ({"num_players": 7}, "ScandalConfig.num_players: must be 2 to 6"),
        ({"num_players": 1}, "num_players"),
        ({"max_turns": 0}, "ScandalConfig.max_turns: must be >= 1"),
        ({"max_turns": None}, "ScandalConfig.max_turns: expected int"),
        ({"target_score": 0}, "target_score"),
        ({"episode": "series"}, "ScandalConfig.episode: 'series' is not one of"),
        ({"reward_scale": 0}, "reward_scale"),
        ({"max_hands": 0}, "max_hands"),
        ({"deck": 3}, "ScandalConfig.deck"),
    ],
)
def test_config_errors_name_the_field(data: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        ScandalConfig.from_dict(data)


def test_yaml_errors(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("num_players: 9\n")
    with pytest.raises(ConfigError, match=r"c.yaml.*num_players"):
        ScandalConfig.from_yaml(path)
    with pytest.raises(ConfigError, match="unknown Scandal preset 'nope'"):
        ScandalConfig.preset("nope")


def test_bad_deck_path_fails_at_game_creation(tmp_path: Path) -> None:
    with pytest.raises(DeckError, match=r"missing.json"):
        E.new_game(ScandalConfig(deck=str(tmp_path / "missing.json")), seed=0)
