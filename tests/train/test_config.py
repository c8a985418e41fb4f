"""TrainConfig: presets load, every mistake is a ConfigError naming the field."""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import pytest

from cardsuite.errors import CardsuiteError, ConfigError
from cardsuite.train.sb3.config import TrainConfig, load_config, parse_overrides

PRESETS = sorted(
    p
    for p in Path(__file__).parents[2].joinpath("configs", "train").glob("*.yaml")
    if not p.name.startswith(("rllib", "ppo_", "dmc_"))  # the RLlib, PPO and DMC trainers' own
)
BATCHED_PRESETS = sorted(
    p
    for p in Path(__file__).parents[2].joinpath("configs", "train").glob("*.yaml")
    if p.name.startswith(("ppo_", "dmc_"))
)


@pytest.mark.parametrize("path", BATCHED_PRESETS, ids=lambda p: p.stem)
def test_every_batched_preset_loads_for_its_trainer(path: Path) -> None:
    """`cardsuite ppo` and `cardsuite dmc` presets: every field known, the game one they train."""
    from cardsuite.config import read_yaml_mapping
    from cardsuite.train.dmc.config import DMCConfig
    from cardsuite.train.ppo.config import PPOConfig

    cls = DMCConfig if path.name.startswith("dmc_") else PPOConfig
    args = cls.from_dict(read_yaml_mapping(path))
    assert args.game in ("scum", "scum_party", "scandal") and args.total_steps > 0


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
    path.write_text("game: scum\nnum_players: 5\noptions: {reward: centered}\n")
    config = load_config(str(path), parse_overrides(["options.reward=points", "seed=3"]))
    assert config.options == {"reward": "points"}
    assert config.seed == 3
    assert config.players() == 5 and config.env_options() == {"reward": "points", "num_players": 5}
    assert TrainConfig.from_dict({"game": "scandal"}).players() == 2  # the game's default


def test_old_keys_keep_working_with_a_warning_naming_the_new_one(tmp_path: Path) -> None:
    """The names before 0.3 (SB3's own) are read as the one vocabulary's, in YAML and --set."""
    path = tmp_path / "old.yaml"
    path.write_text("game: scum\noptions: {num_players: 5, reward: centered}\nn_epochs: 3\n"
                    "clip_range: 0.1\nhidden_size: 64\nhidden_layers: 1\ntorch_threads: 1\n"
                    "n_envs: 1\nn_steps: 256\neval_games: 4\nfinal_eval_games: 8\n"
                    "eval_baselines: random\n")  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        config = load_config(str(path), parse_overrides(["options.num_players=6"]))
    said = "\n".join(str(w.message) for w in caught if w.category is FutureWarning)
    for old, new in TrainConfig.RENAMED.items():
        assert f"'{old}' is now '{new}'" in said
    assert "'options.num_players' is now 'num_players'" in said
    assert (config.num_players, config.options, config.update_epochs, config.clip_coef) == (
        6, {"reward": "centered"}, 3, 0.1)  # fmt: skip
    assert (config.hidden, config.layers, config.threads, config.num_games) == (64, 1, 1, 1)
    assert (config.rollout_steps, config.eval_deals, config.final_eval_deals) == (256, 4, 8)
    assert config.eval_against == "random"
    with pytest.warns(FutureWarning, match="'options.num_players' is now 'num_players'"):
        assert TrainConfig.from_dict({"options": {"num_players": 5}}).num_players == 5
    with pytest.raises(ConfigError, match="give update_epochs only"):
        TrainConfig.from_dict({"n_epochs": 3, "update_epochs": 4})
    saved = {"options": {"num_players": 5}, "hidden_size": 16}  # a checkpoint's: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert TrainConfig.read_saved(saved).hidden == 16


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
        ({"total_steps": 0}, r"TrainConfig.total_steps: must be >= 1"),
        ({"game": "chess"}, r"unknown game 'chess'"),
        ({"num_players": 3}, r"TrainConfig.num_players: .*num_players"),
        ({"options": {"num_players": 3}}, r"TrainConfig.num_players: .*num_players"),
        ({"options": {"colour": True}}, r"TrainConfig.options: unknown config key 'colour'"),
        ({"options": [1, 2]}, r"TrainConfig.options: expected a mapping"),
        ({"opponent_random": 0.5}, r"opponent_snapshot: .*must sum to 1"),
        (
            {"opponent_random": -0.1, "opponent_snapshot": 0.8},
            r"TrainConfig.opponent_random: must be >= 0",
        ),
        ({"batch_size": 4096}, r"TrainConfig.batch_size: 4096 is larger than a rollout"),
        ({"gamma": 1.5}, r"TrainConfig.gamma: must be <= 1"),
        ({"activation": "gelu"}, r"TrainConfig.activation: 'gelu' is not one of"),
        (
            {"learner_seat": 4},
            r"TrainConfig.learner_seat: seat 4 does not exist at a 4-player table",
        ),
        ({"eval_against": " , "}, r"TrainConfig.eval_against: name at least one"),
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
    assert parse_overrides(["total_steps=20000", "progress=false", "eval-deals=5"]) == {
        "total_steps": 20000,
        "progress": False,
        "eval_deals": 5,
    }
    with pytest.raises(ConfigError, match="--set expects key=value, got 'total_steps'"):
        parse_overrides(["total_steps"])


def test_resume_mismatches_ignore_mutable_fields() -> None:
    saved = TrainConfig()
    assert TrainConfig(total_steps=10, eval_deals=3).resume_mismatches(saved) == []
    assert TrainConfig(hidden=64, learning_rate=1e-3).resume_mismatches(saved) == [
        "learning_rate",
        "hidden",
    ]


def test_doc_table_documents_every_field() -> None:
    table = TrainConfig.doc_table()
    for name in TrainConfig.field_names():
        assert f"| `{name}` |" in table


# ---------------------------------------------- NaN, infinity and bad baselines
NON_FINITE = [float("nan"), float("inf"), float("-inf")]


@pytest.mark.parametrize("value", NON_FINITE, ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize(
    "name",
    [
        "learning_rate",
        "clip_coef",
        "ent_coef",
        "vf_coef",
        "max_grad_norm",
        "gamma",
        "gae_lambda",
        "opponent_random",
        "opponent_heuristic",
        "opponent_snapshot",
    ],
)
def test_nan_and_infinity_are_refused_by_name(name: str, value: float) -> None:
    with pytest.raises(ConfigError, match=rf"TrainConfig\.{name}: must be a finite number"):
        TrainConfig.from_dict({name: value})


@pytest.mark.parametrize(
    ("game", "option"),
    [
        ("scum", "illegal_penalty"),
        ("scum_party", "illegal_penalty"),
        ("scandal", "illegal_penalty"),
        ("scandal", "reward_scale"),
    ],
)
def test_game_options_refuse_nan_and_infinity(game: str, option: str) -> None:
    for value in NON_FINITE:
        with pytest.raises(
            ConfigError, match=rf"TrainConfig\.options: .*{option}: must be a finite"
        ):
            TrainConfig.from_dict({"game": game, "options": {option: value}})


def test_probability_sum_check_is_nan_safe() -> None:
    config = TrainConfig()
    with pytest.raises(ConfigError, match="opponent_random: must be <= 1"):
        TrainConfig.from_dict(
            {**config.to_dict(), "opponent_random": 1.5, "opponent_snapshot": -0.8}
        )


def test_set_learning_rate_nan_is_a_config_error_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:

    for raw in (".nan", ".inf", "-.inf", "nan"):
        out = tmp_path / f"run_{raw}"
        assert _train_cli(out, f"learning_rate={raw}") == 2
        assert "TrainConfig.learning_rate" in capsys.readouterr().err
        assert not out.exists()


def _train_cli(out: Path, item: str) -> int:
    """``cardsuite train`` of the quick preset into ``out`` with one ``--set`` item."""
    from cardsuite.cli import main

    return main(["train", "--config", "train/scum_quick", "--set", item, "--out", str(out)])


@pytest.mark.parametrize(
    ("baselines", "message"),
    [
        ("random,nope", r"eval_against: unknown agent 'nope'"),
        ("random,ismcts:budgt=3", r"eval_against: .*budgt"),
        ("random,ismcts:budget=abc", r"eval_against: .*budget"),
        ("ppo:/no/such/run", r"/no/such/run.* not found"),
    ],
)
def test_bad_baselines_fail_before_any_work(
    baselines: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cardsuite.train.sb3.config import check_baselines

    with pytest.raises(CardsuiteError, match=message):
        check_baselines(TrainConfig.from_dict({"eval_against": baselines}))
    out = tmp_path / "run"
    assert _train_cli(out, f"eval_against={baselines}") == 2
    assert not out.exists()  # refused before the run directory was made


# ------------------------------------------ one override parser, ConfigBase types
def test_overrides_use_the_core_parser_and_name_unknown_fields() -> None:
    with pytest.raises(ConfigError, match=r"unknown config key 'total_step'.*'total_steps'"):
        load_config(None, parse_overrides(["total_step=5"]))
    assert parse_overrides(["options={illegal_penalty: 1}", "options.reward=centered"]) == {
        "options": {"illegal_penalty": 1, "reward": "centered"}
    }
    assert parse_overrides(["eval_against=random,heuristic"]) == {
        "eval_against": "random,heuristic"
    }


def test_train_config_uses_config_base_checks_only() -> None:
    import inspect

    import cardsuite.train.sb3.config as module

    source = inspect.getsource(module)
    assert "_check_type" not in source and "object.__setattr__" not in source
    assert "__post_init__" not in vars(TrainConfig)
    assert TrainConfig.from_dict({"game": "Scum-Party"}).game == "scum_party"
    assert TrainConfig.from_dict({"options": None}).options == {}
    with pytest.raises(ConfigError, match="write the game's name 'scum'"):
        TrainConfig(game="SCUM")
    with pytest.raises(ConfigError, match=r"TrainConfig.options: expected a mapping"):
        TrainConfig.from_dict({"options": "num_players=4"})
    options = {"reward": "points"}
    config = TrainConfig.from_dict({"options": options})
    options["reward"] = "centered"
    assert config.options == {"reward": "points"}  # the frozen config holds its own copy
    assert "| `options` | `dict` | `{}` |" in TrainConfig.doc_table()


def test_train_without_the_train_extra_names_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib

    import cardsuite.train.sb3.cli as cli
    from cardsuite.cli import main

    real = importlib.import_module

    def no_torch(name: str, package: str | None = None) -> object:
        if name == "cardsuite.train.sb3.trainer":
            raise ModuleNotFoundError("No module named 'torch'", name="torch")
        return real(name, package)

    monkeypatch.setattr(cli.importlib, "import_module", no_torch)
    out = tmp_path / "run"
    assert main(["train", "--config", "train/scum_quick", "--out", str(out)]) == 2
    assert "needs the train extra (torch is not installed): pip install 'cardsuite[train]'" in (
        capsys.readouterr().err
    )


def test_the_shared_flags_set_the_maskable_ppo_fields(tmp_path: Path) -> None:
    """`cardsuite train` takes the training commands' grammar; --players is num_players."""
    from cardsuite.cli import build_parser
    from cardsuite.train.sb3.cli import resolve_config

    parser, _ = build_parser()
    ns = parser.parse_args(["train", "--config", "scum_quick", "--players", "5", "--seed", "3",
                            "--device", "cpu", "--total-steps", "1000", "--budget-minutes", "2",
                            "--no-tensorboard", "--run-dir", str(tmp_path / "r")])  # fmt: skip
    config = resolve_config(ns)
    assert (config.num_players, config.seed, config.device, config.total_steps) == (
        5,
        3,
        "cpu",
        1000,
    )
    assert config.budget_minutes == 2.0 and config.tensorboard is False
    ns = parser.parse_args(["train", "--config", "scum_quick", "--tensorboard"])
    assert resolve_config(ns).tensorboard is True


@pytest.mark.parametrize(
    "cls_path", ["cardsuite.train.sb3.config:TrainConfig", "cardsuite.train.ppo.config:PPOConfig",
                 "cardsuite.train.dmc.config:DMCConfig",
                 "cardsuite.train.rllib.config:RLlibTrainConfig"],
)  # fmt: skip
def test_learning_rate_is_one_field_checked_once_everywhere(cls_path: str) -> None:
    """Same name, same check (> 0) in every trainer's config (RLlib's old `lr` is read as it)."""
    import importlib

    module, name = cls_path.split(":")
    cls = getattr(importlib.import_module(module), name)
    with pytest.raises(ConfigError, match=rf"{name}.learning_rate: must be > 0, got 0.0"):
        cls.from_dict({"learning_rate": 0.0})
    assert cls.from_dict({"learning_rate": 0.01}).learning_rate == 0.01
    field = {f.name: f for f in dataclasses.fields(cls)}["learning_rate"]
    assert field.metadata["bounds"] == {"gt": 0.0}
