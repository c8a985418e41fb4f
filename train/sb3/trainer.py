"""Self-play MaskablePPO, in one readable file (the cleanrl shape).

``train(config, out_dir)`` runs the whole loop:

1. seed python, numpy and torch; build ``n_envs`` [`SelfPlayEnv`][cardsuite.train.sb3.single_seat.SelfPlayEnv]
   (one learner seat each, opponents seated from the training core's
   `cardsuite.train.core.league.League`) in worker processes;
2. ``MaskablePPO.learn`` collects rollouts with the learner's action masks
   and updates the policy;
3. at every rollout boundary (after an update, before the next rollout) the
   `SelfPlayCallback` records each finished episode's outcomes
   against its seats in the League (PFSP) and runs the schedules: a frozen
   snapshot of the learner joins the League; the League's draw table is
   sent to every worker; an
   evaluation against the baselines runs through the arena (TensorBoard and
   ``eval.csv``); a checkpoint is written. A Ctrl-C is honoured at the next
   boundary: the checkpoint is saved there and the run exits cleanly (a
   second Ctrl-C aborts at once, keeping the previous checkpoint);
4. at the end: a last checkpoint, a final evaluation with more games, the
   report table (``report.md``, ``report.json``) and the learning curve
   (``curves.png``).

``train(config, out_dir, resume=DIR)`` rebuilds the model from the config and
loads a checkpoint's weights, optimizer state and step count (safetensors,
never a pickle: [`checkpoint`][cardsuite.train.sb3.checkpoint]), the League, the RNG
states, the schedules and the evaluation history, and continues from its
step. Episodes that were in progress inside the workers when the checkpoint
was taken are not part of it: the resumed run starts fresh episodes, seeded
from the run's seed and step. The logs keep each step once: what was logged
after the checkpoint is dropped (`cardsuite.train.core.rundir`).

A run directory holds ``config.yaml``, ``checkpoint/``, ``tb/`` (TensorBoard),
``curve.csv`` (mean training reward per rollout), ``eval.csv``, and after the
end ``report.md``, ``report.json``, ``curves.png``. A new run never reuses a
directory that holds anything, and a resume writes only into its own run
directory or a new one.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np
import torch
import yaml
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import set_random_seed

from cardsuite.agents.learned.policy import agent_meta, snapshot_of
from cardsuite.agents.learned.safe_io import AgentMeta, save_agent
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.core.league import League
from cardsuite.train.core.log import append_rows
from cardsuite.train.core.rundir import check_run_dir, start_logs
from cardsuite.train.sb3.checkpoint import (
    TrainState,
    capture_rng,
    find_checkpoint,
    load_checkpoint,
    restore_rng,
    save_checkpoint,
)
from cardsuite.train.sb3.config import TrainConfig, check_baselines
from cardsuite.train.sb3.report import EvalRow, append_csv, evaluate, format_report, plot_curves
from cardsuite.train.sb3.setup import (
    build_model,
    derive_seed,
    make_env_fn,
    make_league,
    make_vec_env,
    restore_model,
    tensorboard_logger,
)

__all__ = [
    "SelfPlayCallback",
    "TrainResult",
    "Trainer",
    "build_model",
    "derive_seed",
    "make_env_fn",
    "make_vec_env",
    "restore_model",
    "train",
]

# Seeds of the evaluation tournaments: the periodic ones replay the same deals
# (a smoother curve); the final report uses deals the curve never saw.
EVAL_SEED_OFFSET = 10_000
FINAL_EVAL_SEED_OFFSET = 20_000
CURVE_FIELDS = ("step", "ep_rew_mean", "episodes")


@dataclass
class TrainResult:
    """What a finished (or interrupted) run produced.

    Attributes:
        step: learner steps trained.
        run_dir: the run directory.
        checkpoint: the last checkpoint written.
        interrupted: the run stopped on Ctrl-C (resume it with ``--resume``).
        report: the final evaluation rows (empty when interrupted).
        seconds: wall time of this invocation.
    """

    step: int
    run_dir: Path
    checkpoint: Path
    interrupted: bool
    report: list[EvalRow] = field(default_factory=list)
    seconds: float = 0.0


class StopTraining(Exception):
    """Raised at a rollout boundary to leave ``learn`` after a Ctrl-C."""


class BudgetSpent(StopTraining):
    """``budget_minutes`` have passed: stop at a rollout boundary and report as usual."""


# ------------------------------------------------------------------- trainer
class Trainer:
    """One run: its envs, model, League, schedules and run directory.

    Args:
        config: the run's config.
        run_dir: where logs, checkpoints and reports go.
        resume: a checkpoint (or run) directory to continue from.
    """

    def __init__(
        self, config: TrainConfig, run_dir: str | Path, resume: str | Path | None = None
    ) -> None:
        """Build the envs and the model, fresh or from ``resume``."""
        self.config = config
        self.run_dir = Path(run_dir)
        self.stop_requested = False
        torch.set_num_threads(config.torch_threads)
        check_baselines(config)  # a bad baseline fails now, not after training
        purge_step = None
        if resume is None:
            check_run_dir(self.run_dir, None)  # a new run never reuses a directory
            set_random_seed(config.seed)
            self.league: League = make_league(config)
            self.venv = make_vec_env(config, self.league.seat_table())
            self.model = build_model(config, self.venv)
            self.schedule = {
                "snapshot": 0,  # a snapshot of the initial policy seeds the pool
                "eval": config.eval_every or -1,
                "checkpoint": config.checkpoint_every or -1,
            }
            self.history: list[dict[str, Any]] = []
        else:
            in_place = check_run_dir(self.run_dir, find_checkpoint(resume))
            loaded = load_checkpoint(resume)
            ckpt, state = loaded.path, loaded.state
            mismatched = config.resume_mismatches(state.config)
            if mismatched:
                raise CheckpointError(
                    f"checkpoint {str(ckpt)!r} does not match this config: "
                    + "; ".join(
                        f"{name} was {getattr(state.config, name)!r}, now {getattr(config, name)!r}"
                        for name in mismatched
                    )
                )
            self.league = restore_league(config, state)
            self.venv = make_vec_env(config, self.league.seat_table())
            try:
                self.model = restore_model(config, self.venv, loaded)
            except CheckpointError:
                self.close()
                raise
            self.venv.seed(derive_seed(config.seed, state.step))
            self.schedule = dict(state.schedule)
            self.history = list(state.history)
            restore_rng(state.rng)
            start_logs(self.run_dir, ckpt, state.step, in_place)
            purge_step = state.step + 1  # events at the checkpoint's step were logged before it
        self.run_dir.mkdir(parents=True, exist_ok=True)
        with open(self.run_dir / "config.yaml", "w", encoding="utf-8") as fh:
            yaml.safe_dump(config.to_dict(), fh, sort_keys=False)
        self.model.set_logger(
            tensorboard_logger(self.run_dir / "tb", purge_step, config.tensorboard)
        )
        budget = config.budget_minutes * 60
        self.deadline = time.monotonic() + budget if budget else float("inf")

    def close(self) -> None:
        """Stop the worker processes (quietly if one has already died)."""
        with contextlib.suppress(EOFError, BrokenPipeError, ConnectionResetError):
            self.venv.close()

    @property
    def step(self) -> int:
        """Learner steps trained so far."""
        return int(self.model.num_timesteps)

    def state(self) -> TrainState:
        """The run's state besides the model, as a checkpoint records it."""
        return TrainState(
            step=self.step,
            config=self.config,
            snapshots=[m.snapshot for m in self.league.members if m.snapshot is not None],
            rng=capture_rng(),
            schedule=dict(self.schedule),
            history=list(self.history),
            counters={"n_updates": int(self.model._n_updates)},
            league=_active(self.league.state()),
        )

    def save(self) -> Path:
        """Write the run's checkpoint (atomically)."""
        policy = self.model.policy
        return save_checkpoint(
            self.run_dir,
            policy.state_dict(),
            self.agent_meta(),
            policy.optimizer.state_dict(),
            self.state(),
        )

    def agent_meta(self) -> AgentMeta:
        """The safe-format metadata of the learner's policy at this step."""
        return agent_meta(
            self.model.policy,
            game=self.config.game,
            options=self.config.options,
            step=self.step,
            config=self.config.to_dict(),
        )

    # ----------------------------------------------------------- schedules
    def run_schedules(self) -> None:
        """Snapshot, send the League, evaluate and checkpoint when due (a rollout boundary)."""
        step = self.step
        if 0 <= self.schedule["snapshot"] <= step:
            if self.config.opponent_snapshot > 0:
                self.add_snapshot()
            self.schedule["snapshot"] = _next_due(step, self.config.snapshot_every)
        self.send_league()
        if 0 <= self.schedule["eval"] <= step:
            self.evaluate(self.config.eval_games, EVAL_SEED_OFFSET)
            self.schedule["eval"] = _next_due(step, self.config.eval_every)
        if 0 <= self.schedule["checkpoint"] <= step:
            self.schedule["checkpoint"] = _next_due(step, self.config.checkpoint_every)
            self.save()

    def add_snapshot(self) -> None:
        """Freeze the learner into the League (the workers get it with `send_league`)."""
        self.league.add_snapshot(snapshot_of(self.model.policy, self.step, self.config.activation))

    def send_league(self) -> None:
        """Send the League's draw table to every env; forget retired members none seats."""
        seated = [i for ids in self.venv.env_method("seated_ids") for i in ids]
        self.league.prune(np.asarray(seated, dtype=np.int64))
        self.venv.env_method("set_league", self.league.seat_table())

    def record(self, infos: list[dict[str, Any]], dones: Any) -> None:
        """Hand each finished episode's outcomes against its seats to `League.record`."""
        ids: list[int] = []
        outcomes: list[float] = []
        for info, done in zip(infos, dones):
            if done and "league_ids" in info:
                for mid, outcome in zip(info["league_ids"], info["league_outcomes"]):
                    if self.league.knows(mid):
                        ids.append(mid)
                        outcomes.append(outcome)
        if ids:
            self.league.record(np.asarray(ids, dtype=np.int64), np.asarray(outcomes))

    def evaluate(
        self, games: int, seed_offset: int, model_path: Path | None = None
    ) -> list[EvalRow]:
        """Duplicate tournaments against the baselines; logged, RNG untouched."""
        rng = capture_rng()
        scratch = None
        if model_path is None:  # the current policy, as a ppo: agent directory
            scratch = Path(tempfile.mkdtemp(prefix=".eval-", dir=self.run_dir))
            model_path = save_agent(
                scratch / "agent", self.model.policy.state_dict(), self.agent_meta()
            )
        threads = torch.get_num_threads()
        try:
            rows = evaluate(
                model_path,
                self.config,
                step=self.step,
                games=games,
                seed=self.config.seed + seed_offset,
            )
        finally:
            torch.set_num_threads(threads)
            restore_rng(rng)
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
        for row in rows:
            name = row.against.replace(":", "_")
            self.model.logger.record(f"eval/beats_{name}", row.beats)
            self.model.logger.record(f"eval/margin_vs_{name}", row.margin)
        self.model.logger.dump(self.step)
        append_csv(self.run_dir / "eval.csv", rows)
        self.history.extend(r.to_dict() for r in rows)
        return rows

    # ---------------------------------------------------------------- run
    def train(self) -> TrainResult:
        """Train to ``total_steps``, then checkpoint, evaluate and report."""
        start = time.time()
        callback = SelfPlayCallback(self)
        previous = _install_sigint(self)
        interrupted = False
        try:
            if not self.league.snapshots() and self.config.opponent_snapshot > 0:
                self.run_schedules()  # the step-0 snapshot, before the first rollout
            remaining = self.config.total_steps - self.step
            if remaining > 0:
                try:
                    self.model.learn(
                        total_timesteps=remaining,
                        callback=callback,
                        reset_num_timesteps=False,
                        progress_bar=False,
                    )
                except BudgetSpent:
                    pass  # the time budget: a finished run (checkpoint, evaluation, report)
                except StopTraining:
                    interrupted = True
            callback.close_bar()
            checkpoint = self.save()
        finally:
            callback.close_bar()
            signal.signal(signal.SIGINT, previous)
            self.close()
        result = TrainResult(self.step, self.run_dir, checkpoint, interrupted)
        if interrupted:
            print(
                f"interrupted at step {self.step}; checkpoint saved to {checkpoint}. "
                f"Continue with: cardsuite train --resume {self.run_dir}",
                file=sys.stderr,
            )
        else:
            result.report = self.evaluate(
                self.config.final_eval_games, FINAL_EVAL_SEED_OFFSET, model_path=checkpoint
            )
            self.write_report(result.report)
        result.seconds = time.time() - start
        return result

    def write_report(self, rows: list[EvalRow]) -> None:
        """``report.md``, ``report.json`` and ``curves.png`` in the run directory."""
        title = f"{self.config.game} {self.config.num_players()} players, {self.step} steps"
        (self.run_dir / "report.md").write_text(
            f"# {title}\n\n{format_report(rows, markdown=True)}\n", encoding="utf-8"
        )
        (self.run_dir / "report.json").write_text(
            json.dumps(
                {
                    "step": self.step,
                    "config": self.config.to_dict(),
                    "final": [r.to_dict() for r in rows],
                },
                indent=1,
            ),
            encoding="utf-8",
        )
        plot_curves(self.run_dir, self.run_dir / "curves.png", title=title)


def _active(league_state: dict[str, Any]) -> dict[str, Any]:
    """A League state without its retired members: a resumed run starts fresh episodes."""
    members = [e for e in league_state["members"] if not e["retired"]]
    return {**league_state, "members": members}


def restore_league(config: TrainConfig, state: TrainState) -> League:
    """The run's League as a checkpoint left it (older checkpoints: its snapshots, fresh counts)."""
    league = make_league(config)
    if state.league is None:
        for snap in state.snapshots:
            league.add_snapshot(snap)
        return league
    by_name = {f"snapshot@{s.step}": s.params for s in state.snapshots}
    try:
        league.restore(state.league, lambda name: by_name[name], config.activation)
    except (KeyError, TypeError, ValueError, ConfigError) as err:
        raise CheckpointError(
            f"state.json: field 'pool.league' is not a League state: {err}"
        ) from None
    return league


def _next_due(step: int, every: int) -> int:
    """The first multiple of ``every`` after ``step`` (-1: never)."""
    return (step // every + 1) * every if every > 0 else -1


def _install_sigint(trainer: Trainer) -> Any:
    """First Ctrl-C: stop at the next rollout boundary; second: abort at once."""

    def handler(signum: int, frame: FrameType | None) -> None:
        if trainer.stop_requested:
            raise KeyboardInterrupt
        trainer.stop_requested = True
        print(
            "\nCtrl-C: saving a checkpoint after the current update "
            "(press Ctrl-C again to abort without saving)",
            file=sys.stderr,
        )

    try:
        return signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread: no Ctrl-C handling
        return signal.getsignal(signal.SIGINT)


class SelfPlayCallback(BaseCallback):
    """Runs the trainer's schedules at rollout boundaries; progress and curve."""

    def __init__(self, trainer: Trainer) -> None:
        """Attach to ``trainer``."""
        super().__init__(verbose=0)
        self.trainer = trainer
        self._first = True
        self._bar: Any = None

    def _on_training_start(self) -> None:
        if self.trainer.config.progress:
            from tqdm import tqdm

            self._bar = tqdm(
                total=self.trainer.config.total_steps,
                initial=self.trainer.step,
                unit="step",
                desc=f"train {self.trainer.config.game}",
                dynamic_ncols=True,
                mininterval=0.1 if sys.stderr.isatty() else 10.0,  # a log file gets a line per 10 s
            )

    def _on_rollout_start(self) -> None:
        if self._first:  # the boundary at the start was handled before learn()
            self._first = False
        else:
            self.trainer.run_schedules()
        if self.trainer.stop_requested:
            raise StopTraining
        if time.monotonic() >= self.trainer.deadline:
            raise BudgetSpent

    def _on_step(self) -> bool:
        self.trainer.record(self.locals["infos"], self.locals["dones"])
        if self._bar is not None:
            self._bar.update(self.training_env.num_envs)
        return True

    def _on_rollout_end(self) -> None:
        episodes = self.model.ep_info_buffer
        if episodes:
            mean = float(np.mean([ep["r"] for ep in episodes]))
            row = dict(zip(CURVE_FIELDS, (self.num_timesteps, f"{mean:.6f}", len(episodes))))
            append_rows(self.trainer.run_dir / "curve.csv", CURVE_FIELDS, [row])
            if self._bar is not None:
                self._bar.set_postfix(reward=f"{mean:+.3f}")

    def close_bar(self) -> None:
        """Close the progress bar (idempotent)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def train(
    config: TrainConfig, run_dir: str | Path, resume: str | Path | None = None
) -> TrainResult:
    """Train (or resume) a run and return its result; see the module doc."""
    return Trainer(config, run_dir, resume).train()
