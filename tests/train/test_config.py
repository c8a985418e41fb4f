"""TrainConfig: presets load, every mistake is a ConfigError naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardsuite.errors import ConfigError
from cardsuite.train.config import TrainConfig, load_config, parse_overrides

PRESETS = sorted(
    p
    for p in Path(__file__).parents[2].joinpath("configs", "train").glob("*.yaml")
    if not p.name.startswith("rllib")  # the RLlib backend's own configs
)


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_every_preset_loads(path: Path) -> None:
    config = load_config(str(path))
    assert config.game in ("scum", "scum_party", "scandal")
    assert abs(sum(config.opponent_probs().values()) - 1.0) < 1e-9


def test_presets_exist_for_scum_and_scandal() -> None:
    names = {p.stem for p in PRESETS}
    assert {"scum_quick", "scum_full", "scandal_quick", "scandal_full"} <= names


def test_defaults_and_overrides_merge_options(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("game: scum\noptions: {num_players: 5, reward: centered}\n")
    config = load_config(str(path), parse_overrides(["options.num_players=6", "seed=3"]))
    assert config.options == {"num_players": 6, "reward": "centered"}
    assert config.seed == 3
    assert config.num_players() == 6


def test_unknown_key_is_named(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("total_step: 10\n")
    with pytest.raises(
        ConfigError, match=r"unknown config key 'total_step'.*did you mean 'total_steps'"
    ):
        load_config(str(path))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"total_steps": "many"}, r"TrainConfig.total_steps: expected int"),
        ({"total_steps": 0}, r"TrainConfig.total_steps: must be at least 1"),
        ({"game": "chess"}, r"unknown game 'chess'"),
        ({"options": {"num_players": 3}}, r"TrainConfig.options: .*num_players"),
        ({"options": {"colour": True}}, r"TrainConfig.options: unknown config key 'colour'"),
        ({"options": [1, 2]}, r"TrainConfig.options: expected a mapping"),
        ({"opponent_random": 0.5}, r"opponent_snapshot: .*must sum to 1"),
        (
            {"opponent_random": -0.1, "opponent_snapshot": 0.8},
            r"opponent_random: a probability cannot be negative",
        ),
        ({"batch_size": 4096}, r"TrainConfig.batch_size: 4096 is larger than a rollout"),
        ({"gamma": 1.5}, r"TrainConfig.gamma: must lie in \[0, 1\]"),
        ({"activation": "gelu"}, r"TrainConfig.activation: 'gelu' is not one of"),
        (
            {"learner_seat": 4},
            r"TrainConfig.learner_seat: seat 4 does not exist at a 4-player table",
        ),
        ({"eval_baselines": " , "}, r"TrainConfig.eval_baselines: name at least one"),
        ({"vec_env": "threads"}, r"TrainConfig.vec_env"),
    ],
)
def test_bad_values_are_named(changes: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        TrainConfig.from_dict(changes)


def test_missing_file_and_bad_yaml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(str(tmp_path / "nope.yaml"))
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: [scum\n")
    with pytest.raises(ConfigError, match="is not valid YAML"):
        load_config(str(bad))
    listy = tmp_path / "list.yaml"
    listy.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="must hold a mapping"):
        load_config(str(listy))


def test_parse_overrides_syntax() -> None:
    assert parse_overrides(["total_steps=20000", "progress=false", "eval-games=5"]) == {
        "total_steps": 20000,
        "progress": False,
        "eval_games": 5,
    }
    with pytest.raises(ConfigError, match="--set expects key=value, got 'total_steps'"):
        parse_overrides(["total_steps"])


def test_resume_mismatches_ignore_mutable_fields() -> None:
    saved = TrainConfig()
    assert TrainConfig(total_steps=10, eval_games=3).resume_mismatches(saved) == []
    assert TrainConfig(hidden_size=64, learning_rate=1e-3).resume_mismatches(saved) == [
        "learning_rate",
        "hidden_size",
    ]


def test_doc_table_documents_every_field() -> None:
    table = TrainConfig.doc_table()
    for name in TrainConfig.field_names():
        assert f"| `{name}` |" in table
