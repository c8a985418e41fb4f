"""CLI mistakes get one line naming the real problem (issue 12).

Agent parameters name the agent and the parameter; a misspelt rule option is
an unknown option; a core install without the ``train`` extra says which
extra to install instead of raising ModuleNotFoundError.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cardsuite.agents.registry import make_agent
from cardsuite.cli import main
from cardsuite.errors import ConfigError

TRAIN_MODULES = ("torch", "stable_baselines3", "sb3_contrib", "safetensors", "tensorboard")


def one_error_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ": error: " in err, err
    return err


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ismcts:budget=abc", "ismcts parameter budget must be an integer >= 1, got 'abc'"),
        ("ismcts:budget=0", "ismcts parameter budget must be an integer >= 1, got 0"),
        ("ismcts:budget=true", "ismcts parameter budget must be an integer >= 1, got True"),
        ("ismcts:c=.nan", "ismcts parameter c must be a finite number >= 0, got nan"),
        ("ismcts:cutoff=1.5", "ismcts parameter cutoff must be an integer >= 0"),
        ("ismcts:budgt=3", "unknown ismcts parameter 'budgt' (did you mean 'budget'?)"),
    ],
)
def test_ismcts_parameters_name_the_agent_and_parameter(
    spec: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ConfigError) as info:
        make_agent(spec, "scum")
    assert message in str(info.value) and "heuristic parameter" not in str(info.value)
    argv = ["tournament", "--game", "scum", "--agents", spec, "random", "--games", "1"]
    err = one_error_line(argv, capsys)
    assert message in err


def test_a_misspelt_option_is_unknown_not_valueless(capsys: pytest.CaptureFixture[str]) -> None:
    err = one_error_line(
        ["tournament", "--game", "scum", "--agents", "random", "random", "--dupliate"], capsys
    )
    assert "unknown option --dupliate: not a flag of this command (see --help), nor a " in err
    assert "rule option of scum (--rule KEY=VALUE: num_players, trade_rules, carousel" in err
    err = one_error_line(["simulate", "--game", "scum", "--carousle", "true"], capsys)
    assert "unknown option --carousle (did you mean --rule carousel=...?)" in err
    err = one_error_line(
        ["simulate", "--game", "scum", "--rule", "carousel=true", "--rule", "carousel=false"],
        capsys,
    )
    assert "rule option carousel given twice (--rule carousel=...)" in err
    err = one_error_line(["simulate", "--game", "scum", "--rule", "carousel"], capsys)
    assert "--rule expects key=value, got 'carousel'" in err
    err = one_error_line(["simulate", "--game", "scum", "--rule", "carusel=true"], capsys)
    assert "unknown option carusel for scum (did you mean carousel?)" in err
    err = one_error_line(["simulate", "--game", "scum", "--seed", "-1"], capsys)
    assert "--seed must be a non-negative integer, got -1" in err


@pytest.fixture
def no_train_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """A core install: the train extra's modules cannot be imported."""
    for name in list(sys.modules):
        top = name.split(".")[0]
        if top in TRAIN_MODULES or name.startswith(("cardsuite.train.", "train.")):
            monkeypatch.delitem(sys.modules, name)
    for name in TRAIN_MODULES:
        monkeypatch.setitem(sys.modules, name, None)  # import raises ModuleNotFoundError


def test_ppo_agents_name_the_train_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cardsuite.agents.learned.policy import PPOAgent

    def load_needing_torch(*args: object, **kwargs: object) -> None:
        import torch  # noqa: F401  (blocked below: a core install)

    monkeypatch.setattr(PPOAgent, "load", classmethod(load_needing_torch))
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(
        ConfigError, match=r"ppo agents need the train extra \(pip install cardsuite\[train\]\)"
    ):
        make_agent(f"ppo:{tmp_path}", "scum")


@pytest.mark.usefixtures("no_train_extra")
def test_train_names_the_train_extra(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "train",
        "--config",
        "configs/train/scum_quick.yaml",
        "--run-dir",
        str(tmp_path / "run"),
    ]
    err = one_error_line(argv, capsys)
    assert "pip install 'cardsuite[train]'" in err and "ModuleNotFoundError" not in err
