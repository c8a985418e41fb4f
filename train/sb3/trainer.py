"""Self-play MaskablePPO on the training core: SB3 runs the rollouts and updates, the core the rest.

``MaskablePPO.learn`` collects rollouts and updates; at each rollout boundary
`SelfPlayCallback` runs the core's schedules, budget and Ctrl-C. At the end: a last
checkpoint, a final evaluation on other deals, ``report.md``, ``report.json`` and
``curves.png``. A resume restores weights, optimizer, step, League, RNG states, schedule
and history (never a pickle).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import set_random_seed

from cardsuite.agents.learned.safe_io import AgentMeta, save_agent
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.core.league import League
from cardsuite.train.core.learned import agent_meta, snapshot_of
from cardsuite.train.core.log import append_rows
from cardsuite.train.core.loop import TrainLoop
from cardsuite.train.core.rundir import RunPlan, check_run_dir, start_logs
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
    make_league,
    make_vec_env,
    restore_model,
    tensorboard_logger,
)

# Seeds of the evaluation tournaments: the periodic ones replay the same deals
# (a smoother curve); the final report uses deals the curve never saw.
EVAL_SEED_OFFSET = 10_000
FINAL_EVAL_SEED_OFFSET = 20_000
CURVE_FIELDS = ("step", "ep_rew_mean", "episodes")


@dataclass
class TrainResult:
    """What a finished (or Ctrl-C ``interrupted``) run produced."""

    step: int
    run_dir: Path
    checkpoint: Path
    interrupted: bool
    report: list[EvalRow] = field(default_factory=list)
    seconds: float = 0.0


class StopTraining(Exception):
    """Raised at a rollout boundary to leave ``learn`` (Ctrl-C, the time budget)."""


class Trainer(TrainLoop):
    """One run of ``config`` in ``run_dir``, fresh or continuing ``resume``."""

    def __init__(
        self, config: TrainConfig, run_dir: str | Path, resume: str | Path | None = None
    ) -> None:
        self.config = self.args = config
        self.run_dir = Path(run_dir)
        self.started, self.closed = time.time(), False
        self.announce(None if resume is None else Path(resume))
        if config.threads:
            torch.set_num_threads(config.threads)
        check_baselines(config)  # a bad baseline fails now, not after training
        purge_step, self.iteration, self.callback = None, 0, SelfPlayCallback(self)
        if resume is None:
            self.plan = RunPlan(self.run_dir, None, check_run_dir(self.run_dir, None))
            set_random_seed(config.seed)
            self.league: League = make_league(config)
            self.venv = make_vec_env(config, self.league.seat_table())
            self.model = build_model(config, self.venv)
            self.due = {**self.schedule_start(), "snapshot": 0}  # the step-0 snapshot
            self.history: list[dict[str, Any]] = []
        else:
            in_place = check_run_dir(self.run_dir, find_checkpoint(resume))
            loaded = load_checkpoint(resume)
            ckpt, state = loaded.path, loaded.state
            self.plan = RunPlan(self.run_dir, ckpt, in_place)
            mismatched = config.resume_mismatches(state.config)
            if mismatched:
                raise CheckpointError(f"checkpoint {str(ckpt)!r} does not match this config: "
                                      + "; ".join(f"{name} was {getattr(state.config, name)!r}, "
                                                  f"now {getattr(config, name)!r}"
                                                  for name in mismatched))  # fmt: skip
            self.league = restore_league(config, state)
            self.venv = make_vec_env(config, self.league.seat_table())
            try:
                self.model = restore_model(config, self.venv, loaded)
            except CheckpointError:
                self.close()
                raise
            self.venv.seed(derive_seed(config.seed, state.step))
            self.due, self.history = dict(state.schedule), list(state.history)
            restore_rng(state.rng)
            start_logs(self.run_dir, ckpt, state.step, in_place)
            purge_step = state.step + 1  # events at the checkpoint's step were logged before it
        config_yaml = yaml.safe_dump(config.to_dict(), sort_keys=False)
        (self.run_dir / "config.yaml").write_text(config_yaml, encoding="utf-8")
        self.model.set_logger(
            tensorboard_logger(self.run_dir / "tb", purge_step, config.tensorboard)
        )
        self.t0, self.start_step = time.perf_counter(), self.step  # `train` starts them again

    @property
    def step(self) -> int:  # type: ignore[override]
        """Learner steps trained so far."""
        return int(self.model.num_timesteps)

    @property
    def eval_seed(self) -> int:
        """The deal seed of the periodic evaluations."""
        return self.config.seed + EVAL_SEED_OFFSET

    def state(self) -> TrainState:
        """The run's state besides the model, as a checkpoint records it."""
        snaps = [m.snapshot for m in self.league.members if m.snapshot is not None]  # active
        league = self.league.state()  # without its retired members: a resume starts new episodes
        league["members"] = [e for e in league["members"] if not e["retired"]]
        return TrainState(step=self.step, config=self.config, snapshots=snaps,
                          rng=capture_rng(), schedule=dict(self.due), history=list(self.history),
                          counters={"n_updates": int(self.model._n_updates)},
                          league=league)  # fmt: skip

    def save(self) -> Path:
        """Write the run's checkpoint (the core's atomic writer)."""
        policy = self.model.policy
        return save_checkpoint(self.run_dir, policy.state_dict(), self.agent_meta(),
                               policy.optimizer.state_dict(), self.state())  # fmt: skip

    def agent_meta(self) -> AgentMeta:
        """The safe-format metadata of the learner's policy at this step."""
        return agent_meta(self.model.policy, game=self.config.game,
                          options=self.config.env_options(), step=self.step,
                          config=self.config.to_dict())  # fmt: skip

    def agent_files(self) -> tuple[dict[str, Any], AgentMeta]:
        """The learner's policy weights and metadata (`save_agent` writes them)."""
        return self.model.policy.state_dict(), self.agent_meta()

    def begin(self) -> None:
        """The boundary before the first rollout (the step-0 snapshot) of a fresh run."""
        self.started = time.time()
        if not self.league.snapshots() and self.config.opponent_snapshot > 0:
            self.run_schedules()

    def run(self) -> None:
        """``MaskablePPO.learn`` to ``total_steps``; its callback runs the boundaries."""
        remaining = self.config.total_steps - self.step
        if remaining > 0:
            with contextlib.suppress(StopTraining):
                self.model.learn(total_timesteps=remaining, callback=self.callback,
                                 reset_num_timesteps=False, progress_bar=False)  # fmt: skip
        self.callback.close_bar()

    def add_snapshot(self) -> None:
        """Freeze the learner into the League (the envs get it with `sync`)."""
        if self.config.opponent_snapshot > 0:
            self.league.add_snapshot(snapshot_of(self.model.policy, self.step,
                                                 self.config.activation))  # fmt: skip

    def sync(self) -> None:
        """Send the League's draw table to every env; forget retired members none seats."""
        seated = [i for ids in self.venv.env_method("seated_ids") for i in ids]
        self.league.prune(np.asarray(seated, dtype=np.int64))
        self.venv.env_method("set_league", self.league.seat_table())

    def record(self, infos: list[dict[str, Any]], dones: Any) -> None:
        """Hand each finished episode's outcomes against its seats to `League.record`."""
        ended = [info for info, done in zip(infos, dones) if done and "league_ids" in info]
        ids = [mid for info in ended for mid in info["league_ids"]]
        self.league.record_known(ids, [x for info in ended for x in info["league_outcomes"]])

    def evaluate(
        self, games: int | None = None, seed_offset: int = EVAL_SEED_OFFSET,
        model_path: Path | None = None, record: bool = True,
    ) -> list[EvalRow]:  # fmt: skip
        """Duplicate deals against the evaluation opponents (``eval_deals`` by default);
        logged (unless not ``record``), the RNG untouched."""
        rng = capture_rng()
        scratch = None
        if model_path is None:  # the current policy, as a ppo: agent directory
            scratch = Path(tempfile.mkdtemp(prefix=".eval-", dir=self.run_dir))
            model_path = save_agent(scratch / "agent", *self.agent_files())
        threads = torch.get_num_threads()
        try:
            rows = evaluate(model_path, self.config, step=self.step,
                            games=games or self.config.eval_deals,
                            seed=self.config.seed + seed_offset)  # fmt: skip
        finally:
            torch.set_num_threads(threads)
            restore_rng(rng)
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
        if not record:
            return rows
        for row in rows:
            name = row.against.replace(":", "_")
            self.model.logger.record(f"eval/beats_{name}", row.beats)
            self.model.logger.record(f"eval/margin_vs_{name}", row.margin)
        self.model.logger.dump(self.step)
        append_csv(self.run_dir / "eval.csv", rows)
        self.history.extend(r.to_dict() for r in rows)
        return rows

    def pilot_eval(self, deals: int) -> None:
        """``deals`` of the final evaluation's games, not logged (the budget's reserve)."""
        self.evaluate(deals, FINAL_EVAL_SEED_OFFSET, record=False)

    @property
    def final_eval_deals(self) -> int:
        """The deals of the final evaluation (``final_eval_deals``)."""
        return int(self.config.final_eval_deals)

    @property
    def agent_spec(self) -> str:
        """``ppo:RUN``: the run's latest checkpoint."""
        return f"ppo:{self.run_dir}"

    def finish(self) -> TrainResult:
        """A last checkpoint, the final evaluation on deals the curve never saw, the report."""
        checkpoint = self.save()
        self.close()
        result = TrainResult(self.step, self.run_dir, checkpoint, False)
        result.report = self.evaluate(self.config.final_eval_deals, FINAL_EVAL_SEED_OFFSET,
                                      model_path=checkpoint)  # fmt: skip
        self.write_report(result.report)
        result.seconds = time.time() - self.started
        return result

    def interrupted(self, checkpoint: Path) -> TrainResult:
        """A run stopped by Ctrl-C: its checkpoint, no report."""
        return TrainResult(self.step, self.run_dir, checkpoint, True,
                           seconds=time.time() - self.started)  # fmt: skip

    def close(self) -> None:
        """Stop the worker processes (quietly if one has already died); once."""
        self.callback.close_bar()
        if not self.closed:
            self.closed = True
            with contextlib.suppress(EOFError, BrokenPipeError, ConnectionResetError):
                self.venv.close()

    def write_report(self, rows: list[EvalRow]) -> None:
        """``report.md``, ``report.json`` and ``curves.png`` in the run directory."""
        title = f"{self.config.game} {self.config.players()} players, {self.step} steps"
        (self.run_dir / "report.md").write_text(
            f"# {title}\n\n{format_report(rows, markdown=True)}\n", encoding="utf-8"
        )
        (self.run_dir / "report.json").write_text(
            json.dumps({"step": self.step, "config": self.config.to_dict(),
                        "final": [r.to_dict() for r in rows]}, indent=1),
            encoding="utf-8",
        )  # fmt: skip
        plot_curves(self.run_dir, self.run_dir / "curves.png", title=title)


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


class SelfPlayCallback(BaseCallback):
    """The core's boundaries inside ``learn``: schedules, budget and Ctrl-C at each rollout's
    start; outcomes to the League; the progress bar and the curve."""

    def __init__(self, trainer: Trainer) -> None:
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
            self.trainer.iteration += 1
            self.trainer.run_schedules()
        if not self.trainer.going():
            raise StopTraining

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
    result: TrainResult = Trainer(config, run_dir, resume).train()
    return result
