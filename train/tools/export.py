"""``cardsuite export``: convert a trusted SB3 zip or RLlib checkpoint to a safe format.

Such files may carry pickles that run code when loaded; this command loads one only with
`TRUST_FLAG` and writes the policy as safetensors + JSON (``ppo:DIR`` or ``rllib:DIR``)::

    cardsuite export model.zip --out agents/mine --game scum --players 4 \
        --trust-pickle-this-file-can-run-code
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

from cardsuite.agents.base import table_info
from cardsuite.agents.learned.files import CHECKPOINT_DIR, PREVIOUS_DIR, read_json_file
from cardsuite.agents.learned.rllib import MAIN, MODULE_DIR, RUN_RECORD, export_module, read_record
from cardsuite.agents.learned.safe_io import save_agent
from cardsuite.cli import RULE_HELP, add_table_flag, table_options
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.games import get_game
from cardsuite.train.sb3.config import TrainConfig

TRUST_FLAG = "--trust-pickle-this-file-can-run-code"


def add_command(subparsers: Any) -> tuple[str, Any]:
    """Register ``export`` on the cardsuite CLI; return its name and runner."""
    parser = subparsers.add_parser(
        "export",
        help="convert a trusted SB3 model.zip or RLlib checkpoint into a safe agent",
        description=(
            "Load a stable-baselines3 MaskablePPO zip (it can run code: only with "
            f"{TRUST_FLAG}) and write its policy as safetensors + JSON."
        ),
    )
    parser.add_argument("source", help="a model.zip, or an old checkpoint/run directory")
    parser.add_argument("--out", required=True, help="the agent directory to write (new)")
    add_table_flag(parser, "--game", "the game it was trained on (default: from state.json)")
    add_table_flag(parser, "--players", "players at its table (default: from state.json)")
    add_table_flag(parser, "--rule", RULE_HELP + " (default: from state.json)")
    parser.add_argument(
        TRUST_FLAG,
        dest="trust",
        action="store_true",
        help="load the zip although unpickling it can run arbitrary code (trusted files only)",
    )
    return "export", run


def _source(path: Path) -> tuple[Path, dict[str, Any] | None]:
    """The zip and the old checkpoint's config (if any) behind ``path``."""
    if path.is_file():
        return path, None
    for ckpt in (path, path / CHECKPOINT_DIR, path / PREVIOUS_DIR):
        if (ckpt / "model.zip").is_file():
            config = None
            if (ckpt / "state.json").is_file():
                doc = read_json_file(ckpt / "state.json", f"{ckpt}/state.json")
                config = doc.get("config") if isinstance(doc, dict) else None
            return ckpt / "model.zip", config if isinstance(config, dict) else None
    raise CheckpointError(f"{str(path)!r}: no model.zip to export")


def _export_rllib(source: Path, out: Path) -> int:
    """Write a trusted RLlib checkpoint's main module as ``main_module.safetensors``."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    read_record(source)  # a valid record before anything is unpickled
    try:  # the user opted in: this unpickles
        module = RLModule.from_checkpoint(source / MODULE_DIR / MAIN)
    except Exception as err:
        raise CheckpointError(f"cannot load {source / MODULE_DIR / MAIN}: {err}") from None
    out.mkdir(parents=True)
    shutil.copyfile(source / RUN_RECORD, out / RUN_RECORD)
    export_module(module.state_dict(), out)  # type: ignore[attr-defined]
    print(f"exported {source} -> {out} (play it as rllib:{out})")
    return 0


def run(args: argparse.Namespace, extra: list[str]) -> int:
    """Run ``cardsuite export``; returns the exit status."""
    source, out = Path(args.source), Path(args.out)
    rllib = (source / "cardsuite_run.json").is_file() and (source / "learner_group").is_dir()
    zip_path, saved = (source, None) if rllib else _source(source)
    if not args.trust:
        what = (
            "an RLlib checkpoint: its files are cloudpickles that can run arbitrary code when "
            "loaded"
            if rllib
            else "a stable-baselines3 zip: loading it unpickles its 'data' entry, which can run "
            "arbitrary code"
        )
        raise ConfigError(
            f"{str(zip_path)!r} is {what}. Only if you trust where it came from, rerun with "
            f"{TRUST_FLAG}"
        )
    if out.exists():
        raise ConfigError(f"--out {args.out!r} already exists; choose a new directory")
    if rllib:
        return _export_rllib(source, out)
    name = args.game or (saved or {}).get("game")
    if not isinstance(name, str):
        raise ConfigError("give --game: the zip does not say which game it was trained on")
    game = get_game(name)
    saved = dict(TrainConfig.upgrade(saved or {}))  # a config of any version's names
    options = dict(saved.get("options") or {})
    if saved.get("num_players") is not None:
        options["num_players"] = saved["num_players"]
    options = table_options(game, args, extra, options)
    game.config_class().from_dict(options)  # ConfigError naming a bad option

    from cardsuite.train.core.learned import agent_meta
    from cardsuite.train.sb3.cli import require_train_extra

    MaskablePPO = require_train_extra("cardsuite export", "sb3_contrib").MaskablePPO

    try:
        model = MaskablePPO.load(zip_path, device="cpu")  # the user opted in: this unpickles
    except Exception as err:  # a corrupt zip fails in many ways
        raise CheckpointError(
            f"cannot load {str(zip_path)!r}: {type(err).__name__}: {err}"
        ) from None
    env = game.make(**options)
    env.reset(seed=0)
    table = table_info(env, game.name, env.agent_selection)
    meta = agent_meta(
        model.policy,
        game=game.name,
        options=options,
        step=int(model.num_timesteps),
        config=json.loads(json.dumps(saved, default=str)),
    )
    if (meta.obs_size, meta.num_actions) != (table.obs_spec.size, table.num_actions):
        raise CheckpointError(
            f"{str(zip_path)!r}: the policy reads {meta.obs_size} features and scores "
            f"{meta.num_actions} actions; a {game.name} table with these options has "
            f"{table.obs_spec.size} and {table.num_actions} (other game or rule options?)"
        )
    save_agent(out, model.policy.state_dict(), meta)
    print(f"exported {zip_path} -> {out} (play it as ppo:{out})")
    return 0
