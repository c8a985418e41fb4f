"""Distributed self-play PPO on Ray RLlib (new API stack).

``cardsuite train --backend rllib --config configs/train/rllib_scum.yaml``
calls `run`. One policy, ``main``, is trained. Its opponents come from the
training core's League on the driver (`cardsuite.train.rllib.league`: the
game's real heuristic, random, frozen snapshots of ``main`` drawn by PFSP):
with the per-game sampler, ``main`` plays every seat of a self-play episode,
and in a share ``league_prob`` of the episodes one seat against League
members seated inside the env; with the batched sampler, one seat per game
against the League or the newest snapshot. Every ``league_every`` iterations
the driver merges the runners' outcomes into the League, adds a snapshot of
``main`` and sends the League's draw table back to the runners.

Checkpoints (`checkpoints`): RLlib's own in ``checkpoint_dir/iter_NNNNNN``
(``LATEST`` names the newest) for ``--resume``, which rebuilds the algorithm
and the League from safetensors and JSON, never RLlib's pickled state; and
the core checkpoint ``checkpoint_dir/checkpoint``, so ``ppo:checkpoint_dir``
plays the learner like any other trainer's agent. Evaluation plays it
against ``eval_opponent`` by the core's duplicate evaluator.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.core.league import League
from cardsuite.train.rllib.checkpoints import (  # re-exported: the trainer's checkpoint API
    LATEST,
    MAIN,
    RUN_RECORD,
    evaluate,
    read_record,
    resolve_checkpoint,
    restore,
    save,
)
from cardsuite.train.rllib.config import ILLEGAL_ACTIONS, RLlibRun, load_run, parse_overrides
from cardsuite.train.rllib.interrupt import StopOnSigint

__all__ = [
    "LATEST",
    "MAIN",
    "RUN_RECORD",
    "build",
    "build_config",
    "evaluate",
    "read_record",
    "resolve_checkpoint",
    "restore",
    "run",
    "save",
    "train",
]


def to_main(agent_id: Any, episode: Any, **kwargs: Any) -> str:
    """RLlib's ``policy_mapping_fn``: every seat RLlib sees is ``main`` (League members
    play inside the env)."""
    return MAIN


# ----------------------------------------------------------------- arguments
PROGRESS_FIELDS = ("step", "iteration", "sps", "main_return", "illegal_actions")

OVERRIDE_FLAGS = (
    "iterations",
    "num_env_runners",
    "num_envs_per_env_runner",
    "num_learners",
)


def build_arg_parser() -> argparse.ArgumentParser:
    """The options of ``cardsuite train --backend rllib`` (and ``python -m train.rllib.trainer``).

    The training commands' shared flags (`cardsuite.train.core.cli.add_run_flags`:
    ``--run-dir`` is the checkpoint directory, ``--total-steps`` sets
    ``iterations`` to whole batches of ``train_batch_size`` env steps,
    ``--players`` the player count, ``--device cuda`` one GPU per learner),
    then RLlib's own.
    """
    from cardsuite.train.core.cli import add_run_flags

    p = argparse.ArgumentParser(
        prog="cardsuite train --backend rllib",
        description="Self-play PPO on Ray RLlib, on one machine or a Ray cluster.",
        allow_abbrev=False,
    )
    add_run_flags(p)
    p.add_argument("--address", help="Ray cluster to join ('auto', or HOST:PORT of the head)")
    p.add_argument("--num-cpus", type=int, help="CPUs of a local Ray instance (no --address)")
    p.add_argument("--iterations", type=int, help="override: training iterations")
    p.add_argument("--num-env-runners", type=int, help="override: env runners")
    p.add_argument("--num-envs-per-env-runner", type=int, help="override: envs per runner")
    p.add_argument("--num-learners", type=int, help="override: learners")
    p.add_argument("--checkpoint-dir", help="deprecated: use --run-dir")
    return p


def _namespace(args: argparse.Namespace | Sequence[str] | None) -> argparse.Namespace:
    """Normalize ``args`` (a Namespace from the CLI, tokens, or None) to our Namespace."""
    parser = build_arg_parser()
    if args is None:
        return parser.parse_args([])
    if isinstance(args, argparse.Namespace):
        ns = parser.parse_args([])
        for key in vars(ns):
            value = getattr(args, key, None)
            if value is not None:
                setattr(ns, key, value)
        return ns
    if isinstance(args, str):
        raise ConfigError("args must be a list of tokens or an argparse.Namespace, not a string")
    ns, extra = parser.parse_known_args(list(args))
    if extra:
        from cardsuite.train.core.cli import reject_unknown

        reject_unknown(parser, extra)
    return ns


def _overrides(ns: argparse.Namespace, config_path: str | Path | None) -> dict[str, Any]:
    from cardsuite.train.core.cli import common_values, run_dir

    overrides: dict[str, Any] = {}
    for key in OVERRIDE_FLAGS:
        value = getattr(ns, key, None)
        if value is not None:
            overrides[key] = value
    shared = common_values(ns)
    folder = run_dir(ns) or ns.checkpoint_dir
    if folder:
        overrides["checkpoint_dir"] = str(folder)
    for name in ("seed", "budget_minutes", "tensorboard"):
        if name in shared:
            overrides[name] = shared[name]
    if "device" in shared:
        overrides["num_gpus_per_learner"] = 0.0 if shared["device"] == "cpu" else 1.0
    sets = parse_overrides(list(ns.overrides or []))  # the suite's one parser
    if "num_players" in shared:
        sets["options"] = {**sets.get("options", {}), "num_players": shared["num_players"]}
    overrides.update(sets)
    if "total_steps" in shared:
        batch = load_run(config_path, **overrides).config.train_batch_size
        overrides["iterations"] = -(-int(shared["total_steps"]) // batch)
    return overrides


# ----------------------------------------------------------------- algorithm
def module_spec(run: RLlibRun, *, with_spaces: bool = False) -> Any:
    """The RLModuleSpec of one masked PPO policy of ``run``.

    ``with_spaces`` fills in the game's spaces (RLlib infers them from the env
    when the algorithm is built, but not for a module added later).
    """
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from cardsuite.train.rllib.env import make_aec_env
    from cardsuite.train.rllib.module import MaskedPPOTorchRLModule

    spaces: dict[str, Any] = {}
    if with_spaces:
        env = make_aec_env(run.config.game, run.options)
        agent = env.possible_agents[0]
        spaces = {
            "observation_space": env.observation_space(agent),
            "action_space": env.action_space(agent),
        }
    return RLModuleSpec(
        module_class=MaskedPPOTorchRLModule, model_config=run.config.model_config(), **spaces
    )


def build_config(run: RLlibRun, league: League | None = None) -> Any:
    """The ``PPOConfig`` of a per-game ``run``: ``main`` on the AEC env, seating ``league``
    (default: the run's fresh League, `make_league`)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from cardsuite.train.rllib.env import SuiteRLlibEnv
    from cardsuite.train.rllib.league import LeagueCallbacks, make_league

    c = run.config
    league = make_league(run) if league is None else league
    threads = str(c.torch_threads)
    env_config = {**run.env_config(), "table": league.seat_table(),
                  "league_prob": c.league_prob, "seed": c.seed}  # fmt: skip
    return (
        PPOConfig()
        .environment(SuiteRLlibEnv, env_config=env_config)
        .framework("torch")
        .env_runners(
            num_env_runners=c.num_env_runners,
            num_envs_per_env_runner=c.num_envs_per_env_runner,
            num_cpus_per_env_runner=c.num_cpus_per_env_runner,  # type: ignore[arg-type]
            sample_timeout_s=c.sample_timeout_s,
        )
        .learners(num_learners=c.num_learners, num_gpus_per_learner=c.num_gpus_per_learner)
        .training(
            lr=c.learning_rate,
            gamma=c.gamma,
            lambda_=c.gae_lambda,
            clip_param=c.clip_param,
            entropy_coeff=c.entropy_coeff,
            vf_loss_coeff=c.vf_loss_coeff,
            train_batch_size_per_learner=c.train_batch_size,
            minibatch_size=c.minibatch_size,
            num_epochs=c.num_epochs,
        )
        .multi_agent(policies={MAIN}, policy_mapping_fn=to_main, policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MAIN: module_spec(run)}))
        .python_environment(
            extra_python_environs_for_driver={"OMP_NUM_THREADS": threads},
            extra_python_environs_for_worker={"OMP_NUM_THREADS": threads},
        )
        .fault_tolerance(
            restart_failed_env_runners=c.restart_failed_env_runners,
            max_num_env_runner_restarts=c.max_num_env_runner_restarts,
            env_runner_restore_timeout_s=c.env_runner_restore_timeout_s,
        )
        .callbacks(LeagueCallbacks)
        .debugging(seed=c.seed)
    )


def build(run: RLlibRun, league: League) -> Any:
    """The algorithm of ``run`` (either sampler), holding the driver's ``league``."""
    if run.config.sampler == "batched":
        from cardsuite.train.rllib.batched import build_batched_config

        algo = build_batched_config(run).build_algo()
    else:
        algo = build_config(run, league).build_algo()
    algo.cardsuite_league = league  # LeagueCallbacks sends it to recreated runners
    return algo


# ----------------------------------------------------------------------- run
def _metric(result: dict[str, Any], *keys: str) -> Any:
    node: Any = result
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def init_ray(address: str | None, num_cpus: int | None, run: RLlibRun) -> bool:
    """Start or join Ray unless already initialized; True when this call started it."""
    import ray

    if ray.is_initialized():
        return False
    if address:
        if num_cpus is not None:
            raise ConfigError("--num-cpus applies to a local Ray instance, not with --address")
        ray.init(address=address, include_dashboard=False)
        return True
    c = run.config
    needed = math.ceil(1 + c.num_env_runners * c.num_cpus_per_env_runner + c.num_learners)
    cpus = num_cpus if num_cpus is not None else max(os.cpu_count() or 1, needed)
    if cpus < needed:
        raise ConfigError(
            f"--num-cpus {cpus} is below the {needed} CPUs this run reserves (1 driver + "
            f"{c.num_env_runners} env runners x {c.num_cpus_per_env_runner} + "
            f"{c.num_learners} learners)"
        )
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    return True


def save_path(checkpoint: Path | None) -> Path:
    """``checkpoint``, which the loop has always written before it stops."""
    if checkpoint is None:
        raise CheckpointError("the run stopped before writing a checkpoint")
    return checkpoint


def runner_nodes(algo: Any) -> dict[str, int]:
    """How many remote env runners run on each Ray node (node id -> count)."""
    import ray

    ids = algo.env_runner_group.foreach_env_runner(
        lambda r: ray.get_runtime_context().get_node_id(), local_env_runner=False
    )
    counts: dict[str, int] = {}
    for node in ids:
        counts[str(node)] = counts.get(str(node), 0) + 1
    return counts


def train(run: RLlibRun, *, resume: str | None = None, log: Any = print) -> Path:
    """Train ``run`` on the current Ray instance; return the last checkpoint.

    A first Ctrl-C (SIGINT) ends the run after the current iteration with a
    checkpoint, from which ``resume`` continues.
    """
    import torch

    c = run.config
    torch.set_num_threads(c.torch_threads)
    from cardsuite.train.rllib.league import make_league, sync_league

    batched = c.sampler == "batched"
    if resume:
        algo, league = restore(run, resume)
    else:
        league = make_league(run)
        algo = build(run, league)
        if batched:  # the self-play games' opponent: the newest snapshot
            sync_league(algo, run, league, 0)
    checkpoint: Path | None = None
    illegal: int | None = None
    stop = StopOnSigint(log)
    runlog: Any = None
    try:
        stop.__enter__()
        log(
            f"rllib: {c.game} {run.options or ''} | {c.num_env_runners} env runners x "
            f"{c.num_envs_per_env_runner} envs, {c.num_learners} learners | from iteration "
            f"{algo.iteration}"
        )
        log(f"env runners per node: {runner_nodes(algo)}")
        from cardsuite.train.core.log import RunLog

        if c.tensorboard:
            runlog = RunLog(Path(c.checkpoint_dir), PROGRESS_FIELDS, tensorboard=True, quiet=True)
        deadline = time.monotonic() + c.budget_minutes * 60 if c.budget_minutes else math.inf
        sampled = 0
        while algo.iteration < c.iterations:
            start = time.perf_counter()
            result = algo.train()
            seconds = time.perf_counter() - start
            it = algo.iteration
            steps = _metric(result, "env_runners", "num_env_steps_sampled") or 0
            ret = (
                _metric(result, "env_runners", "episode_return_mean")
                if batched
                else _metric(result, "env_runners", "module_episode_returns_mean", MAIN)
            )
            count = _metric(result, "env_runners", ILLEGAL_ACTIONS)
            illegal = None if count is None else int(count)
            line = (
                f"iter {it}/{c.iterations}  env steps {steps}  {steps / seconds:.0f} steps/s"
                f"  main return {ret if ret is None else round(float(ret), 3)}"
                f"  league {len(league.members)}"
                f"  illegal actions {illegal}"
            )
            log(line)
            sampled += int(steps)
            if runlog is not None:
                runlog.progress({"step": sampled, "iteration": it, "sps": steps / seconds,
                                 "main_return": None if ret is None else float(ret),
                                 "illegal_actions": illegal})  # fmt: skip
            spent = time.monotonic() >= deadline
            if spent:
                log(f"budget of {c.budget_minutes:g} minutes spent at iteration {it}")
            if c.league_every and it % c.league_every == 0:
                games = sync_league(algo, run, league, it)
                log(f"  snapshot of main at iteration {it}; {games} league games merged; "
                    f"league {league.describe()}")  # fmt: skip
            evaluate_now = c.eval_episodes > 0 and (
                it == c.iterations or spent or (c.eval_every and it % c.eval_every == 0)
            )
            last = it == c.iterations or spent
            if it % c.checkpoint_every == 0 or last or evaluate_now or stop.requested:
                sync_league(algo, run, league, None)  # the League's counts up to now
                checkpoint = save(algo, run, league, illegal)
                log(f"  checkpoint {checkpoint}")
            if stop.requested:
                log(f"stopped by Ctrl-C at iteration {it}; resume with --resume {checkpoint}")
                return save_path(checkpoint)
            if evaluate_now and checkpoint is not None:
                from cardsuite.train.sb3.report import format_report

                log(format_report(evaluate(checkpoint, run, c.eval_episodes, step=it)))
            if spent:
                break
        if checkpoint is None:
            checkpoint = save(algo, run, league, illegal)
        return checkpoint
    finally:
        stop.__exit__()
        if runlog is not None:
            runlog.close()
        algo.stop()


def run(config_path: str | Path | None, args: argparse.Namespace | Sequence[str] | None) -> int:
    """``cardsuite train --backend rllib``: train from a run file; return the exit status.

    Args:
        config_path: a run file (``configs/train/rllib_*.yaml``); None uses
            ``--config`` from ``args`` or the defaults.
        args: the CLI's Namespace (attributes ``address``, ``resume``,
            ``num_cpus``, ``iterations``, ``num_env_runners``,
            ``num_envs_per_env_runner``, ``num_learners``, ``checkpoint_dir``,
            ``seed``, ``set`` are read where present) or a list of tokens
            (see `build_arg_parser`).

    Raises:
        ConfigError: bad config or arguments, or ray not installed.
        CheckpointError: ``--resume`` of a missing or mismatched checkpoint.
    """
    ns = _namespace(args)
    from cardsuite.train.core.cli import resolve_preset

    path = resolve_preset(str(config_path) if config_path is not None else ns.config)
    loaded = load_run(path, **_overrides(ns, path))
    try:
        import ray
    except ImportError:
        raise ConfigError(
            "the rllib backend needs Ray RLlib: pip install 'cardsuite[rllib]'"
        ) from None
    started = init_ray(ns.address or os.environ.get("RAY_ADDRESS"), ns.num_cpus, loaded)
    try:
        train(loaded, resume=ns.resume)
    finally:
        if started:
            ray.shutdown()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m train.rllib.trainer --config FILE [options]``."""
    from cardsuite.errors import CardsuiteError

    try:
        return run(None, list(sys.argv[1:] if argv is None else argv))
    except CardsuiteError as err:
        print(f"rllib trainer: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
