"""Self-play PPO on Ray RLlib, on the training core's loop (``cardsuite train --backend rllib``).

One iteration is one ``Algorithm.train()``; the core runs snapshots, evaluations,
checkpoints, budgets and Ctrl-C. A checkpoint is the core's ``RUN/checkpoint``: ``agent/``
(``ppo:RUN`` and ``rllib:RUN`` play it without ray or torch), ``module.safetensors``, the
League and ``state.json``; RLlib's pickles are never written nor read, so Adam starts
afresh on resume. An older cardsuite's run resumes from ``iter_NNNNNN/`` (`legacy`).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import re
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import ray
import torch
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, EPISODE_RETURN_MEAN, NUM_ENV_STEPS_SAMPLED

from cardsuite.agents.learned.netspec import Snapshot
from cardsuite.agents.learned.rllib import (
    TRAINER,
    actor_snapshot,
    legacy_folder,
    snapshot_meta,
    spec_scale,
)
from cardsuite.agents.learned.safe_io import AgentMeta
from cardsuite.errors import CardsuiteError, CheckpointError, ConfigError
from cardsuite.moved import moved_getattr, moved_table
from cardsuite.train.core.checkpoint import check_must_match, open_checkpoint, save_checkpoint
from cardsuite.train.core.cli import (
    add_field_flags,
    add_run_flags,
    config_from_args,
    reject_unknown,
)
from cardsuite.train.core.evaluate import evaluate_against, spec_policy
from cardsuite.train.core.league import League
from cardsuite.train.core.log import format_report, open_log
from cardsuite.train.core.loop import TrainLoop
from cardsuite.train.core.rundir import plan_run
from cardsuite.train.rllib.algorithm import MAIN, build, module_id
from cardsuite.train.rllib.config import ILLEGAL_ACTIONS, RLlibTrainConfig
from cardsuite.train.rllib.league import make_league, push_table, sync_league
from cardsuite.train.rllib.legacy import legacy_plan, read_legacy

VERSION = 1
MODULE_FILE = "module.safetensors"
FILES = re.compile(r"agent/(weights\.safetensors|agent\.json)|module\.safetensors"
                   r"|league/snapshot@\d{1,15}\.safetensors")  # fmt: skip
KINDS = "agent/, module.safetensors and league/*.safetensors"
MUST_MATCH = ("game", "num_players", "options", "hidden", "layers", "activation")
PROGRESS_FIELDS = ("step", "iteration", "seconds", "sps", "main_return", "illegal_actions")
DEFAULT_RUN_DIR = Path("runs/rllib")


def save_run(config: RLlibTrainConfig, run_dir: Path, weights: dict[str, Any], league: League,
             state: dict[str, Any]) -> Path:  # fmt: skip
    """Write ``RUN/checkpoint`` (module doc) from the module's ``weights``; its path."""
    snap = actor_snapshot(weights, state["step"], config.activation,
                          spec_scale(config.game, config.env_options()))  # fmt: skip
    snaps = {f"league/snapshot@{s.step}.safetensors": s.params for s in league.snapshots()}
    return save_checkpoint(
        run_dir, weights=snap.params,
        meta=snapshot_meta(snap, config.game, config.env_options(), config.to_dict()),
        optimizer={"state": {}, "param_groups": []}, files={MODULE_FILE: weights, **snaps},
        state={"trainer": TRAINER, "version": VERSION, "config": config.to_dict(),
               "league": league.state(), **state},
    )  # fmt: skip


def read_run(
    path: str | Path, config: RLlibTrainConfig, league: League
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The checkpoint at ``path``: its ``state.json`` and the module's weights (torch);
    ``league`` takes the saved League. CheckpointError: not this trainer's, a file that fails
    the manifest, or a setting a resume may not change (named)."""
    saved = open_checkpoint(path, FILES, KINDS)
    state = saved.state
    if state.get("trainer") != TRAINER or state.get("version") != VERSION:
        older = " (an older run's: resume from the folder holding its LATEST)" if state.get(
            "rllib_checkpoint") else ""  # fmt: skip
        raise saved.error(f"not a checkpoint of train --backend rllib{older}")
    try:
        check_must_match(state["config"], config, MUST_MATCH)
        league.restore(state["league"], lambda name: saved.arrays(
            f"league/{Path(name).name}.safetensors"), config.activation)  # fmt: skip
        due = {k: int(v) for k, v in state["due"].items()}
        state = {**state, "step": int(state["step"]), "iteration": int(state["iteration"]),
                 "due": due}  # fmt: skip
    except (KeyError, TypeError, ValueError) as err:
        raise saved.error(f"cannot resume: {err}") from None
    return state, saved.tensors(MODULE_FILE)


class Trainer(TrainLoop):
    """One RLlib run on the core's loop: its algorithm, League, run folder and checkpoints."""

    command = "train --backend rllib"

    def __init__(self, config: RLlibTrainConfig, *, log: Callable[[str], Any] = print) -> None:
        """Plan the run folder (the core's rule), build the algorithm, resume if asked."""
        self.args, self.log_line = config, log
        legacy = legacy_folder(config.resume) if config.resume else None
        self.plan = (legacy_plan(config, legacy) if legacy is not None
                     else plan_run(config.run_dir or None, config.resume or None, DEFAULT_RUN_DIR,
                              "cardsuite train --backend rllib", config.record()))  # fmt: skip
        self.run_dir = self.plan.run_dir
        self.announce(self.plan.checkpoint)
        if config.threads:
            torch.set_num_threads(config.threads)
        self.scale = spec_scale(config.game, config.env_options())
        self.step = self.iteration = 0
        self.illegal: int | None = None
        self.due, self.history = self.schedule_start(), list[dict[str, Any]]()
        weights = None
        if legacy is not None:
            self.iteration, weights, self.league = read_legacy(legacy, config)
            self.step = self.iteration * config.train_batch_size
            self.due = {k: self.step + v for k, v in self.due.items()}
        else:
            self.league = make_league(config)
        self.algo = build(config, self.league)
        try:
            if self.plan.checkpoint is not None:
                weights = self.load(self.plan.checkpoint)
            if weights is not None:
                self.set_weights(weights)
        except BaseException:
            self.algo.stop()
            raise
        self.log = open_log(self.plan, self.step, PROGRESS_FIELDS, tensorboard=config.tensorboard,
                            quiet=True)  # fmt: skip

    @property
    def eval_seed(self) -> int:
        """The deal seed of the evaluations: the run's seed."""
        return int(self.args.seed)

    def weights(self) -> dict[str, Any]:
        """The learner's module weights (numpy)."""
        mid = module_id(self.args)
        return dict(self.algo.learner_group.get_weights(module_ids=[mid])[mid])

    def set_weights(self, weights: dict[str, Any]) -> None:
        """Give the learner and the runners ``weights``; the runners the League's table."""
        try:
            self.algo.learner_group.set_weights({module_id(self.args): weights})
        except (RuntimeError, KeyError, ValueError) as err:
            raise CheckpointError(
                f"the saved weights do not fit this run's module: {err}"
            ) from None
        group = self.algo.env_runner_group
        group.sync_weights(
            from_worker_or_learner_group=self.algo.learner_group, inference_only=True
        )
        push_table(group, self.league)

    def snapshot(self) -> Snapshot:
        """The learner's actor now, as the League, the evaluator and ``agent/`` play it."""
        return actor_snapshot(self.weights(), self.step, self.args.activation, self.scale)

    def begin(self) -> None:
        """Say where the runners are; a fresh batched run's self-play games get ``snapshot@0``."""
        c = self.args
        self.say(f"rllib: {c.game} {c.env_options() or ''} | {c.num_env_runners} env runners x "
                 f"{c.num_envs_per_env_runner} envs, {c.num_learners} learners | from iteration "
                 f"{self.iteration}")  # fmt: skip
        self.say(f"env runners per node: {runner_nodes(self.algo)}")
        if self.step == 0 and c.sampler == "batched":
            sync_league(self.algo, self.league, self.snapshot())

    def iterate(self) -> dict[str, float]:
        """One ``Algorithm.train()``; its line on the log."""
        start = time.perf_counter()
        result = self.algo.train()
        seconds = time.perf_counter() - start
        runners = result.get(ENV_RUNNER_RESULTS, {})
        steps = int(runners.get(NUM_ENV_STEPS_SAMPLED, 0))
        ret = (runners.get(EPISODE_RETURN_MEAN) if self.args.sampler == "batched"
               else runners.get("module_episode_returns_mean", {}).get(MAIN))  # fmt: skip
        count = runners.get(ILLEGAL_ACTIONS)
        self.illegal = None if count is None else int(count)
        self.step += steps
        shown = None if ret is None else round(float(ret), 3)
        self.say(f"iter {self.iteration + 1}/{self.args.iterations()}  env steps {steps}  "
                 f"{steps / seconds:.0f} steps/s  main return {shown}  league "
                 f"{len(self.league.members)}  illegal actions {self.illegal}")  # fmt: skip
        return {"main_return": math.nan if ret is None else float(ret),
                "illegal_actions": math.nan if count is None else float(count)}  # fmt: skip

    def add_snapshot(self) -> None:
        """Merge the runners' outcomes, add the learner's snapshot, send the table back."""
        games = sync_league(self.algo, self.league, self.snapshot())
        self.say(f"  snapshot of main at step {self.step}; {games} league games merged; "
                 f"league {self.league.describe()}")  # fmt: skip

    def evaluate(self) -> list[Any]:
        """Duplicate deals of the greedy learner against each of ``eval_against`` (none
        with ``eval_deals`` 0); logged and kept in the history."""
        c = self.args
        if not c.eval_deals:
            return []
        rows = self.pilot_eval(c.eval_deals)
        self.log.evals([r.to_dict() for r in rows])
        self.history.extend(r.to_dict() for r in rows)
        self.say(format_report(rows))
        return rows

    def say(self, text: str) -> None:
        """A line through the trainer's ``log`` (print by default)."""
        self.log_line(text)

    def pilot_eval(self, deals: int) -> list[Any]:
        """``deals`` duplicate deals of the greedy learner against each of ``eval_against``,
        not logged."""
        c = self.args
        table = c.game_config().to_dict()
        against = {n: spec_policy(n, table, c.seed + 1, c.game) for n in c.names("eval_against")}
        return evaluate_against(self.snapshot(), self.scale, against, deals=deals, seed=c.seed,
                                game=c.game, config=table, step=self.step)  # fmt: skip

    def save(self) -> Path:
        """Write ``RUN/checkpoint`` with the League's counts up to now."""
        sync_league(self.algo, self.league)
        state = {"step": self.step, "iteration": self.iteration, "due": self.due,
                 "history": self.history, "illegal_actions": self.illegal}  # fmt: skip
        path = save_run(self.args, self.run_dir, self.weights(), self.league, state)
        self.say(f"  checkpoint {path}")
        return path

    def load(self, path: Path) -> dict[str, Any]:
        """Put back the step, schedule, League and history of the checkpoint at ``path``;
        its module weights."""
        state, weights = read_run(path, self.args, self.league)
        self.step, self.iteration, self.due = state["step"], state["iteration"], state["due"]
        self.history, self.illegal = list(state.get("history", [])), state.get("illegal_actions")
        return weights

    def agent_files(self) -> tuple[Mapping[str, Any], AgentMeta]:
        """The learner's actor and its metadata (`save_agent` writes them)."""
        snap, c = self.snapshot(), self.args
        return snap.params, snapshot_meta(snap, c.game, c.env_options(), c.to_dict())

    def close(self) -> None:
        """Close the logs, stop the algorithm's actors, release the run folder."""
        super().close()
        self.algo.stop()


def runner_nodes(algo: Any) -> dict[str, int]:
    """How many remote env runners run on each Ray node (node id -> count)."""
    ids = algo.env_runner_group.foreach_env_runner(
        lambda r: ray.get_runtime_context().get_node_id(), local_env_runner=False
    )
    return dict(Counter(str(node) for node in ids))


def train(config: RLlibTrainConfig, *, log: Callable[[str], Any] = print) -> dict[str, Any]:
    """Train (or resume) a run on the current Ray instance; the final step and evaluation rows
    (``interrupted`` after a Ctrl-C)."""
    result: dict[str, Any] = Trainer(config, log=log).train()
    return result


# ---------------------------------------------------------------- command line
def build_arg_parser() -> argparse.ArgumentParser:
    """The flags of ``cardsuite train --backend rllib``: the training commands' shared ones,
    one per config field, and Ray's."""
    p = argparse.ArgumentParser(prog="cardsuite train --backend rllib", allow_abbrev=False,
                                description="Self-play PPO on Ray RLlib.")  # fmt: skip
    add_run_flags(p)
    add_field_flags(p, RLlibTrainConfig)
    g = p.add_argument_group("Ray")
    g.add_argument("--address", help="Ray cluster to join ('auto', or HOST:PORT of the head)")
    g.add_argument("--num-cpus", type=int, help="CPUs of a local Ray instance (no --address)")
    g.add_argument("--iterations", type=int, help="total_steps of this many train batches")
    g.add_argument("--checkpoint-dir", help="deprecated: use --run-dir")
    return p


def namespace(
    args: argparse.Namespace | Sequence[str] | None, extra: Sequence[str] = ()
) -> argparse.Namespace:
    """``args`` (the CLI's Namespace, tokens, or None) as this command's Namespace; ``extra``:
    the tokens the CLI's Namespace left (this command's own flags)."""
    parser = build_arg_parser()
    if isinstance(args, str):
        raise ConfigError("args must be a list of tokens or an argparse.Namespace, not a string")
    tokens = extra if args is None or isinstance(args, argparse.Namespace) else args
    ns, rest = parser.parse_known_args(list(tokens))
    reject_unknown(parser, rest)
    for key in vars(ns) if isinstance(args, argparse.Namespace) else ():
        if getattr(args, key, None) is not None:
            setattr(ns, key, getattr(args, key))
    return ns


def config_of(ns: argparse.Namespace) -> RLlibTrainConfig:
    """The run's config: the preset, the flags and ``--set`` (`config_from_args`)."""
    ns.run_dir = ns.run_dir or ns.checkpoint_dir
    resume = ns.resume
    if resume and legacy_folder(resume) is not None:  # an older run: --config gives its config
        ns.resume = None
    config = config_from_args(RLlibTrainConfig, ns)
    if ns.iterations is not None:
        config = dataclasses.replace(config, total_steps=ns.iterations * config.train_batch_size)
    return dataclasses.replace(config, resume=str(resume)) if resume else config


def init_ray(address: str | None, num_cpus: int | None, config: RLlibTrainConfig) -> bool:
    """Start or join Ray unless already initialized; True when this call started it."""
    if ray.is_initialized():
        return False
    c = config
    needed = math.ceil(1 + c.num_env_runners * c.num_cpus_per_env_runner + c.num_learners)
    if address and num_cpus is not None:
        raise ConfigError("--num-cpus applies to a local Ray instance, not with --address")
    if not address and num_cpus is not None and num_cpus < needed:
        raise ConfigError(f"--num-cpus {num_cpus} is below the {needed} CPUs this run reserves "
                          f"(1 driver + {c.num_env_runners} env runners x "
                          f"{c.num_cpus_per_env_runner} + {c.num_learners} learners)")  # fmt: skip
    ours = signal.getsignal(signal.SIGTERM)  # ray.init installs its own: SIGTERM stays Ctrl-C
    if address:
        ray.init(address=address, include_dashboard=False)
    else:
        cpus = num_cpus if num_cpus is not None else max(os.cpu_count() or 1, needed)
        ray.init(address="local", num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    if threading.current_thread() is threading.main_thread() and callable(ours):
        signal.signal(signal.SIGTERM, ours)
    return True


def run(config_path: str | Path | None, args: argparse.Namespace | Sequence[str] | None) -> int:
    """``cardsuite train --backend rllib``: train a run file (``config_path``, or ``--config``
    of ``args``: the CLI's Namespace or tokens); 0, or 130 after a Ctrl-C (checkpoint written).

    Raises:
        ConfigError: a bad config or argument; CheckpointError: a bad ``--resume``.
    """
    ns = namespace(args)
    if config_path is not None:
        ns.config = str(config_path)
    config = config_of(ns)
    started = init_ray(ns.address or os.environ.get("RAY_ADDRESS"), ns.num_cpus, config)
    try:
        result = train(config)
    finally:
        if started:
            ray.shutdown()
    return 130 if result.get("interrupted") else 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cardsuite.train.rllib.trainer --config FILE [flags]``."""
    try:
        return run(None, list(sys.argv[1:] if argv is None else argv))
    except CardsuiteError as err:
        print(f"rllib trainer: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())


# 0.2 names of this module and of ``rllib.checkpoints`` (which imports as this one).
__getattr__ = moved_getattr(
    __name__,
    moved_table("cardsuite.train.rllib.algorithm", "module_spec to_main")
    | moved_table("cardsuite.agents.learned.rllib", "LATEST RUN_RECORD read_record"),
)
