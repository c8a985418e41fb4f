"""Frozen, validated configs, loadable from YAML.

Every config is a frozen dataclass deriving from [`ConfigBase`][cardsuite.ConfigBase]
whose fields carry a one-line ``doc``. Construction checks every value against
its annotation (``int``, finite ``float``, ``bool``, ``str``, ``Literal[...]``,
``X | None``, ``dict[str, Any]``), then `validate` checks ranges and
combinations: a bad config fails at once with a
[`ConfigError`][cardsuite.errors.ConfigError] naming the field.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import types
import typing
from collections.abc import Mapping
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any, Literal, Self, Union, get_args, get_origin

from cardsuite.errors import ConfigError
from cardsuite.safe_yaml import brief, load_yaml_text, read_yaml_file

__all__ = [
    "ConfigBase",
    "doc_field",
    "illegal_action_field",
    "illegal_penalty_field",
    "load_yaml_text",
    "read_yaml_mapping",
    "resolve_config",
    "shipped_configs",
]


def doc_field(
    default: Any, doc: str, *, gt: float | None = None, ge: float | None = None,
    le: float | None = None,
) -> Any:  # fmt: skip
    """A dataclass field with a default, a documentation line and an optional range.

    ``gt`` / ``ge`` / ``le`` bound a number (checked by `ConfigBase` for every
    config that declares the field, with a ConfigError naming it).
    """
    bounds = {k: v for k, v in (("gt", gt), ("ge", ge), ("le", le)) if v is not None}
    meta = {"doc": doc, **({"bounds": bounds} if bounds else {})}
    return dataclasses.field(default=default, metadata=meta)


def illegal_action_field() -> Any:
    """The ``illegal_action`` field every game config shares (default ``"raise"``)."""
    return doc_field(
        "raise",
        "`raise` an IllegalActionError (raw_env), or `penalize`: the offender gets "
        "`illegal_penalty` and the episode ends (env() default)",
    )


def illegal_penalty_field() -> Any:
    """The ``illegal_penalty`` field every game config shares (default -1)."""
    return doc_field(-1.0, "reward of an agent whose action was illegal")


def _check_bounds(where: str, value: Any, bounds: Mapping[str, float]) -> None:
    """A number outside the field's declared range is a ConfigError naming the field."""
    if value is None or isinstance(value, bool):
        return
    if "gt" in bounds and not value > bounds["gt"]:
        raise ConfigError(f"{where}: must be > {bounds['gt']:g}, got {brief(value)}")
    if "ge" in bounds and not value >= bounds["ge"]:
        raise ConfigError(f"{where}: must be >= {bounds['ge']:g}, got {brief(value)}")
    if "le" in bounds and not value <= bounds["le"]:
        raise ConfigError(f"{where}: must be <= {bounds['le']:g}, got {brief(value)}")


@dataclasses.dataclass(frozen=True)
class ConfigBase:
    """Base class of the suite's frozen config dataclasses."""

    def __post_init__(self) -> None:
        """Check every field's type, coerce ints to floats, then `validate`."""
        hints = typing.get_type_hints(type(self))
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            checked = _check_type(self._where(f.name), value, hints[f.name])
            if checked is not value:
                object.__setattr__(self, f.name, checked)
            if "bounds" in f.metadata:
                _check_bounds(self._where(f.name), checked, f.metadata["bounds"])
        self.validate()

    def validate(self) -> None:
        """Check ranges and combinations of values; raise ConfigError if wrong."""

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The names of every config field, in declaration order."""
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None) -> Self:
        """Build a config from a mapping, rejecting unknown keys by name.

        Args:
            data: field values; missing fields take their defaults.
            source: where the mapping came from (a file name), for messages.
        """
        where = f" in {source}" if source else ""
        if not isinstance(data, Mapping):
            raise ConfigError(
                f"{cls.__name__}{where}: expected a mapping of option names to "
                f"values, got {type(data).__name__}"
            )
        names = cls.field_names()
        for key in data:
            if key not in names:
                hint = difflib.get_close_matches(str(key)[:100], names, n=1)
                suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
                raise ConfigError(
                    f"unknown config key {brief(key)} for {cls.__name__}{where}{suggestion}; "
                    f"valid keys: {', '.join(names)}"
                )
        try:
            return cls(**data)
        except ConfigError as err:
            if source:
                raise ConfigError(f"{source}: {err}") from None
            raise

    @classmethod
    def from_yaml(cls, path: str | Path, **overrides: Any) -> Self:
        """Load a config from a YAML file; ``overrides`` win over the file."""
        data = read_yaml_mapping(path)
        return cls.from_dict({**data, **overrides}, source=str(path))

    def replace(self, **changes: Any) -> Self:
        """A copy with some fields changed (validated like a new config)."""
        return type(self).from_dict({**self.to_dict(), **changes})

    def to_dict(self) -> dict[str, Any]:
        """The config as a plain dict (JSON/YAML friendly)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def doc_table(cls) -> str:
        """A Markdown table of every field: name, type, default, meaning."""
        hints = typing.get_type_hints(cls)
        rows = ["| option | type | default | meaning |", "|---|---|---|---|"]
        for f in dataclasses.fields(cls):
            kind = _type_name(hints[f.name]).replace("|", "\\|")  # a pipe would split the cell
            default = f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
            doc = f.metadata.get("doc", "")
            bounds = f.metadata.get("bounds", {})
            if bounds:
                signs = {"gt": ">", "ge": ">=", "le": "<="}
                doc += " (" + ", ".join(f"{signs[k]} {v:g}" for k, v in bounds.items()) + ")"
            rows.append(f"| `{f.name}` | `{kind}` | `{default!r}` | {doc} |")
        return "\n".join(rows)

    def _where(self, name: str) -> str:
        return f"{type(self).__name__}.{name}"

    def _fail(self, name: str, message: str) -> typing.NoReturn:
        """Raise a ConfigError naming field ``name`` (``message`` cut to 200 characters)."""
        if len(message) > 200:
            message = message[:197] + "..."
        raise ConfigError(f"{self._where(name)}: {message}")


def shipped_configs() -> list[str]:
    """The names of the presets shipped in the package (``scum/six_players``, ...)."""
    root = files("cardsuite.configs")
    names = []
    for folder in root.iterdir() if root.is_dir() else []:
        if folder.is_dir():
            names += [
                f"{folder.name}/{f.name[:-5]}" for f in folder.iterdir() if f.name.endswith(".yaml")
            ]
    return sorted(names)


def resolve_config(path: str | Path) -> Path:
    """A config file's path: a file that exists, or a shipped preset by name.

    ``scum/six_players`` (or ``train/scum_quick``, with or without ``.yaml``)
    names a preset of ``configs/`` shipped inside the package. Anything else is
    returned as given (reading it then fails with a ConfigError naming it).
    """
    given = Path(path)
    if given.exists():
        return given
    name = str(path).removesuffix(".yaml").removeprefix("configs/")
    if name in shipped_configs():
        with as_file(files("cardsuite.configs") / f"{name}.yaml") as found:
            return Path(found)
    return given  # reading it then fails with a ConfigError naming the file


def read_yaml_mapping(path: str | Path) -> dict[str, Any]:
    """The mapping a YAML config file (or a shipped preset, `resolve_config`) holds;
    an empty file is ``{}``. Read with `cardsuite.safe_yaml.read_yaml_file`.

    Raises:
        ConfigError: the file cannot be read, is not YAML, repeats a key, or
            is not a mapping; the message names the file (and the key).
    """
    path = resolve_config(path)
    data = read_yaml_file(path, "config file")
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"config file {path} must hold a mapping of option names to values")
    return dict(data)


def _type_name(tp: Any) -> str:
    origin = get_origin(tp)
    if origin is Literal:
        return " | ".join(repr(a) for a in get_args(tp))
    if origin in (Union, types.UnionType):
        return " | ".join(_type_name(a) for a in get_args(tp))
    if tp is type(None):
        return "None"
    return getattr(tp, "__name__", str(tp))


def _check_type(where: str, value: Any, tp: Any) -> Any:
    """Return ``value`` (ints coerced to float where a float is expected) or raise."""
    origin = get_origin(tp)
    if origin is Literal:
        allowed = get_args(tp)
        if value in allowed and type(value) is type(allowed[allowed.index(value)]):
            return value
        raise ConfigError(f"{where}: {brief(value)} is not one of {', '.join(map(repr, allowed))}")
    if origin in (Union, types.UnionType):
        for arg in get_args(tp):
            try:
                return _check_type(where, value, arg)
            except ConfigError:
                pass
        raise ConfigError(
            f"{where}: expected {_type_name(tp)}, got {type(value).__name__} {brief(value)}"
        )
    if origin is dict:
        if isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
            return dict(value)  # a copy: the frozen config owns it
        raise ConfigError(
            f"{where}: expected a mapping of names to values, "
            f"got {type(value).__name__} {brief(value)}"
        )
    if tp is type(None):
        if value is None:
            return value
    elif tp is bool:
        if isinstance(value, bool):
            return value
    elif tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif tp is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise ConfigError(f"{where}: must be a finite number, got {brief(value)}")
            return float(value)
    elif tp is str:
        if isinstance(value, str):
            return value
    else:
        raise TypeError(f"{where}: unsupported config annotation {tp!r}")
    raise ConfigError(
        f"{where}: expected {_type_name(tp)}, got {type(value).__name__} {brief(value)}"
    )
