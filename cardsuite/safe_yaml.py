"""Reading YAML the safe way: no code, no duplicate keys, bounded size and depth.

Every YAML file cardsuite reads (configs, deck files, presets) goes through
[`load_yaml_text`][cardsuite.safe_yaml.load_yaml_text] or `read_yaml_file`:
`StrictLoader` is a `yaml.SafeLoader` that also refuses a key given twice,
nesting deeper than `MAX_DEPTH`, an alias inside its own anchor and aliases
expanding to more than `MAX_ALIAS_NODES` nodes (the "billion laughs"), measured
while composing, before any value is built; files are UTF-8 regular files of
at most `MAX_YAML_BYTES`. Every problem is a `ConfigError` naming the file
(`YamlLimitError` for a limit); messages echo input only through `brief`.
Anchors and aliases stay allowed: a real config expands to a few hundred nodes.
"""

from __future__ import annotations

import os
import reprlib
import stat
from pathlib import Path
from typing import Any

import yaml

from cardsuite.errors import ConfigError

MAX_YAML_BYTES = 1 << 20  # configs, decks and presets are a few kB
MAX_DEPTH = 64
MAX_ALIAS_NODES = 10_000  # nodes that all aliases of one document may expand to
BRIEF_CHARS = 60  # the most characters of a value an error message echoes

_MERGE_TAG = "tag:yaml.org,2002:merge"


class YamlLimitError(ConfigError):
    """YAML text beyond a limit: nesting too deep, or aliases expanding too far."""


def brief(value: Any, limit: int = BRIEF_CHARS) -> str:
    """``repr(value)`` cut to at most ``limit`` characters, for error messages.

    Built piece by piece (``reprlib``), so a huge or self-containing value
    costs no more than its first pieces.

    Example:
        >>> brief("x" * 1000, limit=12)
        "'xxx...xxxx'"
        >>> brief(list(range(1000)))
        '[0, 1, 2, 3, 4, 5, 6, 7, ...]'
    """
    short = reprlib.Repr()
    short.maxlevel = 3
    short.maxlist = short.maxdict = short.maxtuple = short.maxset = 8
    short.maxstring = short.maxother = short.maxlong = limit
    try:
        text = short.repr(value)
    except ValueError:  # an int past Python's 4300-digit str limit
        text = f"<{type(value).__name__} of {value.bit_length()} bits>"
    return text if len(text) <= limit else text[: max(limit - 3, 1)] + "..."


class _StrictProblem(yaml.YAMLError):
    """A duplicate key, with a message ready for the user."""


class _LimitProblem(_StrictProblem):
    """Too-deep nesting or too many alias expansions."""


class StrictLoader(yaml.SafeLoader):
    """A SafeLoader that refuses duplicate keys, deep nesting and alias bombs.

    Every finished node records its expanded size and depth; an alias adds
    its target's to the document's alias total and to the current depth.
    """

    _depth = 0

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._measure: dict[int, tuple[int, int]] = {}  # id(node) -> (size, depth)
        self._alias_nodes = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            line = self.peek_event().start_mark.line + 1  # type: ignore[no-untyped-call]
            if self._depth > MAX_DEPTH:
                raise _LimitProblem(f"nested deeper than {MAX_DEPTH} levels (line {line})")
            if self.check_event(yaml.AliasEvent):
                return self._alias(parent, index, line)
            node = super().compose_node(parent, index)
            self._measure[id(node)] = self._size_and_depth(node)
            return node
        finally:
            self._depth -= 1

    def _alias(self, parent: Any, index: Any, line: int) -> Any:
        node = super().compose_node(parent, index)  # undefined alias: ComposerError
        measured = self._measure.get(id(node))
        if measured is None:
            raise _LimitProblem(f"alias on line {line} refers to its own anchor")
        size, depth = measured
        self._alias_nodes += size
        if self._alias_nodes > MAX_ALIAS_NODES:
            raise _LimitProblem(
                f"aliases expand to more than {MAX_ALIAS_NODES} nodes (line {line}); "
                "a config never needs that many"
            )
        if self._depth - 1 + depth > MAX_DEPTH:
            raise _LimitProblem(f"nested deeper than {MAX_DEPTH} levels (alias on line {line})")
        return node

    def _size_and_depth(self, node: Any) -> tuple[int, int]:
        """Expanded size and depth of a node whose children are all measured."""
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            return 1, 1
        size, depth = 1, 1
        for child in children:
            child_size, child_depth = self._measure.get(id(child), (1, 1))
            size += child_size
            depth = max(depth, child_depth + 1)
        return size, depth

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
                    raise _StrictProblem(f"duplicate key {brief(key)} (lines {seen} and {line})")
                first_line[key] = line
        return super().construct_mapping(node, deep=deep)


def load_yaml_text(text: str | bytes, source: str) -> Any:
    """Parse YAML text with `StrictLoader`; a ConfigError naming ``source`` if it is bad.

    Raises:
        YamlLimitError: nesting deeper than `MAX_DEPTH`, or aliases beyond
            `MAX_ALIAS_NODES`.
        ConfigError: not UTF-8, not YAML, a key given twice, a value that
            cannot be built (an int past Python's 4300-digit limit, a date
            with month 13).
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ConfigError(f"{source}: not valid UTF-8 (byte {err.start})") from None
    try:
        return yaml.load(text, Loader=StrictLoader)
    except _LimitProblem as err:
        raise YamlLimitError(f"{source}: {err}") from None
    except _StrictProblem as err:
        raise ConfigError(f"{source}: {err}") from None
    except yaml.YAMLError as err:
        raise ConfigError(f"{source} is not valid YAML: {_one_line(err)}") from None
    except RecursionError:
        raise YamlLimitError(f"{source}: nested deeper than {MAX_DEPTH} levels") from None
    except (ValueError, OverflowError) as err:  # an int of 5000 digits, a 13th month
        raise ConfigError(f"{source}: a value cannot be read ({brief(str(err), 120)})") from None


def read_yaml_file(path: str | Path, what: str = "config file") -> Any:
    """The YAML data of a regular file of at most `MAX_YAML_BYTES`; ConfigError otherwise."""
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


def _one_line(err: yaml.YAMLError, limit: int = 300) -> str:
    """A YAML error on one line, at most ``limit`` chars (PyYAML quotes the input line)."""
    text = " ".join(str(err).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
