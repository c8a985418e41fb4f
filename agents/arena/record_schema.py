"""Reading game records safely: a regular file, bounded lines, strict JSON, every field checked.

A record file may come from anyone: a problem is a StateError (its content)
or a ConfigError (its path) whose one-line message names the line and field.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TypeGuard

from cardsuite import safe_json
from cardsuite.errors import CardsuiteError, ConfigError, StateError
from cardsuite.games import get_game

MAX_FILE_BYTES = 1 << 30  # 1 GiB of records
MAX_LINE_BYTES = 16 << 20  # one game: 16 MiB
MAX_DEPTH = safe_json.MAX_DEPTH  # nesting of any JSON value in a record
MAX_NAME_CHARS = 200  # seat names and move descriptions

RECORD_KEYS = ("game", "options", "seed", "seats", "actions", "rewards")
OPTIONAL_INT_KEYS = ("index", "deal", "rotation")
STATE_KEYS = ("initial_state", "final_state")


def check_readable_file(path: str | Path, what: str, max_bytes: int) -> Path:
    """``path`` as a Path if it is a regular file of at most ``max_bytes``; ConfigError otherwise."""
    source = Path(path)
    try:
        info = os.stat(source)
    except FileNotFoundError:
        raise ConfigError(f"{what} {str(source)!r} not found") from None
    except OSError as err:
        raise ConfigError(f"cannot read {what} {str(source)!r}: {err.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{what} {str(source)!r} is not a regular file")
    if info.st_size > max_bytes:
        raise ConfigError(
            f"{what} {str(source)!r} is {info.st_size} bytes; the limit is {max_bytes}"
        )
    return source


def loads_strict(text: str | bytes, where: str) -> Any:
    """``json.loads`` that raises StateError for bad JSON, NaN/Infinity and deep nesting."""
    return safe_json.loads(text, where, max_chars=MAX_LINE_BYTES)


def iter_records(path: str | Path, limit: int | None = None) -> Iterator[dict[str, Any]]:
    """Every record of a JSON-lines file, checked (`check_record`), read lazily; with
    ``limit``, only the lines before that byte offset."""
    source = check_readable_file(path, "record file", MAX_FILE_BYTES)
    with source.open("rb") as fh:
        number = 0
        while limit is None or fh.tell() < limit:
            line = fh.readline(MAX_LINE_BYTES + 1)
            if not line:
                return
            number += 1
            where = f"{source} line {number}"
            if len(line) > MAX_LINE_BYTES:
                raise StateError(f"{where}: longer than the limit of {MAX_LINE_BYTES} bytes")
            if not line.strip():
                continue
            yield check_record(loads_strict(line, where), where)


def check_record(record: Any, where: str) -> dict[str, Any]:
    """The record with its fields checked; old string states parsed. StateError naming the field."""
    if not isinstance(record, dict):
        raise StateError(f"{where}: a record must be a JSON object, got {_kind(record)}")
    missing = [k for k in RECORD_KEYS if k not in record]
    if missing:
        raise StateError(f"{where}: record lacks {', '.join(missing)}")
    out = dict(record)

    def fail(key: str, message: str) -> StateError:
        return StateError(f"{where}: field {key!r} {message}")

    if not isinstance(record["game"], str):
        raise fail("game", f"must be a game name, got {_kind(record['game'])}")
    try:
        out["game"] = get_game(record["game"]).name
    except CardsuiteError as err:
        raise fail("game", f"is wrong: {err}") from None
    options = record["options"]
    if options is None:
        out["options"] = options = {}
    if not isinstance(options, dict):
        raise fail("options", f"must be an object of rule options, got {_kind(options)}")
    if options.get("deck") is not None:
        raise fail(
            "options",
            f"names a deck file ({str(options['deck'])[:80]!r}); a record never points at a "
            "file, it carries its deck by content in 'deck' (record the game again)",
        )
    reset = record.get("reset_options")
    if reset is not None and not isinstance(reset, dict):
        raise fail("reset_options", f"must be an object or null, got {_kind(reset)}")
    for key in ("seed", *OPTIONAL_INT_KEYS):
        value = record.get(key)
        if (key == "seed" or value is not None) and (not _is_int(value) or value < 0):
            raise fail(key, f"must be a non-negative integer, got {value!r:.40}")
    seats = record["seats"]
    if not isinstance(seats, dict) or not all(_is_name(v) for v in seats.values()):
        raise fail("seats", "must map each agent to a printable name")
    rewards = record["rewards"]
    if not isinstance(rewards, dict) or not all(_is_number(v) for v in rewards.values()):
        raise fail("rewards", "must map each agent to a finite number")
    infos = record.get("infos")
    if infos is not None and not isinstance(infos, dict):
        raise fail("infos", f"must be an object, got {_kind(infos)}")
    out["actions"] = _check_actions(record["actions"], fail)
    for key in STATE_KEYS:
        state = record.get(key)
        if isinstance(state, str):  # records written before states were stored as objects
            state = out[key] = loads_strict(state, f"{where}: field {key!r}")
        if state is not None and not isinstance(state, dict):
            raise fail(key, f"must be an engine state object or null, got {_kind(state)}")
    deck = record.get("deck")
    if deck is not None and (
        not isinstance(deck, dict)
        or not isinstance(deck.get("sha256"), str)
        or not isinstance(deck.get("data"), dict)
    ):
        raise fail("deck", 'must be {"sha256": HEX, "data": {...deck file content...}}')
    return out


def _check_actions(actions: Any, fail: Any) -> list[tuple[str, int, str]]:
    if not isinstance(actions, list):
        raise fail(
            "actions", f"must be a list of [agent, action id, description], got {_kind(actions)}"
        )
    moves = []
    for number, entry in enumerate(actions, start=1):
        if (
            not isinstance(entry, list)
            or len(entry) < 2
            or not isinstance(entry[0], str)
            or not _is_int(entry[1])
            or (len(entry) > 2 and not _is_name(entry[2]))
        ):
            raise fail(
                "actions",
                f"move {number} must be [agent, action id, description], got {entry!r:.80}",
            )
        moves.append((entry[0], entry[1], entry[2] if len(entry) > 2 else ""))
    return moves


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_NAME_CHARS and value.isprintable()


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def check_mapping_keys(record: Mapping[str, Any], agents: list[str], where: str) -> None:
    """StateError unless ``seats`` and ``rewards`` name exactly the env's agents."""
    for key in ("seats", "rewards"):
        if sorted(record[key]) != sorted(agents):
            raise StateError(
                f"{where}: field {key!r} must name the agents {', '.join(agents)}, "
                f"got {', '.join(map(str, record[key])) or 'none'}"
            )
