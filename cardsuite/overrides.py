"""One override parser for every config: game options, training and RLlib configs.

``--key value`` / ``--key=value`` tokens (`parse_flags`) and ``key=value``
items (`parse_assignments`; ``options.NAME`` sets one rule option) reach the
same reader. Keys may use ``-`` or ``_``; values are YAML scalars or flow
collections read by the strict YAML loader (``1e-3`` is a number), anything
else stays a string. An unknown key is a [`ConfigError`][cardsuite.errors.ConfigError]
naming it (with the closest valid key), before any value is read.
`merge_overrides` applies the result to a file's mapping.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cardsuite.errors import ConfigError
from cardsuite.safe_yaml import YamlLimitError, brief, load_yaml_text

__all__ = ["merge_overrides", "parse_assignments", "parse_flags", "read_value"]

NESTED = "options"
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+")


def read_value(raw: str, source: str = "override") -> Any:
    """The YAML value of ``raw`` (``"5"`` -> 5, ``".nan"`` -> nan), else ``raw`` itself.

    Raises:
        YamlLimitError: ``raw`` is beyond the YAML loader's limits (an alias
            bomb, nesting too deep); the message names ``source``.
    """
    try:
        value = load_yaml_text(raw, source)
    except YamlLimitError:
        raise
    except ConfigError:
        return raw
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        return float(value)  # YAML 1.1 reads 1e-3 (no dot) as a string
    return value


def _shown(key: str) -> str:
    """A key as messages show it: cut to a few dozen characters."""
    return key if len(key) <= 40 else key[:37] + "..."


def _key(raw: str) -> str:
    return raw.strip().replace("-", "_")


def _check_key(key: str, fields: Sequence[str] | None, what: str, prefix: str) -> None:
    if fields is None or key in fields:
        return
    hint = difflib.get_close_matches(key[:100], list(fields), n=1)
    suggestion = f" (did you mean {prefix}{hint[0]}?)" if hint else ""
    raise ConfigError(
        f"unknown option {prefix}{_shown(key)} for {what}{suggestion}; options: "
        + ", ".join(f"{prefix}{f}" for f in fields)
    )


def parse_flags(
    tokens: Iterable[str], fields: Sequence[str] | None, *, what: str
) -> dict[str, Any]:
    """Turn ``["--carousel", "true", "--trade_rules=spanish"]`` into ``{name: value}``.

    Args:
        tokens: the command-line tokens.
        fields: the valid keys (None: any key).
        what: the config's name for messages (``"scum"``).

    Raises:
        ConfigError: a token that is not ``--key``, an unknown key (checked
            before its value), a key given twice, or a key without a value.
    """
    items = list(tokens)
    out: dict[str, Any] = {}
    i = 0
    while i < len(items):
        token = items[i]
        if not token.startswith("--") or len(token) < 3:
            raise ConfigError(f"expected an option like --key value, got {brief(token)}")
        name, eq, raw = token[2:].partition("=")
        key = _key(name)  # only the key: a value keeps its dashes
        _check_key(key, fields, what, "--")
        if key in out:
            raise ConfigError(f"option --{_shown(key)} given twice")
        if eq:
            i += 1
        elif i + 1 < len(items):
            raw = items[i + 1]
            i += 2
        else:
            raise ConfigError(f"option --{_shown(key)} needs a value")
        out[key] = read_value(raw, f"--{_shown(key)}")
    return out


def parse_assignments(
    items: Iterable[str],
    fields: Sequence[str] | None = None,
    *,
    what: str = "the config",
    flag: str = "--set",
) -> dict[str, Any]:
    """Turn ``["total_steps=20000", "options.num_players=5"]`` into field values.

    ``options.NAME=value`` sets one rule option (merged over ``options={...}``
    when both are given).

    Raises:
        ConfigError: an item that is not ``key=value``, or a key ``fields``
            does not hold.
    """
    out: dict[str, Any] = {}
    nested: dict[str, Any] = {}
    for item in items:
        name, sep, raw = str(item).partition("=")
        key = _key(name)
        if not sep or not key:
            raise ConfigError(f"{flag} expects key=value, got {brief(item)}")
        if key.startswith(f"{NESTED}."):
            nested[key.split(".", 1)[1]] = read_value(raw, f"{flag} {_shown(key)}")
            continue
        _check_key(key, fields, what, "")
        out[key] = read_value(raw, f"{flag} {_shown(key)}")
    if nested:
        base = out.get(NESTED) or {}
        if not isinstance(base, Mapping):
            raise ConfigError(f"{flag} {NESTED}=... expects a mapping, got {brief(base)}")
        out[NESTED] = {**base, **nested}
    return out


def merge_overrides(
    base: Mapping[str, Any], overrides: Mapping[str, Any], source: str | None = None
) -> dict[str, Any]:
    """``base`` with ``overrides`` applied; the ``options`` mappings merge entry by entry.

    Raises:
        ConfigError: ``base`` holds an ``options`` that is not a mapping while
            the overrides set some options.
    """
    data = dict(base)
    for key, value in overrides.items():
        if key == NESTED and isinstance(value, Mapping):
            current = data.get(NESTED) or {}
            if not isinstance(current, Mapping):
                where = f"{source}: " if source else ""
                raise ConfigError(f"{where}{NESTED} must be a mapping, got {brief(current)}")
            data[NESTED] = {**current, **value}
        else:
            data[key] = value
    return data
