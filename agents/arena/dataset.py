"""``cardsuite dataset RECORDS... --out FILE.npz``: game records as per-decision arrays.

Every game is replayed through the strict env, and every decision becomes a
row (the arrays: ``docs/dataset.md``), saved with `numpy.savez_compressed`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.arena.cli import command_parser, no_extra
from cardsuite.agents.arena.records import (
    HUMAN,
    apply_moves,
    check_new_file,
    make_env,
    over,
    read_records,
)
from cardsuite.errors import ConfigError

#: The per-decision columns and their dtypes (None: the env's, stacked).
COLUMNS: dict[str, Any] = {
    "observation": None,
    "action_mask": None,
    "action": np.int64,
    "player": np.int64,
    "game": np.int64,
    "reward": np.float64,
    "human": bool,
    "agent": np.str_,
    "step": np.int64,
}


@dataclass
class Dataset:
    """Per-decision arrays (module doc); ``arrays()`` is what is saved."""

    game_name: str
    num_actions: int
    observation: np.ndarray
    action_mask: np.ndarray
    action: np.ndarray
    player: np.ndarray
    game: np.ndarray
    reward: np.ndarray
    human: np.ndarray
    agent: np.ndarray
    step: np.ndarray
    game_file: np.ndarray
    game_index: np.ndarray
    game_seed: np.ndarray

    def __len__(self) -> int:
        """Decisions."""
        return int(self.action.shape[0])

    def arrays(self) -> dict[str, np.ndarray]:
        """Every array by name, the scalars as 0-d arrays (no object arrays)."""
        out = {k: v for k, v in vars(self).items() if isinstance(v, np.ndarray)}
        out["game_name"] = np.array(self.game_name)
        out["num_actions"] = np.array(self.num_actions, dtype=np.int64)
        return out


def is_human(spec: str) -> bool:
    """Whether a record's seat spec is a person's (``human``, or ``human#2`` among several)."""
    return str(spec).split("#", 1)[0].strip() == HUMAN


def _observe(env: Any) -> tuple[np.ndarray, np.ndarray]:
    obs = env.observe(env.agent_selection)
    return np.asarray(obs["observation"]), np.asarray(obs["action_mask"], dtype=bool)


def build_dataset(paths: Sequence[str | Path]) -> Dataset:
    """Replay every game of the record files and collect its decisions (StateError, ConfigError)."""
    if not paths:
        raise ConfigError("give at least one record file")
    rows: list[tuple[Any, ...]] = []  # a decision each: its values of COLUMNS
    played: list[tuple[int, int, int]] = []  # a game each: its file, its index there, its seed
    name: str | None = None
    shape: tuple[int, ...] | None = None
    for f, path in enumerate(paths):
        records = read_records(path)
        if not records:
            raise ConfigError(f"record file {str(path)!r} holds no games")
        for i, record in enumerate(records):
            where = f"{path}, game {i}"
            name = name or str(record["game"])
            if record["game"] != name:
                raise ConfigError(
                    f"{where} is {record['game']}, the others {name}: one game per dataset"
                )
            env = make_env(record)
            seats = record["seats"]
            pending = _observe(env) if record["actions"] else None
            for k, step in enumerate(apply_moves(env, record)):
                assert pending is not None
                obs, mask = pending
                shape = shape or obs.shape
                if obs.shape != shape:
                    raise ConfigError(
                        f"{where}: observations of shape {obs.shape}, the others {shape} "
                        "(another player count?): one observation size per dataset"
                    )
                rows.append((obs, mask, step.action, list(env.possible_agents).index(step.agent),
                             len(played), float(record["rewards"][step.agent]),
                             is_human(seats[step.agent]), str(seats[step.agent]), k))  # fmt: skip
                if not over(env):
                    pending = _observe(env)
            played.append((f, i, int(record["seed"])))
    if not rows:
        raise ConfigError("the record files hold no decisions")
    assert name is not None
    arrays = {
        k: np.stack(v) if COLUMNS[k] is None else np.asarray(v, dtype=COLUMNS[k])
        for k, v in zip(COLUMNS, zip(*rows, strict=True), strict=True)
    }
    games = dict(zip(("game_file", "game_index", "game_seed"), np.array(played, dtype=np.int64).T))
    return Dataset(name, int(arrays["action_mask"].shape[1]), **arrays, **games)


def save_dataset(dataset: Dataset, out: str | Path) -> Path:
    """Write ``dataset`` to a new ``.npz`` file (`numpy.savez_compressed`); ConfigError if it exists."""
    path = _check_out(out)
    np.savez_compressed(path, **dataset.arrays())  # type: ignore[arg-type]
    return path


def _check_out(out: str | Path) -> Path:
    """``out`` if it names a new ``.npz`` file; ConfigError otherwise."""
    path = Path(out)
    if path.suffix != ".npz":
        raise ConfigError(f"--out {str(out)!r}: give a file name ending in .npz")
    check_new_file(path, "dataset file")
    return path


def add_command(sub: Any) -> tuple[str, Any]:
    """The ``cardsuite dataset`` subcommand (``cardsuite.commands`` entry point)."""
    command_parser(
        sub,
        "dataset",
        "turn game records into per-decision arrays (.npz) for behaviour cloning",
        __doc__.split("\n\n")[0],
        records=("record files (JSON lines, from --record)", {"flag": "records", "nargs": "+"}),
        out=("a new .npz file", {"required": True}),
    )

    def run(ns: argparse.Namespace, extra: list[str]) -> int:
        no_extra(extra)
        _check_out(ns.out)  # before the replays
        data = build_dataset(ns.records)
        path = save_dataset(data, ns.out)
        print(
            f"{path}: {len(data)} decisions from {len(data.game_seed)} {data.game_name} games "
            f"({int(data.human.sum())} by people); observation {data.observation.shape[1:]}, "
            f"{data.num_actions} actions"
        )
        return 0

    return "dataset", run
