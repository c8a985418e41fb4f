"""Packaging (issues 13, 20): the API cannot be shadowed, presets ship, no links, old paths retired."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
import zipfile
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

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
            from cardsuite.train.sb3.config import TrainConfig
            import cardsuite.train.sb3.single_seat as wrappers
            from scum_env import scum_v0

            assert wrappers.__name__ == "cardsuite.train.sb3.single_seat"
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


@pytest.mark.parametrize(
    ("old", "new"),
    [("agents", "cardsuite.agents"), ("train", "cardsuite.train"), ("scum_env.suite", None)],
)
def test_the_pre_0_2_import_paths_are_retired(old: str, new: str | None) -> None:
    # From a checkout the folders agents/ and train/ are importable by their
    # bare names; they refuse, naming the new package, instead of loading a
    # second copy of every module.
    code = f"import {old}"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 1
    if new is None:
        assert f"No module named '{old}'" in done.stderr
    else:
        assert f"'{old}' was retired in cardsuite 0.3; import '{new}' instead" in done.stderr


def test_no_symlink_is_tracked() -> None:
    # Links do not survive every checkout (Windows, some archive tools): the
    # packages are mapped by setuptools' package-dir instead (mode 120000 = link).
    listed = subprocess.run(
        ["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    links = [line.split("\t")[-1] for line in listed.splitlines() if line.startswith("120000")]
    assert links == []


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_package_folder_is_listed_and_mapped() -> None:
    # setuptools installs exactly the listed packages: a new package folder
    # that is not listed would be missing from the wheel (editable installs
    # would still find it, so only this test tells).
    tool = _pyproject()["tool"]["setuptools"]
    package_dir: dict[str, str] = tool["package-dir"]
    assert package_dir == {
        "": ".",
        "cardsuite.agents": "agents",
        "cardsuite.train": "train",
        "cardsuite.configs": "configs",
    }
    expected = set()
    for top, name in [
        ("cardsuite", "cardsuite"),
        ("scum_env", "scum_env"),
        ("scandal_env", "scandal_env"),
        ("agents", "cardsuite.agents"),
        ("train", "cardsuite.train"),
        ("configs", "cardsuite.configs"),
    ]:
        for init in (ROOT / top).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / top).parts
            expected.add(".".join((name, *rel)))
    assert set(tool["packages"]) == expected


def test_installed_packages_come_from_the_top_level_folders() -> None:
    import cardsuite.agents
    import cardsuite.configs
    import cardsuite.train

    for module, folder in [
        (cardsuite.agents, "agents"),
        (cardsuite.train, "train"),
        (cardsuite.configs, "configs"),
    ]:
        assert Path(module.__file__ or "").resolve().parent == (ROOT / folder).resolve()


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
    assert "cardsuite/train/sb3/config.py" in names
    assert "cardsuite/agents/play/web/static/index.html" in names
    assert "cardsuite/agents/learned/models/scum4/weights.safetensors" in names
    assert "cardsuite/agents/learned/models/scum4/agent.json" in names
    assert "cardsuite/configs/train/scum_quick.yaml" in names
    assert "scandal_env/data/deck.json" in names
