"""Reading what a user hands us: bounded files and strict JSON.

Deck files (:mod:`scandal_env.deck`) and saved states
(:mod:`scandal_env.serialize`) come from outside, so they are read with
limits and every problem is the caller's named error (``DeckError``,
``StateError``) with a one-line message:

* a file must be a regular file (never ``/dev/zero``, a FIFO or a directory)
  and is read with a bounded read, so an oversized or growing file fails fast;
* the text must be UTF-8;
* JSON may not repeat a key in one object (``json.loads`` keeps the last one
  silently), may not hold ``NaN`` or ``Infinity``, and may not nest deeper
  than :data:`MAX_DEPTH` (no ``RecursionError``).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from cardsuite.errors import CardsuiteError

MAX_DEPTH = 32


def read_bounded(path: str | Path, what: str, max_bytes: int, error: type[CardsuiteError]) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; ``error`` otherwise.

    Args:
        path: the file.
        what: the file's kind in messages (``"deck file"``).
        max_bytes: the size limit.
        error: the exception class to raise.
    """
    source = Path(path)
    try:
        info = os.stat(source)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{what} {str(source)!r} is not a regular file")
        with source.open("rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as err:
        raise error(f"cannot read {what} {str(source)!r}: {err.strerror}") from None
    if len(raw) > max_bytes:
        raise error(f"{what} {str(source)!r} is larger than the limit of {max_bytes} bytes")
    return raw


def decode_utf8(raw: str | bytes, where: str, error: type[CardsuiteError]) -> str:
    """``raw`` as text; ``error`` naming the first bad byte if it is not UTF-8."""
    if isinstance(raw, str):
        return raw
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise error(f"{where} is not valid UTF-8 (byte {err.start})") from None


def loads(text: str | bytes, where: str, error: type[CardsuiteError]) -> Any:
    """Parse strict JSON (see the module docstring); ``error`` naming ``where`` if bad."""
    text = decode_utf8(text, where, error)
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except _Problem as err:
        raise error(f"{where}: {err}") from None
    except json.JSONDecodeError as err:
        raise error(f"{where} is not valid JSON: {err}") from None
    except RecursionError:
        raise error(f"{where}: JSON nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as err:  # an integer too long to convert
        raise error(f"{where}: {err}") from None
    if depth(value) > MAX_DEPTH:
        raise error(f"{where}: JSON nested deeper than {MAX_DEPTH} levels")
    return value


def depth(value: Any) -> int:
    """The nesting depth of parsed data (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        level += 1
        if level > MAX_DEPTH:
            return level
        deepest = max(deepest, level)
        stack.extend((child, level) for child in children)
    return deepest


class _Problem(ValueError):
    """A duplicate key or a non-finite number, with a message ready for the user."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Problem(f"duplicate key {key!r}")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise _Problem(f"{name} is not allowed (numbers must be finite)")
