"""Checkpoints of the RLlib trainer: save with a run record, resolve, restore; evaluation.

A checkpoint ``checkpoint_dir/iter_NNNNNN`` holds RLlib's own files
(``Algorithm.save_to_path``, for RLlib's tools), ``cardsuite_run.json`` (game,
rule options, league, iteration, config), ``main_module.safetensors`` (what
``rllib:PATH`` loads), ``modules.safetensors`` (the weights of every module:
``main`` and the league slots) and, for batched runs, the league's snapshots as
``league.safetensors``; ``checkpoint_dir/LATEST`` names the newest.

``--resume`` reads only the JSON record and the safetensors files: RLlib's
own state files are cloudpickles (``state.pkl``, ``class_and_ctor_args.pkl``)
or msgpack-numpy, whose object arrays are unpickled too, so a crafted
checkpoint could run code through ``Algorithm.restore_from_path``. The
algorithm is rebuilt from the run's config, every module gets its saved
weights and the iteration counter goes on from the record. The optimizer's
moments are not restored: Adam warms up again over the first updates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardsuite import safe_json
from cardsuite.errors import CheckpointError
from cardsuite.train.rllib.config import RLlibRun

MAIN = "main"
RUN_RECORD = "cardsuite_run.json"
LATEST = "LATEST"
MODULES_FILE = "modules.safetensors"


def league_id(slot: int) -> str:
    """The module id of league slot ``slot``."""
    return f"league_{slot}"


@dataclass
class LeagueState:
    """Which league slots exist and how many copies were ever added."""

    slots: list[str]
    added: int = 0

    def next_slot(self, size: int) -> str:
        """The slot the next frozen copy goes to (a new one until ``size``, then the oldest)."""
        return league_id(self.added % size)


def resolve_checkpoint(path: str | Path) -> Path:
    """The RLlib checkpoint at ``path`` (a checkpoint, or a checkpoint dir with LATEST).

    Raises:
        CheckpointError: missing, or not an RLlib checkpoint of this trainer.
    """
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"checkpoint {str(path)!r} not found")
    if (path / LATEST).is_file():
        path = path / (path / LATEST).read_text(encoding="utf-8").strip()
    if not (path / RUN_RECORD).is_file() or not (path / "learner_group").is_dir():
        raise CheckpointError(
            f"{str(path)!r} is not a cardsuite RLlib checkpoint (no {RUN_RECORD} and "
            "learner_group/ inside); pass a checkpoint_dir/iter_NNNNNN folder or a "
            "checkpoint_dir holding LATEST"
        )
    return path


def read_record(path: str | Path) -> dict[str, Any]:
    """The run record (game, options, league) of the checkpoint at ``path``."""
    ckpt = resolve_checkpoint(path)
    record = safe_json.read_file(ckpt / RUN_RECORD, "run record", error=CheckpointError)
    if not isinstance(record, dict) or not {"game", "options", "league"} <= set(record):
        raise CheckpointError(f"{ckpt / RUN_RECORD}: missing game, options or league")
    return record


def save(
    algo: Any,
    run: RLlibRun,
    league: LeagueState,
    illegal_actions: int | None = None,
    driver_league: Any = None,
) -> Path:
    """Save an RLlib checkpoint with its run record; point LATEST at it.

    ``illegal_actions``: episodes ended by an illegal action so far (the
    record keeps it; it stays 0 with the masked module; None: not measured).
    ``driver_league``: a batched run's driver `League` (its snapshots, saved as safetensors).
    """
    root = Path(run.config.checkpoint_dir).resolve()
    name = f"iter_{algo.iteration:06d}"
    ckpt = Path(algo.save_to_path(root / name))
    from cardsuite.train.rllib.policy import export_module  # rllib:PATH loads only this

    mid = MAIN
    if run.config.sampler == "batched":
        from cardsuite.train.rllib.batched import main_module_id

        mid = main_module_id()
    weights = algo.learner_group.get_weights()
    export_module(weights[mid], ckpt)
    save_modules(weights, ckpt)
    if driver_league is not None:
        from cardsuite.train.rllib.batched import save_league

        save_league(driver_league, ckpt)
    record = {
        "game": run.config.game,
        "options": run.options,
        "league": league.slots,
        "league_added": league.added,
        "iteration": algo.iteration,
        "illegal_actions": illegal_actions,
        "config": run.config.to_dict(),
    }
    (ckpt / RUN_RECORD).write_text(json.dumps(record, indent=2), encoding="utf-8")
    (root / LATEST).write_text(name, encoding="utf-8")
    return ckpt


def save_modules(weights: dict[str, Any], ckpt: Path) -> Path:
    """Every module's weights as one safetensors file, keyed ``module_id/parameter``."""
    from cardsuite.train.safe_io import save_tensors

    flat = {
        f"{mid}/{name}": value for mid, state in weights.items() for name, value in state.items()
    }
    return save_tensors(ckpt / MODULES_FILE, flat)


def load_modules(ckpt: Path, module_ids: list[str]) -> dict[str, dict[str, Any]]:
    """The saved weights of ``module_ids`` (safetensors only; CheckpointError if any is missing)."""
    from cardsuite.train.safe_io import load_tensors

    path = ckpt / MODULES_FILE
    if not path.is_file():
        raise CheckpointError(
            f"{str(ckpt)!r} has no {MODULES_FILE} (written by cardsuite 0.2 and later); "
            "RLlib's own state files are pickles that cardsuite never loads"
        )
    tensors = load_tensors(path)
    weights: dict[str, dict[str, Any]] = {mid: {} for mid in module_ids}
    for key, value in tensors.items():
        mid, _, name = key.partition("/")
        if mid in weights:
            weights[mid][name] = value
    missing = [mid for mid, state in weights.items() if not state]
    if missing:
        raise CheckpointError(f"{path}: no weights for module(s) {', '.join(missing)}")
    return weights


def _set_weights(algo: Any, weights: dict[str, dict[str, Any]], iteration: int) -> None:
    """Load ``weights`` into the learners and every env runner; go on from ``iteration``."""
    try:
        algo.learner_group.set_weights(weights)
    except (RuntimeError, KeyError, ValueError) as err:
        raise CheckpointError(f"the saved weights do not fit this run's modules: {err}") from None
    algo.env_runner_group.sync_weights(
        from_worker_or_learner_group=algo.learner_group, inference_only=True
    )
    algo._iteration = iteration  # Trainable's counter: the next iteration is iteration + 1


def restore(algo_run: RLlibRun, path: str | Path) -> tuple[Any, LeagueState]:
    """Rebuild the algorithm of the checkpoint at ``path`` from its safe files.

    Raises:
        CheckpointError: the checkpoint is for another game or rule options, or
            its safetensors files are missing or do not fit the run.
    """
    ckpt = resolve_checkpoint(path)
    record = read_record(ckpt)
    if record["game"] != algo_run.config.game or record["options"] != algo_run.options:
        raise CheckpointError(
            f"{ckpt} was trained on {record['game']} with options {record['options']}; "
            f"this run is {algo_run.config.game} with options {algo_run.options}"
        )
    iteration = record.get("iteration")
    if not isinstance(iteration, int) or isinstance(iteration, bool) or iteration < 0:
        raise CheckpointError(f"{ckpt / RUN_RECORD}: field 'iteration' must be an int >= 0")
    from cardsuite.train.rllib.trainer import build_config

    league = LeagueState(list(record["league"]), int(record.get("league_added", 0)))
    if algo_run.config.sampler == "batched":
        from cardsuite.train.rllib.batched import build_batched, main_module_id

        batched_algo, driver_league = build_batched(algo_run, ckpt)
        _set_weights(batched_algo, load_modules(ckpt, [main_module_id()]), iteration)
        batched_algo.cardsuite_league = driver_league
        return batched_algo, league
    algo = build_config(algo_run, league.slots).build_algo()
    _set_weights(algo, load_modules(ckpt, [MAIN, *league.slots]), iteration)
    return algo, league


# ------------------------------------------------------------------ evaluation
def evaluate(checkpoint: Path, run: RLlibRun, episodes: int, step: int = 0) -> Any:
    """Duplicate deals of ``rllib:<checkpoint>`` against ``eval_opponent`` (the core's
    evaluator, `cardsuite.train.core.evaluate.evaluate_specs`); write eval.json."""
    from cardsuite.games import get_game
    from cardsuite.train.core.evaluate import evaluate_specs

    game = get_game(run.config.game)
    config = game.config_class().from_dict(run.options).to_dict()
    rows = evaluate_specs(
        f"rllib:{checkpoint}", [run.config.eval_opponent], game=game.name, config=config,
        deals=episodes, seed=run.config.seed, step=step,
    )  # fmt: skip
    (checkpoint / "eval.json").write_text(
        json.dumps([r.to_dict() for r in rows], indent=2), encoding="utf-8"
    )
    return rows


def _arena_knows_rllib() -> bool:
    try:
        from cardsuite.agents.registry import KINDS
    except ImportError:
        return False
    return "rllib" in KINDS
