"""Distributed self-play PPO on Ray RLlib (new API stack).

``cardsuite train --backend rllib --config configs/train/rllib_scum.yaml``
calls `run`. One shared policy, ``main``, plays every seat (self-play)
and is the only one trained. Every ``league_every`` iterations a frozen copy
of ``main`` joins the league (``league_0`` .. ``league_{K-1}``; when all
``league_size`` slots are taken the oldest is overwritten). In a share
``league_prob`` of the episodes, ``main`` plays one seat and every other seat
is drawn from the league plus ``main``; the choice is a function of the
episode id, so it is the same on every env runner.

Checkpoints are RLlib's own (``Algorithm.save_to_path``) in
``checkpoint_dir/iter_NNNNNN`` with a ``cardsuite_run.json`` beside RLlib's
files (game, rule options, league); ``checkpoint_dir/LATEST`` names the
newest. ``--resume`` rebuilds the algorithm with the same league from the
run's config and loads the saved weights from safetensors, never RLlib's
pickled state (`checkpoints`). Evaluation plays the checkpoint
against ``eval_opponent`` by the core's duplicate evaluator (``rllib:<checkpoint>``).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.rllib.checkpoints import (  # re-exported: the trainer's checkpoint API
    LATEST,
    MAIN,
    RUN_RECORD,
    LeagueState,
    _arena_knows_rllib,
    evaluate,
    league_id,
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
    "LeagueMapping",
    "LeagueState",
    "build_config",
    "evaluate",
    "league_id",
    "read_record",
    "resolve_checkpoint",
    "restore",
    "run",
    "save",
    "train",
]


class LeagueMapping:
    """Agent-to-module mapping: self-play, or ``main`` on one seat against the league.

    Picklable (it travels to every env runner) and deterministic: the choice
    for an episode depends only on ``seed`` and the episode id.
    """

    def __init__(self, league: Sequence[str], league_prob: float, num_players: int, seed: int):
        """Map agents of ``num_players``-seat episodes over ``main`` and ``league``."""
        self.league = tuple(league)
        self.league_prob = float(league_prob)
        self.num_players = int(num_players)
        self.seed = int(seed)

    def seats(self, episode_id: str) -> list[str]:
        """The module of every seat for the episode ``episode_id``."""
        if not self.league or self.league_prob <= 0.0:
            return [MAIN] * self.num_players
        rng = np.random.default_rng([self.seed, zlib.crc32(str(episode_id).encode())])
        if rng.random() >= self.league_prob:
            return [MAIN] * self.num_players
        pool = [*self.league, MAIN]
        modules = [pool[int(i)] for i in rng.integers(0, len(pool), self.num_players)]
        modules[int(rng.integers(self.num_players))] = MAIN
        return modules

    def __call__(self, agent_id: Any, episode: Any, **kwargs: Any) -> str:
        """RLlib's ``policy_mapping_fn(agent_id, episode)``."""
        seat = int(str(agent_id).rsplit("_", 1)[-1])
        return self.seats(getattr(episode, "id_", str(id(episode))))[seat]


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


def num_players(run: RLlibRun) -> int:
    """Seats at the table of ``run``'s game with its options."""
    from cardsuite.train.rllib.env import make_aec_env

    return len(make_aec_env(run.config.game, run.options).possible_agents)


def build_config(run: RLlibRun, league: Sequence[str] = ()) -> Any:
    """The ``PPOConfig`` of ``run``: main + the given league slots, masked module, scale."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from cardsuite.train.rllib.env import IllegalActionCounter, SuiteRLlibEnv

    c = run.config
    modules = [MAIN, *league]
    threads = str(c.torch_threads)
    return (
        PPOConfig()
        .environment(SuiteRLlibEnv, env_config=run.env_config())
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
        .multi_agent(
            policies=set(modules),
            policy_mapping_fn=LeagueMapping(league, c.league_prob, num_players(run), c.seed),
            policies_to_train=[MAIN],
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs={m: module_spec(run) for m in modules})
        )
        .python_environment(
            extra_python_environs_for_driver={"OMP_NUM_THREADS": threads},
            extra_python_environs_for_worker={"OMP_NUM_THREADS": threads},
        )
        .fault_tolerance(
            restart_failed_env_runners=c.restart_failed_env_runners,
            max_num_env_runner_restarts=c.max_num_env_runner_restarts,
            env_runner_restore_timeout_s=c.env_runner_restore_timeout_s,
        )
        .callbacks(IllegalActionCounter)
        .debugging(seed=c.seed)
    )


def add_frozen_copy(algo: Any, run: RLlibRun, league: LeagueState) -> str:
    """Copy ``main``'s weights into the next league slot (added if new); return its id."""
    slot = league.next_slot(run.config.league_size)
    if slot not in league.slots:
        league.slots.append(slot)
        algo.add_module(
            module_id=slot,
            module_spec=module_spec(run, with_spaces=True),
            new_agent_to_module_mapping_fn=LeagueMapping(
                league.slots, run.config.league_prob, num_players(run), run.config.seed
            ),
            new_should_module_be_updated=[MAIN],
        )
    main_state = algo.learner_group.get_state(components=f"learner/rl_module/{MAIN}")
    weights = main_state["learner"]["rl_module"][MAIN]
    algo.learner_group.set_state({"learner": {"rl_module": {slot: weights}}})
    algo.env_runner_group.sync_weights(
        from_worker_or_learner_group=algo.learner_group, policies=[slot], inference_only=True
    )
    league.added += 1
    return slot


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
    batched = c.sampler == "batched"
    driver_league: Any = None
    if resume:
        algo, league = restore(run, resume)
        driver_league = getattr(algo, "cardsuite_league", None)
    elif batched:
        from cardsuite.train.rllib.batched import build_batched

        league = LeagueState([])
        algo, driver_league = build_batched(run)
    else:
        league = LeagueState([])
        algo = build_config(run).build_algo()
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
                f"  league {len(driver_league.members) if batched else len(league.slots)}"
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
                if batched:
                    from cardsuite.train.rllib.batched import push_snapshot

                    push_snapshot(algo, driver_league, it)
                    log(f"  snapshot of main at iteration {it} -> the runners' leagues")
                else:
                    log(f"  frozen copy of main -> {add_frozen_copy(algo, run, league)}")
            evaluate_now = c.eval_episodes > 0 and (
                it == c.iterations or spent or (c.eval_every and it % c.eval_every == 0)
            )
            last = it == c.iterations or spent
            if it % c.checkpoint_every == 0 or last or evaluate_now or stop.requested:
                checkpoint = save(algo, run, league, illegal, driver_league)
                log(f"  checkpoint {checkpoint}")
            if stop.requested:
                log(f"stopped by Ctrl-C at iteration {it}; resume with --resume {checkpoint}")
                return save_path(checkpoint)
            if evaluate_now and checkpoint is not None:
                if _arena_knows_rllib():
                    from cardsuite.train.evaluate import format_report

                    log(format_report(evaluate(checkpoint, run, c.eval_episodes, step=it)))
                else:
                    log("  evaluation skipped: the agent registry has no 'rllib' kind")
            if spent:
                break
        if checkpoint is None:
            checkpoint = save(algo, run, league, illegal, driver_league)
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
