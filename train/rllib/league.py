"""The RLlib trainer's league: the training core's `League` on the driver, its table on the runners.

Both samplers draw their opponents from one core
[`League`][cardsuite.train.core.league.League] that lives on the driver
(`make_league`): the game's real heuristic and the other
``league_baselines`` (built as ``cardsuite ppo`` and ``dmc`` build them),
then frozen snapshots of the learner's actor, drawn by PFSP
(``pfsp_weighting``). The env runners never hold a league of their own
making: every ``league_every`` iterations the driver

1. collects each runner's outcomes since the last sync (the learner's
   1 / 0.5 / 0 against each member it faced, by member id) and records them
   all in the League (`merge_outcomes`), so the PFSP weights are the
   League's, not one runner's;
2. freezes the learner's actor into a new snapshot (`actor_snapshot`);
3. sends the League's draw table (`League.seat_table`) back to every runner
   (`push_table`): the per-game env seats one arena agent per opponent seat
   from it (`seat_agent`: the real heuristic, random, or the snapshot), the
   batched env's League follows it (`League.follow`).

A runner that RLlib restarts after a failure gets the table again
(`LeagueCallbacks`). Checkpoints keep the League in the core's format:
``league.json`` holds `League.state` (ids, PFSP counts, RNG) and
``league.safetensors`` the snapshots' weights by member name (`save_league`,
`load_league`); nothing is pickled.

Snapshots are stored in the core's convention (`Snapshot`, played on
observations times `obs_scale` of the game's observation spec): the RLlib
module's own observation scale is folded into the first layer, so a
snapshot, the per-game `SnapshotAgent` and the exported ``ppo:`` agent give
the module's exact logits.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite import safe_json
from cardsuite.agents.learned.netspec import Snapshot
from cardsuite.errors import CheckpointError
from cardsuite.train.core.league import League, SeatMember
from cardsuite.train.rllib.config import RLlibRun
from cardsuite.train.rllib.env import IllegalActionCounter
from cardsuite.train.rllib.policy import actor_snapshot, spec_scale

LEAGUE_FILE = "league.safetensors"
LEAGUE_STATE = "league.json"


def make_league(run: RLlibRun) -> League:
    """The run's League: its ``league_baselines`` (the game's real batched heuristic,
    random), ``league_size`` snapshots kept, ``pfsp_weighting``, the run's seed."""
    from cardsuite.train.rllib.batched_env import baseline_policy, make_engine

    c = run.config
    engine = make_engine(c.game, 1, run.options)
    return League(
        {name: baseline_policy(name, c.game, engine, c.seed) for name in c.baselines()},
        max_snapshots=c.league_size,
        weighting=c.pfsp_weighting,
        seed=c.seed,
        scale=spec_scale(c.game, run.options),
    )


def main_module_id(run: RLlibRun) -> str:
    """The module id of the trained policy: ``main`` (per-game), RLlib's default (batched)."""
    if run.config.sampler == "batched":
        from ray.rllib.core import DEFAULT_MODULE_ID

        return str(DEFAULT_MODULE_ID)
    from cardsuite.train.rllib.checkpoints import MAIN

    return MAIN


def learner_snapshot(algo: Any, run: RLlibRun, step: int) -> Snapshot:
    """A snapshot of the learner's current actor."""
    mid = main_module_id(run)
    weights = algo.learner_group.get_weights(module_ids=[mid])[mid]
    return actor_snapshot(weights, step, run.config.model_config(), spec_scale(
        run.config.game, run.options))  # fmt: skip


# ---------------------------------------------------------------- the runners
def runner_envs(env_runner: Any) -> list[Any]:
    """The suite envs of one env runner (the per-game envs, or the batched env)."""
    env = getattr(env_runner, "env", None)
    if env is None:
        return []
    subs = getattr(env, "envs", None) or getattr(env.unwrapped, "envs", None)
    return [e.unwrapped for e in subs] if subs else [env.unwrapped]


def take_outcomes(env_runner: Any) -> tuple[np.ndarray, np.ndarray]:
    """On a runner: its envs' outcomes since the last call (member ids, learner outcomes)."""
    parts = [env.take_outcomes() for env in runner_envs(env_runner)]
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def set_table(env_runner: Any, table: Sequence[SeatMember]) -> int:
    """On a runner: every env seats its opponents from ``table``; how many envs."""
    envs = runner_envs(env_runner)
    for env in envs:
        env.set_table(table)
    return len(envs)


def merge_outcomes(league: League, parts: Iterable[tuple[np.ndarray, np.ndarray]]) -> int:
    """Record every runner's outcomes in ``league`` (members it no longer knows are skipped).

    Returns the number of games recorded.
    """
    count = 0
    for ids, outcomes in parts:
        ids, outcomes = np.asarray(ids, dtype=np.int64), np.asarray(outcomes, dtype=np.float64)
        known = np.array([league.knows(int(i)) for i in ids], dtype=bool)
        if known.any():
            league.record(ids[known], outcomes[known])
        count += int(known.sum())
    return count


def push_table(group: Any, league: League, runner_ids: list[int] | None = None) -> None:
    """Send ``league``'s draw table to the env runners (all, or ``runner_ids``)."""
    table = league.seat_table()
    if runner_ids is None:
        group.foreach_env_runner(lambda r: set_table(r, table), local_env_runner=True)
    else:
        group.foreach_env_runner(lambda r: set_table(r, table), local_env_runner=False,
                                 remote_worker_ids=list(runner_ids))  # fmt: skip


def sync_league(algo: Any, run: RLlibRun, league: League, step: int | None) -> int:
    """Merge the runners' outcomes into ``league``, add a snapshot of the learner at
    ``step`` (None: none), send the table back; the number of games merged."""
    parts = algo.env_runner_group.foreach_env_runner(take_outcomes, local_env_runner=True)
    games = merge_outcomes(league, parts)
    if step is not None:
        league.add_snapshot(learner_snapshot(algo, run, step))
    league.prune(np.zeros(0, dtype=np.int64))  # the driver plays no game: retired ones go
    push_table(algo.env_runner_group, league)
    return games


def league_names(algo: Any) -> list[list[str]]:
    """The member names each remote env runner's first env seats from (tests, logs)."""
    return list(
        algo.env_runner_group.foreach_env_runner(
            lambda r: [m.name for m in runner_envs(r)[0].table], local_env_runner=False
        )
    )


class LeagueCallbacks(IllegalActionCounter):
    """The illegal-action metric, plus: a recreated env runner gets the League's table back."""

    def on_env_runners_recreated(
        self,
        *,
        algorithm: Any,
        env_runner_group: Any,
        env_runner_indices: list[int],
        is_evaluation: bool,
        **kwargs: Any,
    ) -> None:
        """Send the driver League's table to the restarted runners (they start with baselines)."""
        league: League | None = getattr(algorithm, "cardsuite_league", None)
        if league is not None and not is_evaluation:
            push_table(env_runner_group, league, list(env_runner_indices))


# --------------------------------------------------------------- checkpoints
def save_league(league: League, folder: Path) -> None:
    """``league.json`` (`League.state`, activation) and ``league.safetensors`` (snapshots)."""
    from cardsuite.agents.learned.safe_io import save_tensors

    snaps = league.snapshots()
    tensors = {f"{_key(m.name)}/{k}": np.asarray(v) for m in [*league.members, *league.retired.values()]
               if m.snapshot is not None for k, v in m.snapshot.params.items()}  # fmt: skip
    if tensors:
        save_tensors(folder / LEAGUE_FILE, tensors)
    doc = {"state": league.state(), "activation": snaps[0].activation if snaps else None}
    (folder / LEAGUE_STATE).write_text(json.dumps(doc), encoding="utf-8")


def _key(name: str) -> str:
    """A member's name as a safetensors key prefix (``snapshot@7`` -> ``snapshot-7``)."""
    return name.replace("@", "-")


def load_league(folder: Path, run: RLlibRun) -> League:
    """The League saved in ``folder`` (a fresh one if it holds none).

    Checkpoints of cardsuite 0.4 kept only the batched sampler's snapshots
    (``steps``): they come back as snapshots with fresh PFSP counts.
    """
    from cardsuite.agents.learned.safe_io import load_tensors_numpy

    league = make_league(run)
    where = folder / LEAGUE_STATE
    if not where.is_file():
        return league
    doc = safe_json.read_file(where, "league state", error=CheckpointError)
    if not isinstance(doc, dict):
        raise CheckpointError(f"{where}: expected a JSON object")
    tensors = load_tensors_numpy(folder / LEAGUE_FILE) if (folder / LEAGUE_FILE).is_file() else {}

    def params(name: str) -> dict[str, np.ndarray]:
        prefix = _key(name)
        found = {k[len(prefix) + 1 :]: v for k, v in tensors.items() if k.startswith(prefix + "/")}
        if not found:
            raise CheckpointError(f"{folder / LEAGUE_FILE}: snapshot {prefix} is missing")
        return found

    activation = doc.get("activation") or run.config.activation
    if activation not in ("tanh", "relu"):
        raise CheckpointError(f"{where}: field 'activation' must be tanh or relu")
    if "state" in doc:
        try:
            league.restore(doc["state"], params, activation)
        except (KeyError, TypeError, ValueError) as err:
            raise CheckpointError(f"{where}: field 'state' is not a League state: {err}") from None
        return league
    steps = doc.get("steps")
    if not isinstance(steps, list) or not all(type(s) is int for s in steps):
        raise CheckpointError(f"{where}: 'steps' must be a list of integers")
    scale = spec_scale(run.config.game, run.options)
    for i, step in enumerate(steps):  # 0.4: whole modules, or actors with the module's scale
        w = params(str(i))
        if doc.get("actor") is True:
            w = {"pi." + k: v for k, v in w.items()} | {"obs_scale": tensors["scale"]}
        league.add_snapshot(actor_snapshot(w, step, run.config.model_config(), scale))
    league.prune(np.zeros(0, dtype=np.int64))
    return league
