"""``cardsuite train``: self-play MaskablePPO from a config file (``--backend rllib``: RLlib).

``cardsuite train --config scum_quick --run-dir runs/scum_quick``, then ``cardsuite train
--resume runs/scum_quick --total-steps 400000``. No torch is imported at start.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import Any

from cardsuite.errors import ConfigError
from cardsuite.train.core.cli import (
    COMMON,
    add_run_flags,
    common_values,
    reject_unknown,
    resolve_preset,
    run_dir,
    set_values,
)
from cardsuite.train.core.log import format_report
from cardsuite.train.core.rundir import plan_run, recorded_config, restartable
from cardsuite.train.sb3.config import TrainConfig, check_baselines, load_config


def add_command(subparsers: Any) -> tuple[str, Any]:
    """Register ``train`` on the cardsuite CLI; return its name and runner."""
    parser = subparsers.add_parser(
        "train",
        allow_abbrev=False,
        help="train an agent by self-play (MaskablePPO, or RLlib with --backend rllib)",
        description=(
            "Train MaskablePPO by self-play against a pool of random, heuristic and "
            "frozen copies of itself; evaluates against baselines and checkpoints "
            "on a schedule and on Ctrl-C."
        ),
        epilog="Fields for --set: " + ", ".join(TrainConfig.field_names()),
    )
    add_run_flags(parser)
    parser.add_argument(
        "--backend",
        choices=("sb3", "rllib"),
        default="sb3",
        help="sb3: MaskablePPO (default); rllib: the RLlib backend",
    )
    parser.add_argument(
        "--address",
        default=None,
        metavar="HOST:PORT",
        help="rllib backend: an existing Ray cluster (ray start --head); default a local Ray",
    )
    parser.set_defaults(train_parser=parser)
    return "train", run


def shared_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """``--set`` and ``--rule`` values with the shared flags mapped onto TrainConfig's fields."""
    return {**set_values(TrainConfig, args), **common_values(args)}


def resolve_config(args: argparse.Namespace) -> TrainConfig:
    """The config of ``--config`` (or of the resumed checkpoint) with the flags applied."""
    overrides = shared_overrides(args)
    if args.config is None and args.resume is not None:
        from cardsuite.train.sb3.checkpoint import read_config  # validated JSON, never a pickle

        recorded = recorded_config(args.resume) if restartable(Path(args.resume)) else None
        saved = recorded if recorded is not None else read_config(args.resume).to_dict()
        options = {**saved.get("options", {}), **overrides.pop("options", {})}
        return TrainConfig.from_dict({**saved, **overrides, "options": options})
    return load_config(resolve_preset(args.config), overrides)


#: The shared flags (flag -> Namespace name).
COMMON_FLAGS = {"--" + name.replace("_", "-"): name for name in COMMON}
TRAIN_EXTRA_MODULES = ("torch", "stable_baselines3", "sb3_contrib", "safetensors", "tensorboard")


def require_train_extra(command: str, module: str) -> Any:
    """Import ``module`` (which needs torch and SB3); a ConfigError naming the extra if absent."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        top = (err.name or "").split(".")[0]
        if top in TRAIN_EXTRA_MODULES:
            raise ConfigError(
                f"{command} needs the train extra ({top} is not installed): "
                "pip install 'cardsuite[train]'"
            ) from None
        raise


def run(args: argparse.Namespace, extra: list[str]) -> int:
    """Run ``cardsuite train``; returns the exit status."""
    if args.backend == "rllib":
        return _run_rllib(args, extra)
    if args.address is not None:
        raise ConfigError("--address is for --backend rllib (a Ray cluster)")
    reject_unknown(args.train_parser, extra)
    if args.config is None and args.resume is None:
        raise ConfigError("give --config FILE (configs/train/*.yaml) or --resume DIR")
    config = resolve_config(args)
    check_baselines(config)  # every check before any work; the last one makes the run folder
    default = Path("runs") / (Path(args.config).stem if args.config else "default")
    plan = plan_run(run_dir(args), args.resume, default, "cardsuite train", config.record())
    out = plan.run_dir
    train = require_train_extra("cardsuite train", "cardsuite.train.sb3.trainer").train

    result = train(config, out, resume=args.resume if plan.checkpoint is not None else None)
    if result.interrupted:
        return 130
    print(
        f"\n{config.game}: trained {result.step} steps in {result.seconds:.0f} s; "
        f"checkpoint {result.checkpoint}"
    )
    print(format_report(result.report))
    print(f"report: {out / 'report.md'}   curves: {out / 'curves.png'}   tensorboard: {out / 'tb'}")
    return 0


def _run_rllib(args: argparse.Namespace, extra: list[str]) -> int:
    """Hand the parsed arguments and RLlib's own flags left over (``extra``) to the RLlib
    backend (``train.rllib.trainer:run``)."""
    try:
        importlib.import_module("ray")
    except ModuleNotFoundError:
        raise ConfigError(
            "--backend rllib needs ray[rllib] (pip install 'ray[rllib]==2.60'); "
            "or use the default --backend sb3"
        ) from None
    try:
        module = importlib.import_module("cardsuite.train.rllib.trainer")
    except ModuleNotFoundError as err:
        if err.name is not None and err.name.startswith("cardsuite.train.rllib"):
            raise ConfigError(
                "the RLlib backend (train.rllib) is not part of this install"
            ) from None
        raise
    status: int = module.run(args.config, module.namespace(args, extra))
    return status
