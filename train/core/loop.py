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

SCHEDULES = ("snapshot", "eval", "checkpoint")
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
            return self.finish()
        finally:
            self.close()

    def going(self) -> bool:
        """Whether training goes on: steps and time left, no Ctrl-C."""
        budget = self.args.budget_minutes * 60 or float("inf")
        stopped = self.stop is not None and self.stop.requested
        return (self.step < self.args.total_steps and not stopped
                and time.perf_counter() - self.t0 < budget)  # fmt: skip

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
        release = getattr(self.plan, "release", None)
        if release is not None:
            release()

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
