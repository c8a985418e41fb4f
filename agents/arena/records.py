"""Game records (fields: ``docs/arena.md``) as JSON lines, and their replay by the strict env."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.aec import CardGameEnv
from cardsuite.agents.arena.record_schema import (
    MAX_LINE_BYTES,
    check_mapping_keys,
    check_readable_file,
    check_record,
    iter_records,
    loads_strict,
)
from cardsuite.errors import CardsuiteError, ConfigError, IllegalActionError, StateError
from cardsuite.games import get_game
from cardsuite.safe_yaml import load_yaml_text

MAX_DECK_BYTES = 1 << 20  # a deck file is about 10 kB
HUMAN = "human"  # the seat spec of a person's seat in a record


def engine_state(env: CardGameEnv[Any]) -> dict[str, Any] | None:
    """The env's engine state as a JSON object (its engine module's ``to_json``, parsed)."""
    text = engine_state_json(env)
    return None if text is None else dict(json.loads(text))


def engine_state_json(env: CardGameEnv[Any]) -> str | None:
    """The env's engine state as its engine module's ``to_json``; None if it has none."""
    state = getattr(env.unwrapped, "game", None)
    if state is None:
        return None
    home = type(state).__module__
    for name in (home, home.rsplit(".", 1)[0] + ".engine"):  # the state's module, or its engine
        to_json = getattr(sys.modules.get(name), "to_json", None)
        if to_json is not None:
            return str(to_json(state))
    return None


def jsonable(value: Any) -> Any:
    """``value`` with numpy scalars/arrays and tuples turned into plain JSON types."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value.item() if isinstance(value, np.generic) else value


def deck_digest(data: Any) -> str:
    """SHA-256 of a deck's content in canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def deck_entry(path: str | Path) -> dict[str, Any]:
    """The record's ``"deck"`` entry for the deck file at ``path``: its content and hash."""
    from scandal_env.deck import deck_from_data

    source = check_readable_file(path, "deck file", MAX_DECK_BYTES)
    raw = source.read_bytes()
    if source.suffix.lower() in (".yaml", ".yml"):
        data = load_yaml_text(raw, str(source))
    else:
        data = loads_strict(raw, f"deck file {source}")
    deck_from_data(data, source=str(source))  # DeckError if broken
    return {"sha256": deck_digest(data), "data": data}


def normalize_state(state: Any, deck_tag: str | None) -> Any:
    """A state object with its config's deck path replaced by ``deck_tag`` (paths never kept)."""
    config = state.get("config") if isinstance(state, dict) else None
    if isinstance(config, dict) and config.get("deck") is not None:
        state = dict(state, config=dict(config, deck=deck_tag))
    return state


def record_options(options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Options as a record stores them (no deck path) and the deck entry, if a custom deck."""
    stored = jsonable(dict(options))
    deck_path = stored.pop("deck", None)
    return stored, None if deck_path is None else deck_entry(deck_path)


def deck_tag(entry: Mapping[str, Any] | None) -> str | None:
    """What stands for the deck in a recorded state's config: ``"sha256:HEX"``."""
    return None if entry is None else f"sha256:{entry['sha256']}"


def finish_record(
    env: CardGameEnv[Any], record: dict[str, Any], deck: dict[str, Any] | None
) -> dict[str, Any]:
    """A game's ``record`` completed once it ends: plain JSON, the final state, the deck entry."""
    tag, infos = deck_tag(deck), record["infos"]
    record["reset_options"] = jsonable(record["reset_options"])
    record["initial_state"] = normalize_state(record["initial_state"], tag)
    record["infos"] = jsonable({a: dict(infos[a]) for a in env.possible_agents if a in infos})
    record["final_state"] = normalize_state(engine_state(env), tag)
    if deck is not None:
        record["deck"] = deck
    return record


def check_new_file(path: str | Path, what: str = "record file") -> Path:
    """ConfigError unless ``path`` is a new file in a writable folder (made if missing)."""
    target = Path(path)
    if target.is_dir():
        raise ConfigError(f"{what} {str(target)!r} is a directory; give a file name")
    if target.exists() or target.is_symlink():
        raise ConfigError(
            f"{what} {str(target)!r} already exists; choose a new name (runs are never overwritten)"
        )
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=target.parent, prefix=".probe-"):
            pass
    except OSError as err:
        raise ConfigError(f"cannot write {what} {str(target)!r}: {err.strerror or err}") from None
    return target


def write_records(path: str | Path, records: list[dict[str, Any]]) -> None:
    """Write ``records`` as JSON lines (one object per line), atomically."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for record in records:
                fh.write(json.dumps(record, separators=(",", ":"), allow_nan=False) + "\n")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class RecordAppender:
    """Appends finished games to a record file (``--record FILE``; an existing one must hold records).

    Each game is one ``write`` under an exclusive ``flock``: two servers never interleave lines.
    """

    def __init__(self, path: str | Path) -> None:
        """Check ``path`` (ConfigError/StateError naming the problem); count its games."""
        self.path = Path(path)
        self._lock = threading.Lock()
        if self.path.exists() or self.path.is_symlink():
            cut = cut_line(self.path) if self.path.is_file() else None  # a game cut short
            if cut == 0:  # not one complete line: nothing to keep, and maybe not ours
                raise ConfigError(f"--record {str(self.path)!r} does not end with a complete "
                                  "line; choose a new name")  # fmt: skip
            try:
                self.count = sum(1 for _ in iter_records(self.path, limit=cut))
            except StateError as err:
                raise ConfigError(
                    f"--record {str(self.path)!r} exists and is not a record file ({err}); "
                    "choose a new name (a file is appended to only if it holds records)"
                ) from None
            if cut is not None:
                os.truncate(self.path, cut)
                print(f"--record {self.path}: dropped its last line, cut short (the game being "
                      f"written when the server stopped); its {self.count} finished games are "
                      "kept", file=sys.stderr)  # fmt: skip
        else:
            check_new_file(self.path, "record file")
            self.count = 0

    def append(self, record: dict[str, Any]) -> int:
        """Append one game (checked like a record read back); its index in the file."""
        check_record(record, f"game {self.count} for {self.path}")
        line = json.dumps(record, separators=(",", ":"), allow_nan=False) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)  # released when the file closes
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
            index = self.count
            self.count += 1
        return index


def cut_line(path: Path) -> int | None:
    """The length of ``path`` without its last line, cut short (no newline, the start of a
    JSON object after complete lines); None when it ends with a complete line (or is
    empty); 0 when it holds no complete line to keep."""
    with path.open("rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        if size == 0:
            return None
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return None
        start = max(0, size - MAX_LINE_BYTES - 1)  # a record line is at most this long
        fh.seek(start)
        tail = fh.read()
        end = tail.rfind(b"\n") + 1
        return start + end if end and tail[end : end + 1] == b"{" else 0


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Every record of a JSON-lines file, checked; ConfigError/StateError naming the problem."""
    return list(iter_records(path))


def select_record(path: str | Path, index: int) -> dict[str, Any]:
    """Record number ``index`` (0-based) of a file, reading only as far as needed."""
    if index < 0:
        raise ConfigError(f"--game-index must be non-negative, got {index}")
    count = 0
    for count, record in enumerate(iter_records(path), start=1):
        if count - 1 == index:
            return record
    if count == 0:
        raise ConfigError(f"record file {str(path)!r} holds no games")
    raise ConfigError(f"--game-index {index} is out of range; the file holds games 0..{count - 1}")


@dataclass(frozen=True)
class ReplayStep:
    """One recorded move, just applied to ``env``."""

    env: CardGameEnv[Any]
    number: int
    agent: str
    action: int
    description: str


def make_env(record: Mapping[str, Any], render_mode: str | None = None) -> CardGameEnv[Any]:
    """The strict env of a checked record (``illegal_action="raise"``), reset, initial state checked."""
    where = f"record of game {record.get('index', '?')}"
    game = get_game(str(record["game"]))
    fields = game.config_class().field_names()
    unknown = [key for key in record["options"] if key not in fields]
    if unknown:
        raise StateError(
            f"{where}: field 'options' holds {unknown[0]!r:.40}, not a {game.name} rule option; "
            f"options: {', '.join(fields)}"
        )
    options = dict(record["options"], illegal_action="raise")
    entry = record.get("deck")
    with tempfile.TemporaryDirectory(prefix="cardsuite-deck-") as folder:
        if entry is not None:
            options["deck"] = _deck_file(entry, Path(folder), where)
        env = game.make(raw=True, render_mode=render_mode, **options)
    check_mapping_keys(record, list(env.possible_agents), where)
    try:
        env.reset(seed=record["seed"], options=record.get("reset_options"))
    except CardsuiteError:
        raise
    except (TypeError, ValueError, KeyError, IndexError) as err:
        raise StateError(
            f"{where}: field 'reset_options' is rejected by the engine: {type(err).__name__}: {err}"
        ) from None
    initial = record.get("initial_state")
    if initial is not None and not same_state(env, initial, entry):
        raise StateError(
            f"{where}: the seeded reset does not give the recorded initial state "
            "(recorded with another version of the engine?)"
        )
    return env


def same_state(env: CardGameEnv[Any], recorded: Any, entry: Mapping[str, Any] | None) -> bool:
    """Whether the env's engine state equals a recorded state (deck paths aside)."""
    if isinstance(recorded, str):
        recorded = loads_strict(recorded, "recorded state")
    tag = deck_tag(entry)
    return bool(_comparable(engine_state(env), tag) == _comparable(recorded, tag))


#: Config fields that say how the env treats illegal actions, not what the game is: a
#: record is made by the penalising env() and replayed by the strict raw_env.
ENV_ONLY_FIELDS = ("illegal_action", "illegal_penalty")


def _comparable(state: Any, tag: str | None) -> Any:
    state = normalize_state(state, tag)
    if isinstance(state, dict) and isinstance(state.get("config"), dict):
        config = {k: v for k, v in state["config"].items() if k not in ENV_ONLY_FIELDS}
        state = dict(state, config=config)
    return state


def _deck_file(entry: Mapping[str, Any], folder: Path, where: str) -> str:
    """Check a record's deck entry and write it to ``folder``; the file's path."""
    from scandal_env.deck import deck_from_data

    data = entry["data"]
    if deck_digest(data) != entry["sha256"]:
        raise StateError(f"{where}: field 'deck': the content does not match its sha256")
    deck_from_data(data, source="record deck")  # DeckError if broken
    path = folder / "deck.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def apply_moves(env: CardGameEnv[Any], record: Mapping[str, Any]) -> Iterator[ReplayStep]:
    """Apply the recorded moves to ``env`` (from `make_env`), yielding after each; StateError where
    the replay departs from the record."""
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for number, (agent, action, description) in enumerate(record["actions"], start=1):
        if env.agents and over(env):
            raise StateError(f"record move {number}: the game is already over")
        if env.agent_selection != agent:
            raise StateError(
                f"record move {number}: {agent} is recorded to act, "
                f"but it is {env.agent_selection}'s turn"
            )
        try:
            env.step(action)
        except IllegalActionError as err:
            raise StateError(
                f"record move {number} ({description or action}) is illegal: {err}"
            ) from None
        for a, r in env.rewards.items():
            returns[a] += r
        yield ReplayStep(env, number, agent, action, description)
    if not over(env):
        raise StateError("record replay: the recorded moves end before the game does")
    for agent, reward in record["rewards"].items():
        if not np.isclose(returns.get(agent, np.nan), reward):
            raise StateError(
                f"record replay: {agent} ends with return {returns.get(agent)}, recorded {reward}"
            )


def replay_record(record: Mapping[str, Any]) -> Any:
    """Replay a checked record; the env in its final state. StateError where it departs."""
    env = make_env(record)
    for _ in apply_moves(env, record):
        pass
    check_final_state(env, record)
    return env


def check_final_state(env: CardGameEnv[Any], record: Mapping[str, Any]) -> bool:
    """StateError unless the replayed env ends in the record's final state; whether it has one."""
    final = record.get("final_state")
    if final is not None and not same_state(env, final, record.get("deck")):
        raise StateError("replay: the final state differs from the recorded final state")
    return final is not None


def over(env: CardGameEnv[Any]) -> bool:
    """Whether the game is over: every agent terminated or truncated (or none left)."""
    return all(env.terminations[a] or env.truncations[a] for a in env.agents)
