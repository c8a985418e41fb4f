"""The one scheduler of every trainer: the budget, the schedules, the final steps, the signals.

`TrainLoop.train` runs to ``total_steps``, ``budget_minutes``, a Ctrl-C or a SIGTERM; at each
boundary (`run_schedules`) it takes a snapshot, `sync`s, evaluates (with ``keep_best``, a new
best is ``RUN/best_agent``) and checkpoints, each when due. A first Ctrl-C or SIGTERM stops at
the next boundary with a checkpoint (the commands exit 130), a second aborts. A trainer fills the
hooks `iterate`, `add_snapshot`, `evaluate`, `save` and `agent_files` (as needed `begin`,
`sync`, `run`, `finish`, `interrupted`, `close`).
"""

from __future__ import annotations

import random
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.learned.files import write_json_atomic
from cardsuite.agents.learned.safe_io import AgentMeta, save_agent
from cardsuite.moved import moved_getattr
from cardsuite.train.core.state import capture_rng, restore_rng

SCHEDULES = ("snapshot", "eval", "checkpoint")
#: The share of ``budget_minutes`` a warm start may take: it stops there, with what it has.
WARM_SHARE = 0.4
#: Deals of the evaluation a budgeted run times to keep room for its final one.
PILOT_DEALS = 16
NOTICE = ("\nCtrl-C: saving a checkpoint after the current update (send it again to stop at "
          "once, without saving)")  # fmt: skip


def seed_all(seed: int, threads: int = 0) -> None:
    """Seed python, numpy and torch; ``threads``: torch CPU threads (0: torch's default)."""
    import torch  # only the trainers need torch, and only when they run

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if threads:
        torch.set_num_threads(threads)


class StopOnSignal:
    """While active, a first Ctrl-C (SIGINT) or SIGTERM (how Slurm, Kubernetes, systemd and
    ``timeout`` stop a job) sets `requested` and prints a notice naming it through ``log``
    (default: standard error); a second signal raises KeyboardInterrupt. Main thread only."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, log: Callable[[str], Any] | None = None, notice: str = NOTICE) -> None:
        self.requested = False
        self.log = log or (lambda text: print(text, file=sys.stderr, flush=True))
        self.notice = notice
        self.signal_name = ""
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopOnSignal:
        if threading.current_thread() is threading.main_thread():
            self._previous = {s: signal.signal(s, self._handle) for s in self.SIGNALS}
        return self

    def __exit__(self, *exc: Any) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous = {}

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        self.signal_name = "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
        self.log(self.notice.replace("Ctrl-C", self.signal_name, 1))


StopOnSigint = StopOnSignal  # its name in 0.2's cardsuite.train.rllib.interrupt


class TrainLoop:
    """The shared scheduler (module doc); a trainer derives from it and fills the hooks."""

    args: Any
    log: Any
    plan: Any
    step: int
    iteration: int
    due: dict[str, int]
    history: list[dict[str, Any]]
    stop: StopOnSignal | None = None
    run_dir: Path
    t_begin: float | None = None  # when the run began: ``budget_minutes`` counts from here
    reserve: float | None = None  # seconds kept for the final evaluation (with a budget)
    command = "train"  # the command a resume runs: cardsuite <command> --resume RUN
    iterate: Callable[[], dict[str, float]]
    add_snapshot: Callable[[], None]
    evaluate: Callable[[], list[Any]]
    save: Callable[[], Path]
    agent_files: Callable[[], tuple[Mapping[str, Any], AgentMeta]]  # the agent's weights, meta

    @property
    def eval_seed(self) -> int:
        """The deal seed of the periodic evaluations (``eval_seed``)."""
        return int(self.args.eval_seed)

    def schedule_start(self) -> dict[str, int]:
        """The first step of each schedule in a fresh run (one period in)."""
        return {name: getattr(self.args, f"{name}_every") for name in SCHEDULES}

    def train(self) -> Any:
        """Run to the end (module doc); `finish`'s result, or `interrupted`'s after a Ctrl-C."""
        self.start_clock()
        try:
            with StopOnSignal() as self.stop:
                self.begin()
                self.t0, self.start_step = time.perf_counter(), self.step
                self.run()
                checkpoint = self.save() if self.stop.requested else None
            if checkpoint is not None:
                print(f"{self.stop.signal_name}: interrupted at step {self.step}; checkpoint saved "
                      f"to {checkpoint}. "
                      f"Continue with: cardsuite {self.command} --resume {self.plan.run_dir}",
                      file=sys.stderr)  # fmt: skip
                return self.interrupted(checkpoint)
            result = self.finish()
        finally:
            self.close()
        spec, table = self.agent_spec, f"--game {self.args.game} --players {self.players}"
        self.say(f"run folder {self.run_dir}: its agent plays as {spec}, e.g. cardsuite "
                 f"tournament {table} --agents {spec} heuristic --games 400 --duplicate")  # fmt: skip
        return result

    @property
    def players(self) -> int:
        """The players at the run's (first) table."""
        return int(self.args.players())

    @property
    def agent_spec(self) -> str:
        """The agent spec that plays the run's agent once it ends."""
        return f"ppo:{self.run_dir / 'agent'}"

    def announce(self, checkpoint: Path | None) -> None:
        """Say at the start where the run writes and the spec its agent will play as."""
        how = f"resuming {checkpoint}" if checkpoint is not None else "a new run"
        self.say(f"run folder {self.run_dir} ({how}); when it ends, its agent plays as "
                 f"{self.agent_spec}")  # fmt: skip

    def say(self, text: str) -> None:
        """A line on standard output at once, unless the run is ``quiet``."""
        if not getattr(self.args, "quiet", False):
            print(text, flush=True)

    def start_clock(self) -> None:
        """Start the budget's clock (once: a trainer that warms up before `train` starts it)."""
        if self.t_begin is None:
            self.t_begin = time.perf_counter()

    def past(self, share: float = 1.0) -> bool:
        """Whether ``share`` of ``budget_minutes`` is spent since `start_clock`; the whole budget
        less the final evaluation's time (`final_eval_seconds`, measured once). Never
        without a budget: the warm start, the training and the final evaluation fit in it."""
        budget = self.args.budget_minutes * 60
        if not budget:
            return False
        self.start_clock()
        if share == 1.0 and self.reserve is None:
            self.reserve = self.final_eval_seconds()
            self.say(f"budget {self.args.budget_minutes:g} min: training stops about "
                     f"{self.reserve:.0f} s before it, for the final evaluation")  # fmt: skip
        reserve = self.reserve if share == 1.0 else 0.0
        return time.perf_counter() - (self.t_begin or 0.0) >= share * budget - (reserve or 0.0)

    def final_eval_seconds(self) -> float:
        """About how long the final evaluation takes: `PILOT_DEALS` of it timed (`pilot_eval`)
        and scaled to ``eval_deals``, on the side (the run's random state is kept)."""
        rng = capture_rng()
        t = time.perf_counter()
        try:
            self.pilot_eval(PILOT_DEALS)
        finally:
            restore_rng(rng)
        return (time.perf_counter() - t) * self.final_eval_deals / PILOT_DEALS

    @property
    def final_eval_deals(self) -> int:
        """The deals of the final evaluation."""
        return int(self.args.eval_deals)

    def pilot_eval(self, deals: int) -> Any:
        """Play ``deals`` of the final evaluation, logging nothing (`final_eval_seconds`)."""

    def going(self) -> bool:
        """Whether training goes on: steps and time left, no Ctrl-C."""
        stopped = self.stop is not None and self.stop.requested
        return self.step < self.args.total_steps and not stopped and not self.past()

    def run(self) -> None:
        """Iterate while `going`: one `iterate`, a progress row, the schedules."""
        while self.going():
            stats = self.iterate()
            now = time.perf_counter()
            self.iteration += 1
            self.log.progress({"step": self.step, "iteration": self.iteration,
                               "seconds": now - self.t0,
                               "sps": (self.step - self.start_step) / max(now - self.t0, 1e-9),
                               **stats})  # fmt: skip
            self.run_schedules()

    def run_schedules(self) -> None:
        """Snapshot, sync, evaluate and checkpoint when due (module doc)."""
        args, step = self.args, self.step
        if args.snapshot_every and step >= self.due["snapshot"]:
            self.add_snapshot()
            self.due["snapshot"] += args.snapshot_every
        self.sync()
        if args.eval_every and step >= self.due["eval"] and step < args.total_steps:
            self.evaluate_and_keep()
            self.due["eval"] += args.eval_every
        if args.checkpoint_every and step >= self.due["checkpoint"]:
            self.save()
            self.due["checkpoint"] += args.checkpoint_every

    def save_agent(self, name: str = "agent") -> Path:
        """Write the played policy as ``RUN/<name>`` (safe format, ``ppo:RUN/<name>``),
        replacing an earlier one."""
        out = self.plan.run_dir / name
        if out.exists():
            shutil.rmtree(out)
        return save_agent(out, *self.agent_files())

    def begin(self) -> None:
        """Before the first iteration (nothing by default)."""

    def sync(self) -> None:
        """At every boundary, after the snapshot (nothing by default)."""

    def finish(self) -> Any:
        """The final evaluation, a last checkpoint and ``RUN/agent``; the step and rows."""
        rows = self.evaluate_and_keep()
        self.save()
        self.save_agent("agent")
        return {"step": self.step, "eval": rows}

    def interrupted(self, checkpoint: Path) -> Any:
        """The result of a run stopped by Ctrl-C (its checkpoint is written)."""
        return {"step": self.step, "eval": [], "interrupted": True}

    def close(self) -> None:
        """Release what the run holds: the log, the run folder's lock."""
        self.log.close()
        self.plan.release()

    def evaluate_and_keep(self) -> list[Any]:
        """`evaluate`; with ``keep_best``, keep a new best (module doc)."""
        rows = self.evaluate()
        if self.args.keep_best:
            self.keep_if_best([r if isinstance(r, dict) else r.to_dict() for r in rows])
        return rows

    def keep_if_best(self, rows: list[dict[str, Any]]) -> bool:
        """Write ``RUN/best_agent`` and ``RUN/best.json`` when ``rows`` beat every earlier
        evaluation (`selection_score`; ties keep the earlier); whether they did."""
        against = self.args.names("eval_against")[0]
        score = selection_score(rows, against)
        earlier = self.history[: len(self.history) - len(rows)]
        steps = sorted({int(r["step"]) for r in earlier if _against(r) == against})
        best = max((selection_score([r for r in earlier if r["step"] == s], against)
                    for s in steps), default=-1.0)  # fmt: skip
        if not score > best:
            return False
        self.save_agent("best_agent")
        sizes = sorted({str(r["against"]) for r in rows if _against(r) == against})
        write_json_atomic(self.plan.run_dir / "best.json", {
            "step": self.step, "score": score, "against": against, "rows": sizes,
            "eval_seed": self.eval_seed, "eval_deals": self.args.eval_deals,
            "note": "chosen on these deals: measure it on deals of another seed",
        })  # fmt: skip
        return True


def _against(row: dict[str, Any]) -> str:
    """The opponent of an evaluation row without its table size (``heuristic@4p``)."""
    return str(row.get("against", "")).split("@")[0]


def selection_score(rows: list[dict[str, Any]], against: str) -> float:
    """The mean ``beats`` of the rows against ``against`` (every table size); -1 if none."""
    scores = [float(r["beats"]) for r in rows if _against(r) == against]
    return float(np.mean(scores)) if scores else -1.0


# ``BatchedLoop``, the loop's name before 0.3, with a warning naming `TrainLoop`.
__getattr__ = moved_getattr(__name__, {"BatchedLoop": (sys.modules[__name__], "TrainLoop")})
