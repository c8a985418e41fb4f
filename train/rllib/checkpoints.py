"""Checkpoints of the RLlib trainer: RLlib's own for resuming, the core's for everyone else.

Every checkpoint writes two things into ``checkpoint_dir`` (the run folder):

* ``iter_NNNNNN/``: RLlib's own files (``Algorithm.save_to_path``, for
  RLlib's tools), ``cardsuite_run.json`` (game, rule options, iteration,
  config), ``main_module.safetensors`` (the trained module's weights: what
  ``--resume`` and ``rllib:PATH`` load) and the League in the core's format
  (``league.json`` + ``league.safetensors``,
  `cardsuite.train.rllib.league.save_league`); ``LATEST`` names the newest;
* ``checkpoint/``: the training core's checkpoint
  (`cardsuite.train.core.checkpoint.write_checkpoint`, atomic, with a
  SHA-256 manifest) holding ``agent/``, the learner's actor in the safe agent
  format (safetensors + ``agent.json``, a `NetworkSpec` MLP with the module's
  observation scale folded into its first layer), the League and a
  ``state.json``. So ``ppo:RUN_DIR`` (``cardsuite.load_agent``, the arena,
  ``cardsuite benchmark``) plays an RLlib-trained agent exactly as any other
  trainer's, by the core's numpy forward pass, without ray or torch.

``--resume`` reads only the JSON record and the safetensors files: RLlib's
own state files are cloudpickles (``state.pkl``, ``class_and_ctor_args.pkl``)
or msgpack-numpy, whose object arrays are unpickled too, so a crafted
checkpoint could run code through ``Algorithm.restore_from_path``. The
algorithm is rebuilt from the run's config, the module gets its saved
weights, the League its saved state, and the iteration counter goes on from
the record. The optimizer's moments are not restored: Adam warms up again
over the first updates.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cardsuite import safe_json
from cardsuite.agents.learned.netspec import Snapshot
from cardsuite.errors import CheckpointError
from cardsuite.train.core.league import League
from cardsuite.train.rllib.config import RLlibRun

MAIN = "main"
RUN_RECORD = "cardsuite_run.json"
LATEST = "LATEST"
TRAINER = "rllib-ppo"


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
    """The run record (game, options, iteration, config) of the checkpoint at ``path``."""
    ckpt = resolve_checkpoint(path)
    record = safe_json.read_file(ckpt / RUN_RECORD, "run record", error=CheckpointError)
    if not isinstance(record, dict) or not {"game", "options"} <= set(record):
        raise CheckpointError(f"{ckpt / RUN_RECORD}: missing game or options")
    return record


def save(algo: Any, run: RLlibRun, league: League, illegal_actions: int | None = None) -> Path:
    """Save RLlib's checkpoint with its run record and League, then the core checkpoint.

    ``illegal_actions``: episodes ended by an illegal action so far (the
    record keeps it; it stays 0 with the masked module; None: not measured).
    Returns RLlib's checkpoint folder (``iter_NNNNNN``).
    """
    from cardsuite.train.rllib.league import learner_snapshot, main_module_id, save_league
    from cardsuite.train.rllib.policy import export_module

    root = Path(run.config.checkpoint_dir).resolve()
    name = f"iter_{algo.iteration:06d}"
    ckpt = Path(algo.save_to_path(root / name))
    mid = main_module_id(run)
    export_module(algo.learner_group.get_weights(module_ids=[mid])[mid], ckpt)
    save_league(league, ckpt)
    record = {
        "game": run.config.game,
        "options": run.options,
        "iteration": algo.iteration,
        "illegal_actions": illegal_actions,
        "config": run.config.to_dict(),
    }
    (ckpt / RUN_RECORD).write_text(json.dumps(record, indent=2), encoding="utf-8")
    (root / LATEST).write_text(name, encoding="utf-8")
    write_core(run, league, learner_snapshot(algo, run, algo.iteration), name)
    return ckpt


def write_core(run: RLlibRun, league: League, actor: Snapshot, rllib_checkpoint: str) -> Path:
    """The core checkpoint ``checkpoint_dir/checkpoint``: ``agent/``, the League, ``state.json``."""
    from cardsuite.agents.learned.safe_io import AgentMeta, save_agent
    from cardsuite.train.core.checkpoint import write_checkpoint
    from cardsuite.train.rllib.league import save_league

    weight = actor.params[f"{actor.network.actor[0]}.weight"]
    meta = AgentMeta(
        game=run.config.game, options=dict(run.options), obs_size=int(weight.shape[1]),
        num_actions=int(actor.params[f"{actor.network.actor[-1]}.bias"].shape[0]),
        network=actor.network, step=actor.step, trainer=TRAINER, config=run.config.to_dict(),
    )  # fmt: skip

    def fill(folder: Path) -> dict[str, Any]:
        save_agent(folder / "agent", actor.params, meta)
        save_league(league, folder)
        return {"trainer": TRAINER, "game": run.config.game, "options": dict(run.options),
                "iteration": actor.step, "rllib_checkpoint": rllib_checkpoint}  # fmt: skip

    return write_checkpoint(run.config.checkpoint_dir, fill)


def restore(run: RLlibRun, path: str | Path) -> tuple[Any, League]:
    """Rebuild the algorithm and League of the checkpoint at ``path`` from its safe files.

    Raises:
        CheckpointError: the checkpoint is for another game or rule options, or
            its safetensors files are missing or do not fit the run.
    """
    from cardsuite.agents.learned.safe_io import load_tensors
    from cardsuite.train.rllib.league import load_league, main_module_id, push_table
    from cardsuite.train.rllib.policy import PICKLE_REFUSAL, SAFE_MODULE_FILE
    from cardsuite.train.rllib.trainer import build

    ckpt = resolve_checkpoint(path)
    record = read_record(ckpt)
    if record["game"] != run.config.game or record["options"] != run.options:
        raise CheckpointError(
            f"{ckpt} was trained on {record['game']} with options {record['options']}; "
            f"this run is {run.config.game} with options {run.options}"
        )
    iteration = record.get("iteration")
    if not isinstance(iteration, int) or isinstance(iteration, bool) or iteration < 0:
        raise CheckpointError(f"{ckpt / RUN_RECORD}: field 'iteration' must be an int >= 0")
    if not (ckpt / SAFE_MODULE_FILE).is_file():
        raise CheckpointError(f"{str(ckpt)!r} has no {SAFE_MODULE_FILE}; {PICKLE_REFUSAL}")
    weights = load_tensors(ckpt / SAFE_MODULE_FILE)
    league = load_league(ckpt, run)
    algo = build(run, league)
    try:
        algo.learner_group.set_weights({main_module_id(run): weights})
    except (RuntimeError, KeyError, ValueError) as err:
        raise CheckpointError(f"the saved weights do not fit this run's module: {err}") from None
    algo.env_runner_group.sync_weights(
        from_worker_or_learner_group=algo.learner_group, inference_only=True
    )
    algo._iteration = iteration  # Trainable's counter: the next iteration is iteration + 1
    push_table(algo.env_runner_group, league)
    return algo, league


# ------------------------------------------------------------------ evaluation
def evaluate(checkpoint: Path, run: RLlibRun, episodes: int, step: int = 0) -> Any:
    """Duplicate deals of the run's core checkpoint (``ppo:checkpoint_dir``) against
    ``eval_opponent`` (the core's evaluator, `evaluate_specs`); eval.json in ``checkpoint``."""
    from cardsuite.games import get_game
    from cardsuite.train.core.evaluate import evaluate_specs

    game = get_game(run.config.game)
    config = game.config_class().from_dict(run.options).to_dict()
    rows = evaluate_specs(
        f"ppo:{Path(run.config.checkpoint_dir).resolve()}", [run.config.eval_opponent],
        game=game.name, config=config, deals=episodes, seed=run.config.seed, step=step,
    )  # fmt: skip
    (checkpoint / "eval.json").write_text(
        json.dumps([r.to_dict() for r in rows], indent=2), encoding="utf-8"
    )
    return rows
