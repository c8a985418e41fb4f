"""``cardsuite dataset RECORDS... --out FILE.npz``: game records as per-decision arrays.

Every game of the record files (`cardsuite.agents.arena.records`: written by
``cardsuite tournament --record``, ``play --record``, ``serve --record``) is
replayed through the strict env (`cardsuite.agents.arena.records.make_env` and
`cardsuite.agents.arena.records.apply_moves`: the seeded reset is checked against
the recorded initial state, every move for legality and turn, the final
returns against the record), and every decision becomes one row:

| array | shape, dtype | meaning |
|---|---|---|
| ``observation`` | ``(N, obs_size)``, the env's dtype | what the acting player saw |
| ``action_mask`` | ``(N, num_actions)``, bool | its legal actions |
| ``action`` | ``(N,)``, int64 | the action it took |
| ``player`` | ``(N,)``, int64 | its seat (``player_i`` is i) |
| ``game`` | ``(N,)``, int64 | game id: 0, 1, ... over all the input games, in order |
| ``reward`` | ``(N,)``, float64 | the acting player's final return in that game |
| ``human`` | ``(N,)``, bool | the seat was played by a person (seat spec ``human``) |
| ``agent`` | ``(N,)``, unicode | the seat's agent spec as the record names it |
| ``step`` | ``(N,)``, int64 | the decision's number in its game (0-based) |

and, per game (length G): ``game_file`` (the input file's index among
RECORDS), ``game_index`` (the game's index in that file), ``game_seed``.
Scalars: ``game_name`` and ``num_actions``. Saved with `numpy.savez_compressed`;
nothing in the file needs pickle, so ``np.load(path, allow_pickle=False)``
reads it. All the games must be of one game with one observation size (the
same player count).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.errors import ConfigError

#: The seat spec that marks a person's seat in a record.
HUMAN = "human"


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


def build_dataset(paths: Sequence[str | Path]) -> Dataset:
    """Replay every game of the record files and collect its decisions.

    Raises:
        ConfigError: no file, a file that cannot be read or holds no game,
            games of different games or observation sizes.
        StateError: a record that does not replay (another engine version,
            an illegal or out-of-turn move, different returns).
    """
    from cardsuite.agents.arena.records import apply_moves, make_env, read_records

    if not paths:
        raise ConfigError("give at least one record file")
    cols: dict[str, list[Any]] = {
        k: []
        for k in (
            "observation",
            "action_mask",
            "action",
            "player",
            "game",
            "reward",
            "human",
            "agent",
            "step",
        )
    }
    per_game: dict[str, list[int]] = {"game_file": [], "game_index": [], "game_seed": []}
    name: str | None = None
    shape: tuple[int, ...] | None = None
    num_actions = 0
    game_id = 0
    for f, path in enumerate(paths):
        records = read_records(path)
        if not records:
            raise ConfigError(f"record file {str(path)!r} holds no games")
        for i, record in enumerate(records):
            where = f"{path}, game {i}"
            if name is None:
                name = str(record["game"])
            elif record["game"] != name:
                raise ConfigError(
                    f"{where} is {record['game']}, the others {name}: one game per dataset"
                )
            env = make_env(record)
            agents = list(env.possible_agents)
            rewards = record["rewards"]
            seats = record["seats"]

            def observe(env: Any) -> tuple[np.ndarray, np.ndarray]:
                obs = env.observe(env.agent_selection)
                return np.asarray(obs["observation"]), np.asarray(obs["action_mask"], dtype=bool)

            pending = observe(env) if record["actions"] else None
            for k, step in enumerate(apply_moves(env, record)):
                assert pending is not None
                obs, mask = pending
                if shape is None:
                    shape, num_actions = obs.shape, int(mask.shape[0])
                elif obs.shape != shape:
                    raise ConfigError(
                        f"{where}: observations of shape {obs.shape}, the others {shape} "
                        "(another player count?): one observation size per dataset"
                    )
                cols["observation"].append(obs)
                cols["action_mask"].append(mask)
                cols["action"].append(step.action)
                cols["player"].append(agents.index(step.agent))
                cols["game"].append(game_id)
                cols["reward"].append(float(rewards[step.agent]))
                cols["human"].append(is_human(seats[step.agent]))
                cols["agent"].append(str(seats[step.agent]))
                cols["step"].append(k)
                if not all(env.terminations[a] or env.truncations[a] for a in env.agents):
                    pending = observe(env)
            per_game["game_file"].append(f)
            per_game["game_index"].append(i)
            per_game["game_seed"].append(int(record["seed"]))
            game_id += 1
    if not cols["action"]:
        raise ConfigError("the record files hold no decisions")
    assert name is not None and shape is not None
    return Dataset(
        game_name=name,
        num_actions=num_actions,
        observation=np.stack(cols["observation"]),
        action_mask=np.stack(cols["action_mask"]),
        action=np.asarray(cols["action"], dtype=np.int64),
        player=np.asarray(cols["player"], dtype=np.int64),
        game=np.asarray(cols["game"], dtype=np.int64),
        reward=np.asarray(cols["reward"], dtype=np.float64),
        human=np.asarray(cols["human"], dtype=bool),
        agent=np.asarray(cols["agent"], dtype=np.str_),
        step=np.asarray(cols["step"], dtype=np.int64),
        game_file=np.asarray(per_game["game_file"], dtype=np.int64),
        game_index=np.asarray(per_game["game_index"], dtype=np.int64),
        game_seed=np.asarray(per_game["game_seed"], dtype=np.int64),
    )


def save_dataset(dataset: Dataset, out: str | Path) -> Path:
    """Write ``dataset`` to a new ``.npz`` file (`numpy.savez_compressed`); ConfigError if it exists."""
    from cardsuite.agents.arena.records import check_new_file

    path = Path(out)
    if path.suffix != ".npz":
        raise ConfigError(f"--out {str(path)!r}: give a file name ending in .npz")
    check_new_file(path, "dataset file")
    np.savez_compressed(path, **dataset.arrays())  # type: ignore[arg-type]
    return path


def add_command(sub: Any) -> tuple[str, Any]:
    """The ``cardsuite dataset`` subcommand (``cardsuite.commands`` entry point)."""
    p = sub.add_parser(
        "dataset",
        help="turn game records into per-decision arrays (.npz) for behaviour cloning",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("records", nargs="+", help="record files (JSON lines, from --record)")
    p.add_argument("--out", required=True, help="a new .npz file")

    def run(ns: argparse.Namespace, extra: list[str]) -> int:
        if extra:
            raise ConfigError(f"unknown arguments: {' '.join(extra)}")
        from cardsuite.agents.arena.records import check_new_file

        if Path(ns.out).suffix != ".npz":
            raise ConfigError(f"--out {ns.out!r}: give a file name ending in .npz")
        check_new_file(ns.out, "dataset file")  # before the replays
        data = build_dataset(ns.records)
        path = save_dataset(data, ns.out)
        games = len(data.game_seed)
        print(
            f"{path}: {len(data)} decisions from {games} {data.game_name} games "
            f"({int(data.human.sum())} by people); observation {data.observation.shape[1:]}, "
            f"{data.num_actions} actions"
        )
        return 0

    return "dataset", run
