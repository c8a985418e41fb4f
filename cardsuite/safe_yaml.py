"""Reading YAML the safe way: no code, no duplicate keys, bounded size and depth.

Every YAML file cardsuite reads (game, training and RLlib configs, deck
files, presets) goes through :func:`load_yaml_text` or :func:`read_yaml_file`:

* :class:`StrictLoader` is a :class:`yaml.SafeLoader` (plain data only, no
  Python objects); it also refuses a key given twice in one mapping (plain
  ``yaml.safe_load`` keeps the last one silently) and nesting deeper than
  :data:`MAX_DEPTH` (no ``RecursionError``);
* the text must be UTF-8 and a file at most :data:`MAX_YAML_BYTES`, a regular
  file (never a device or FIFO).

Every problem is a :class:`~cardsuite.errors.ConfigError` whose one-line
message names the file, and the key or line where it can.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import yaml

from cardsuite.errors import ConfigError

MAX_YAML_BYTES = 1 << 20  # configs, decks and presets are a few kB
MAX_DEPTH = 64

_MERGE_TAG = "tag:yaml.org,2002:merge"


class _StrictProblem(yaml.YAMLError):
    """A duplicate key or too-deep nesting, with a message ready for the user."""


class StrictLoader(yaml.SafeLoader):
    """A SafeLoader that refuses duplicate mapping keys and deep nesting."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise _StrictProblem(
                    f"nested deeper than {MAX_DEPTH} levels (line {mark.line + 1})"
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            first_line: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue  # '<<' merges may be overridden by explicit keys
                key = self.construct_object(key_node, deep=True)
                try:
                    seen = first_line.get(key)
                except TypeError:
                    continue  # an unhashable key: SafeLoader reports it
                line = key_node.start_mark.line + 1
                if seen is not None:
                    raise _StrictProblem(f"duplicate key {key!r} (lines {seen} and {line})")
                first_line[key] = line
        return super().construct_mapping(node, deep=deep)


def load_yaml_text(text: str | bytes, source: str) -> Any:
    """Parse YAML text with :class:`StrictLoader`; ConfigError naming ``source`` if it is bad."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ConfigError(f"{source}: not valid UTF-8 (byte {err.start})") from None
    try:
        return yaml.load(text, Loader=StrictLoader)
    except _StrictProblem as err:
        raise ConfigError(f"{source}: {err}") from None
    except yaml.YAMLError as err:
        raise ConfigError(f"{source} is not valid YAML: {_one_line(err)}") from None
    except RecursionError:
        raise ConfigError(f"{source}: nested deeper than {MAX_DEPTH} levels") from None


def read_yaml_file(path: str | Path, what: str = "config file") -> Any:
    """The YAML data of a regular file of at most :data:`MAX_YAML_BYTES`; ConfigError otherwise."""
    source = Path(path)
    try:
        info = os.stat(source)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"{what} {source} is not a regular file")
        if info.st_size > MAX_YAML_BYTES:
            raise ConfigError(
                f"{what} {source} is {info.st_size} bytes; the limit is {MAX_YAML_BYTES}"
            )
        raw = source.read_bytes()
    except OSError as err:
        raise ConfigError(f"cannot read {what} {source}: {err.strerror}") from None
    return load_yaml_text(raw, f"{what} {source}")


def _one_line(err: yaml.YAMLError) -> str:
    """A YAML error on one line (PyYAML's messages span several)."""
    return " ".join(str(err).split())
