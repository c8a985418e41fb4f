"""Reading JSON from untrusted text: a named error instead of a crash.

:func:`loads` is ``json.loads`` for saved states, records and metadata a
user may hand in: it refuses invalid UTF-8, ``NaN``/``Infinity``, text longer
than a limit and nesting deeper than :data:`MAX_DEPTH` (no ``RecursionError``),
raising ``StateError`` (or the error class asked for) with a one-line message
that starts with where the text came from.
"""

from __future__ import annotations

import json
from typing import Any

from cardsuite.errors import CardsuiteError, StateError

MAX_DEPTH = 64  # saved states, records and metadata nest a few levels
MAX_CHARS = 64 << 20  # 64 MiB of text


def loads(
    text: str | bytes,
    where: str,
    *,
    error: type[CardsuiteError] = StateError,
    max_chars: int = MAX_CHARS,
) -> Any:
    """Parse JSON strictly; ``error`` naming ``where`` for anything wrong with the text."""
    if not isinstance(text, str | bytes):
        raise error(f"{where}: expected JSON text, got {type(text).__name__}")
    if len(text) > max_chars:
        raise error(f"{where}: {len(text)} characters of JSON; the limit is {max_chars}")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise error(f"{where}: not valid UTF-8 (byte {err.start})") from None
    if _bracket_depth(text) > MAX_DEPTH:
        raise error(f"{where}: JSON nested too deeply (limit {MAX_DEPTH})")
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise error(f"{where}: not valid JSON: {err}") from None
    except RecursionError:
        raise error(f"{where}: JSON nested too deeply (limit {MAX_DEPTH})") from None
    except ValueError as err:  # _no_constant, or an integer too long to parse
        raise error(f"{where}: {err}") from None
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed (numbers must be finite)")


def _bracket_depth(text: str) -> int:
    """An upper bound of the JSON nesting depth (brackets inside strings counted too)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return 0  # cannot be deeper: the common case costs two counts
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def json_depth(value: Any) -> int:
    """The nesting depth of a parsed JSON value (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            return depth
        stack.extend((child, depth) for child in children)
    return deepest
