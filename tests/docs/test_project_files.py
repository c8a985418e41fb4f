"""The project's metadata files agree with each other and with pyproject.toml (issue 23).

CITATION.cff is valid CFF 1.2.0 YAML with its required keys and the package's
version; CHANGELOG.md has an Unreleased section and one per released
version; LICENSE is the MIT licence pyproject names; .ci/lower-bounds.txt
pins exactly the lower bound of every core dependency, so the CI job that
installs it tests the oldest versions pyproject.toml allows.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_citation_cff_has_the_required_keys_and_the_package_version() -> None:
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors"):  # required by the CFF 1.2.0 schema
        assert cff[key], key
    assert all("name" in a or "family-names" in a for a in cff["authors"])
    assert str(cff["version"]) == PYPROJECT["version"]
    assert cff["license"] == PYPROJECT["license"]


def test_changelog_has_unreleased_and_the_current_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## (\S+)", text, flags=re.MULTILINE)
    assert versions[0] == "Unreleased"
    assert PYPROJECT["version"] in versions
    assert "0.1.0" in versions


def test_license_is_the_mit_licence_pyproject_names() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert PYPROJECT["license"] == "MIT"
    assert text.startswith("MIT License")
    assert "cardsuite contributors" in text


def test_lower_bounds_file_pins_every_core_lower_bound() -> None:
    bounds = {}
    for raw in PYPROJECT["dependencies"]:
        req = Requirement(raw)
        lows = [s.version for s in req.specifier if s.operator == ">="]
        assert len(lows) == 1, f"core dependency {raw!r} needs exactly one >= lower bound"
        bounds[req.name.lower()] = lows[0]
    pins = {}
    for line in (ROOT / ".ci" / "lower-bounds.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[name.lower()] = version
    # "1.0" and "1.0.0" are the same bound; compare as versions.
    assert set(pins) == set(bounds)
    assert {n: Version(v) for n, v in pins.items()} == {n: Version(v) for n, v in bounds.items()}


def test_user_facing_extras_take_ranges_not_exact_pins() -> None:
    """Exact pins belong to .ci/constraints.txt; only the dev tools are pinned."""
    pinned = [
        f"{extra}: {raw}"
        for extra, reqs in PYPROJECT["optional-dependencies"].items()
        if extra != "dev"
        for raw in reqs
        if any(s.operator == "==" for s in Requirement(raw).specifier)
    ]
    assert pinned == []


def test_ci_setup_installs_with_the_constraints_file() -> None:
    setup = (ROOT / ".ci" / "setup").read_text(encoding="utf-8")
    assert "-c .ci/constraints.txt" in setup
    constraints = (ROOT / ".ci" / "constraints.txt").read_text(encoding="utf-8")
    assert re.search(r"^torch==2\.13\.0$", constraints, flags=re.MULTILINE)
    assert "bash .ci/lower-bounds" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
