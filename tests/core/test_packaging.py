"""Packaging (issue 13): the installed API cannot be shadowed, presets ship, old paths warn."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings
import zipfile
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import cardsuite
from cardsuite.config import read_yaml_mapping, resolve_config, shipped_configs
from cardsuite.errors import ConfigError
from scum_env.config import ScumConfig

ROOT = Path(__file__).resolve().parents[2]


def test_a_users_train_py_and_agents_folder_do_not_shadow_the_suite(tmp_path: Path) -> None:
    # A typical RL project folder: its own train.py and agents/ package.
    (tmp_path / "train.py").write_text("raise SystemExit('the user train.py was imported')\n")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("MINE = True\n")
    script = tmp_path / "experiment.py"
    script.write_text(
        textwrap.dedent(
            """
            import agents  # the user's own package
            assert agents.MINE
            from cardsuite.agents.registry import make_agent
            from cardsuite.games import get_game
            from cardsuite.train.config import TrainConfig
            import cardsuite.train.wrappers as wrappers
            from scum_env import scum_v0

            assert wrappers.__name__ == "cardsuite.train.wrappers"
            env = scum_v0.env()
            env.reset(seed=0)
            agent = make_agent("heuristic", "scum", seed=0)
            print("ok", get_game("scum").name, TrainConfig.__name__)
            """
        )
    )
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok scum TrainConfig"


def test_cardsuite_version_is_the_distribution_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cardsuite.cli", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert done.stdout.strip() == f"cardsuite {cardsuite.__version__}"
    assert cardsuite.__version__ != "0+unknown"


def test_presets_are_read_by_name() -> None:
    assert "scum/six_players" in shipped_configs()
    assert "train/scum_quick" in shipped_configs()
    assert ScumConfig.from_yaml("scum/six_players").num_players == 6
    assert read_yaml_mapping("train/scum_quick.yaml")["game"] == "scum"
    assert resolve_config("configs/scum/six_players.yaml").is_file()
    with pytest.raises(ConfigError, match=r"cannot read config file scum/sixx_players"):
        read_yaml_mapping("scum/sixx_players")


def test_registries_are_entry_points() -> None:
    def names(group: str) -> set[str]:
        return {ep.name for ep in entry_points(group=group)}

    assert {"scum", "scum_party", "scandal"} <= names("cardsuite.games")
    assert {"simulate", "tournament", "play", "replay", "train"} <= names("cardsuite.commands")
    assert {"ppo", "rllib"} <= names("cardsuite.agents")


def test_old_import_paths_warn_and_give_the_same_modules() -> None:
    import cardsuite.agents.registry
    import cardsuite.errors

    code = textwrap.dedent(
        """
        import warnings
        warnings.simplefilter("error", DeprecationWarning)
        for name in ("scum_env.suite.errors", "agents.registry", "train.config", "agents.cli"):
            try:
                __import__(name)
            except DeprecationWarning as w:
                print(name, "warns")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.split("\n")[:4] == [
        "scum_env.suite.errors warns",
        "agents.registry warns",
        "train.config warns",
        "agents.cli warns",
    ], done.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from scum_env.suite.errors import ConfigError as OldConfigError

        from agents import registry as old_registry  # type: ignore[import-not-found]

    assert old_registry is cardsuite.agents.registry
    assert OldConfigError is cardsuite.errors.ConfigError


@pytest.mark.slow
def test_the_wheel_ships_presets_and_types_and_no_top_level_agents_or_train(
    tmp_path: Path,
) -> None:
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 69:  # pyproject's build requirement
        pytest.skip(f"building the wheel needs setuptools>=69, found {setuptools.__version__}")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (wheel,) = tmp_path.glob("cardsuite-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if "dist-info" not in n}
    assert tops == {"cardsuite", "scum_env", "scandal_env"}
    assert "cardsuite/py.typed" in names
    assert "cardsuite/configs/scum/six_players.yaml" in names
    assert "cardsuite/agents/registry.py" in names
    assert "cardsuite/train/config.py" in names
