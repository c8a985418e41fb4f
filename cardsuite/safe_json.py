"""The suite's one strict JSON reader: a named error instead of a crash or a silent guess.

Every JSON read from outside (saved states, deck files, records, metadata,
web requests) goes through `loads` (text) or `read_file` (a file): UTF-8 and
bounded; no repeated key, no ``NaN``/``Infinity``; nesting at most
`MAX_DEPTH` (checked before parsing); a file must be a regular file, read
with a bounded read. Each problem raises ``StateError`` (or the error class
the caller names) with a one-line message that starts with where the text came from.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
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
    """Parse JSON strictly (module doc); ``error`` naming ``where`` for anything wrong.

    Args:
        text: the JSON text (``bytes`` must be UTF-8).
        where: where it came from, the start of every message (``"line 3"``).
        error: the named error to raise.
        max_chars: the longest text accepted.
    """
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
        raise error(f"{where}: {_TOO_DEEP}")
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except _Refused as err:
        raise error(f"{where}: {err}") from None
    except json.JSONDecodeError as err:
        raise error(f"{where}: not valid JSON: {err}") from None
    except RecursionError:
        raise error(f"{where}: {_TOO_DEEP}") from None
    except ValueError as err:  # an integer too long to convert
        raise error(f"{where}: {err}") from None
    return value


def read_file(
    path: str | Path,
    what: str,
    *,
    error: type[CardsuiteError] = StateError,
    max_bytes: int = MAX_CHARS,
    follow_links: bool = True,
) -> Any:
    """The strict JSON (module doc) of a regular file of at most ``max_bytes``; ``what``
    names the file's kind in messages; with ``follow_links=False`` a link is refused."""
    return loads(read_bounded(path, what, max_bytes, error, follow_links=follow_links),
                 f"{what} {str(path)!r}", error=error, max_chars=max_bytes)  # fmt: skip


def read_bounded(
    path: str | Path,
    what: str,
    max_bytes: int,
    error: type[CardsuiteError],
    *,
    follow_links: bool = True,
) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; ``error`` naming it otherwise."""
    source = Path(path)
    try:
        info = os.stat(source) if follow_links else os.lstat(source)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{what} {str(source)!r} is not a regular file")
        with source.open("rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as err:
        raise error(f"cannot read {what} {str(source)!r}: {err.strerror}") from None
    if len(raw) > max_bytes:
        raise error(f"{what} {str(source)!r} is larger than the limit of {max_bytes} bytes")
    return raw


_TOO_DEEP = f"JSON nested too deeply (nested deeper than {MAX_DEPTH} levels)"


class _Refused(ValueError):
    """A duplicate key or a non-finite number, with a message ready for the user."""


def write_json_atomic(path: str | Path, doc: Any, *, allow_nan: bool = False) -> None:
    """Write ``doc`` as JSON to ``path`` through a temporary file and a rename (fsynced):
    a process killed while writing leaves the old file or none, never half of one.
    ``allow_nan``: write NaN and infinities as JavaScript does (not strict JSON)."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1, allow_nan=allow_nan)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, target)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"duplicate key {key[:80]!r}")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not allowed (numbers must be finite)")


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
