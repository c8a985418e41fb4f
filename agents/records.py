"""Game records: one JSON object per game, written as JSON lines, and their replay.

A record holds everything needed to replay a game exactly:

* ``"game"``: registry name; ``"options"``: the env's config options;
  ``"reset_options"``: the ``reset(options=...)`` presets (usually ``null``);
* ``"seed"``: the deal seed passed to ``env.reset(seed=...)``;
* ``"index"``, ``"deal"``, ``"rotation"``: the game's place in the tournament;
* ``"seats"``: ``{"player_0": "random#1", ...}``;
* ``"initial_state"``: the engine state right after the reset, as the game
  engine's ``to_json`` (Scum: :func:`scum_env.engine.to_json`), or ``null``
  for an engine without one;
* ``"actions"``: ``[[agent, action id, description], ...]`` in play order;
* ``"rewards"``: episode return per agent (the sum of its rewards over every step); ``"infos"``: final infos per agent;
* ``"final_state"``: the engine state at the end, like ``initial_state``.

Replaying (:func:`make_env`, :func:`apply_moves`, :func:`replay_record`) runs a record through the env: same options, same
seeded reset (checked against ``initial_state``), the same actions, checking
that the recorded agent is the one to act.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.games import get_game
from scum_env.suite.errors import ConfigError, StateError

RECORD_KEYS = ("game", "options", "seed", "seats", "actions", "rewards")


def engine_state_json(env: Any) -> str | None:
    """The env's engine state as its engine module's ``to_json``; None if it has none."""
    state = getattr(env.unwrapped, "game", None)
    if state is None:
        return None
    module = sys.modules.get(type(state).__module__)
    to_json = getattr(module, "to_json", None)
    return None if to_json is None else str(to_json(state))


def jsonable(value: Any) -> Any:
    """``value`` with numpy scalars/arrays and tuples turned into plain JSON types."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def write_records(path: str | Path, records: list[dict[str, Any]]) -> None:
    """Write ``records`` as JSON lines (one object per line)."""
    target = Path(path)
    if target.parent and not target.parent.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8") as fh:
        for record in records:
            fh.write(json.dumps(record, separators=(",", ":")) + "\n")


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Every record of a JSON-lines file; ConfigError/StateError naming the problem."""
    source = Path(path)
    if not source.is_file():
        raise ConfigError(f"record file {str(source)!r} not found")
    records = []
    with source.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise StateError(f"{source} line {number}: not valid JSON: {err}") from None
            if not isinstance(record, dict):
                raise StateError(f"{source} line {number}: a record must be a JSON object")
            missing = [k for k in RECORD_KEYS if k not in record]
            if missing:
                raise StateError(f"{source} line {number}: record lacks {', '.join(missing)}")
            records.append(record)
    return records


@dataclass(frozen=True)
class ReplayStep:
    """One recorded move, just applied to ``env``."""

    env: Any
    number: int
    agent: str
    action: int
    description: str


def make_env(record: Mapping[str, Any], render_mode: str | None = None) -> Any:
    """The env of a record, reset with its seed and presets, initial state checked."""
    env = get_game(str(record["game"])).make(render_mode=render_mode, **record["options"])
    env.reset(seed=int(record["seed"]), options=record.get("reset_options"))
    initial = record.get("initial_state")
    if initial is not None and engine_state_json(env) != initial:
        raise StateError(
            f"record of game {record.get('index', '?')}: the seeded reset does not give the "
            "recorded initial state (recorded with another version of the engine?)"
        )
    return env


def apply_moves(env: Any, record: Mapping[str, Any]) -> Iterator[ReplayStep]:
    """Apply the recorded moves to ``env`` (from :func:`make_env`), yielding after each.

    Raises StateError where the replay departs from the record: another
    agent to act, moves after the end, different final rewards.
    """
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for number, entry in enumerate(record["actions"], start=1):
        agent, action, description = entry
        if env.agents and _over(env):
            raise StateError(f"record move {number}: the game is already over")
        if env.agent_selection != agent:
            raise StateError(
                f"record move {number}: {agent} is recorded to act, "
                f"but it is {env.agent_selection}'s turn"
            )
        env.step(int(action))
        for a, r in env.rewards.items():
            returns[a] += r
        yield ReplayStep(env, number, str(agent), int(action), str(description))
    if not _over(env):
        raise StateError("record replay: the recorded moves end before the game does")
    for agent, reward in record["rewards"].items():
        if not np.isclose(returns.get(agent, np.nan), reward):
            raise StateError(
                f"record replay: {agent} ends with return {returns.get(agent)}, recorded {reward}"
            )


def replay_record(record: Mapping[str, Any]) -> Any:
    """Replay a record; returns the env in its final state (``env.unwrapped.game``).

    Raises StateError where the replay departs from the record (initial
    state, turn order, final rewards).
    """
    env = make_env(record)
    for _ in apply_moves(env, record):
        pass
    return env


def _over(env: Any) -> bool:
    """Whether every agent has terminated or truncated."""
    return all(env.terminations[a] or env.truncations[a] for a in env.agents)
