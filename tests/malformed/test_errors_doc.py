"""The error classes are documented in one place and importable from every env module."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

import cardsuite.errors as errors

ENV_MODULES = ("scum_env.scum_v0", "scum_env.scum_party_v0", "scandal_env.scandal_v0")
ENV_ERRORS: tuple[str, ...] = ("CardsuiteError", "ConfigError", "DeckError", "IllegalActionError")
ENV_ERRORS += ("PresetError", "StateError", "UsageError")


def error_classes() -> list[str]:
    return [
        name
        for name, obj in vars(errors).items()
        if inspect.isclass(obj) and issubclass(obj, errors.CardsuiteError)
    ]


def test_every_error_class_is_in_docs_errors_md() -> None:
    text = (Path(__file__).parents[2] / "docs" / "errors.md").read_text(encoding="utf-8")
    for name in error_classes():
        assert f"| `{name}` |" in text, f"docs/errors.md lacks a row for {name}"


@pytest.mark.parametrize("module", ENV_MODULES)
def test_env_modules_re_export_the_errors(module: str) -> None:
    mod = importlib.import_module(module)
    for name in ENV_ERRORS:
        assert getattr(mod, name) is getattr(errors, name)
        assert name in mod.__all__
    from scum_env.scum_v0 import PresetError  # the form the docs show

    assert PresetError is errors.PresetError
