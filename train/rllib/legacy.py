"""Resuming an RLlib run of an older cardsuite from its ``iter_NNNNNN/`` checkpoint: only the
safe files are read (never RLlib's pickles), and the run goes on in today's format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from cardsuite import safe_json
from cardsuite.agents.learned.rllib import (
    PICKLE_REFUSAL,
    SAFE_MODULE_FILE,
    actor_snapshot,
    read_record,
    spec_scale,
)
from cardsuite.agents.learned.safe_io import load_tensors_numpy
from cardsuite.errors import CheckpointError
from cardsuite.train.core.league import League
from cardsuite.train.core.learned import load_tensors
from cardsuite.train.core.rundir import RunPlan, check_run_dir
from cardsuite.train.rllib.config import RLlibTrainConfig
from cardsuite.train.rllib.league import make_league

LEAGUE_FILE, LEAGUE_STATE = "league.safetensors", "league.json"


def legacy_plan(config: RLlibTrainConfig, folder: Path) -> RunPlan:
    """Where a resumed older run writes: ``run_dir``, or the folder of its checkpoints."""
    home = folder.parent
    out = Path(config.run_dir) if config.run_dir else home
    in_place = out.exists() and out.resolve() == home.resolve()
    if not in_place:
        check_run_dir(out, None)
    return RunPlan(out, None, in_place)


def read_legacy(folder: Path, config: RLlibTrainConfig) -> tuple[int, dict[str, Any], League]:
    """The iteration, the module's weights (torch) and the League of the checkpoint ``folder``.

    Raises:
        CheckpointError: another game or rule options, a bad record, or the
            safetensors files missing or unreadable.
    """
    record = read_record(folder)
    if record["game"] != config.game or record["options"] != config.env_options():
        raise CheckpointError(
            f"{folder} was trained on {record['game']} with options {record['options']}; "
            f"this run is {config.game} with options {config.env_options()}"
        )
    iteration = record.get("iteration")
    if not isinstance(iteration, int) or isinstance(iteration, bool) or iteration < 0:
        raise CheckpointError(f"{folder}: cardsuite_run.json field 'iteration' must be an int >= 0")
    if not (folder / SAFE_MODULE_FILE).is_file():
        raise CheckpointError(f"{str(folder)!r} has no {SAFE_MODULE_FILE}; {PICKLE_REFUSAL}")
    return iteration, load_tensors(folder / SAFE_MODULE_FILE), load_league(folder, config)


def load_league(folder: Path, config: RLlibTrainConfig) -> League:
    """The League saved in ``folder`` (a fresh one if it holds none): a `League.state`, or
    an older checkpoint's list of snapshot steps (fresh PFSP counts)."""
    league = make_league(config)
    where = folder / LEAGUE_STATE
    if not where.is_file():
        return league
    doc = safe_json.read_file(where, "league state", error=CheckpointError)
    if not isinstance(doc, dict):
        raise CheckpointError(f"{where}: expected a JSON object")
    tensors = load_tensors_numpy(folder / LEAGUE_FILE) if (folder / LEAGUE_FILE).is_file() else {}

    def params(name: str) -> dict[str, np.ndarray]:
        prefix = name.replace("@", "-")  # a member's name as a safetensors key prefix
        found = {k[len(prefix) + 1 :]: v for k, v in tensors.items() if k.startswith(prefix + "/")}
        if not found:
            raise CheckpointError(f"{folder / LEAGUE_FILE}: snapshot {prefix} is missing")
        return found

    activation = doc.get("activation") or config.activation
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
    scale = spec_scale(config.game, config.env_options())
    for i, step in enumerate(steps):  # whole modules, or actors with the module's scale
        w = params(str(i))
        if doc.get("actor") is True:
            w = {"pi." + k: v for k, v in w.items()} | {"obs_scale": tensors["scale"]}
        league.add_snapshot(actor_snapshot(w, step, config.activation, scale))
    league.prune(np.zeros(0, dtype=np.int64))
    return league
