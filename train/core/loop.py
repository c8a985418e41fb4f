"""The training loop of the batched trainers: batched PPO and Deep Monte-Carlo are algorithms on it.

`BatchedLoop.train` runs iterations until ``total_steps`` learner decisions
or ``budget_minutes`` have passed; after each one it logs a progress row
(steps, steps/s and the algorithm's statistics: `cardsuite.train.core.log`)
and runs the schedules (`BatchedLoop.run_schedules`): a frozen snapshot of
the learner joins the League every ``snapshot_every`` steps, a duplicate
evaluation runs every ``eval_every`` and a checkpoint is written every
``checkpoint_every`` (0: never). At the end come a final evaluation, a last
checkpoint and the trained agent in ``RUN/agent``.

With ``keep_best``, every evaluation whose score (`selection_score`: the
share of deals won against the first ``eval_against`` opponent, averaged over
the table sizes) beats every earlier one also writes the learner as
``RUN/best_agent`` and its step and score as ``RUN/best.json``. The earlier
scores are read from the evaluation history, which the checkpoint keeps, so a
resumed run chooses from the same evaluations as an uninterrupted one (plus
the one it made when it stopped). The evaluation deals then chose
the agent: its score there is optimistic, and its strength must be measured
on deals of another seed (the arena's ``--seed``).

An algorithm fills the hooks: `iterate` (one rollout and update, its
statistics), `add_snapshot`, `evaluate` (logs its rows and returns them),
`save` (the checkpoint, through `cardsuite.train.core.checkpoint`) and
`save_agent`. The schedule's next steps (``due``) are part of the checkpoint,
so a resumed run keeps them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.learned.files import write_json_atomic

SCHEDULES = ("snapshot", "eval", "checkpoint")


def seed_all(seed: int, threads: int = 0) -> None:
    """Seed the global generators of python, numpy and torch; ``threads``: torch CPU threads
    (0: torch's default)."""
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if threads:
        torch.set_num_threads(threads)


class BatchedLoop:
    """The shared loop (module doc). Attributes the algorithm sets: ``args`` (its config),
    ``log`` (a `RunLog`), ``step``, ``iteration`` and ``due`` (next step of each schedule)."""

    args: Any
    log: Any
    plan: Any  # the run's folder plan (``plan.run_dir``)
    step: int
    iteration: int
    due: dict[str, int]
    # the algorithm's hooks (module doc)
    iterate: Callable[[], dict[str, float]]  # one rollout and update: its statistics
    add_snapshot: Callable[[], None]  # freeze the learner into the League
    evaluate: Callable[[], list[dict[str, Any]]]  # logged and kept in the history; its rows
    save: Callable[[], Path]  # the checkpoint
    save_agent: Callable[[str], Path]  # the learner as ``RUN/<name>`` (``agent``, ``best_agent``)
    history: list[dict[str, Any]]  # every evaluation row so far (kept by the checkpoint)

    def schedule_start(self) -> dict[str, int]:
        """The first step of each schedule in a fresh run."""
        return {name: getattr(self.args, f"{name}_every") for name in SCHEDULES}

    def train(self) -> dict[str, Any]:
        """Run to ``total_steps`` (or the time budget); the final step and evaluation rows."""
        args = self.args
        start_step, t0 = self.step, time.perf_counter()
        budget = args.budget_minutes * 60 or float("inf")
        while self.step < args.total_steps and time.perf_counter() - t0 < budget:
            stats = self.iterate()
            now = time.perf_counter()
            self.iteration += 1
            self.log.progress({"step": self.step, "iteration": self.iteration, "seconds": now - t0,
                               "sps": (self.step - start_step) / max(now - t0, 1e-9), **stats})  # fmt: skip
            self.run_schedules()
        rows = self.evaluate_and_keep()
        self.save()
        self.save_agent("agent")
        self.log.close()
        return {"step": self.step, "eval": rows}

    def run_schedules(self) -> None:
        """Snapshot, evaluate and checkpoint when due (module doc)."""
        args, step = self.args, self.step
        if args.snapshot_every and step >= self.due["snapshot"]:
            self.add_snapshot()
            self.due["snapshot"] += args.snapshot_every
        if args.eval_every and step >= self.due["eval"] and step < args.total_steps:
            self.evaluate_and_keep()
            self.due["eval"] += args.eval_every
        if args.checkpoint_every and step >= self.due["checkpoint"]:
            self.save()
            self.due["checkpoint"] += args.checkpoint_every

    def evaluate_and_keep(self) -> list[dict[str, Any]]:
        """Evaluate (the algorithm's hook); with ``keep_best``, keep a new best (module doc)."""
        rows = self.evaluate()
        if self.args.keep_best:
            self.keep_if_best(rows)
        return rows

    def keep_if_best(self, rows: list[dict[str, Any]]) -> bool:
        """Write ``RUN/best_agent`` and ``RUN/best.json`` when ``rows`` score above every
        earlier evaluation of the history (ties keep the earlier); whether they did."""
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
            "eval_seed": self.args.eval_seed, "eval_deals": self.args.eval_deals,
            "note": "chosen on these deals: measure it on deals of another seed",
        })  # fmt: skip
        return True


def _against(row: dict[str, Any]) -> str:
    """The opponent of an evaluation row without its table size (``heuristic@4p``)."""
    return str(row.get("against", "")).split("@")[0]


def selection_score(rows: list[dict[str, Any]], against: str) -> float:
    """The mean share of deals won (``beats``) over the rows against ``against`` (every
    table size); -1 when there is none."""
    scores = [float(r["beats"]) for r in rows if _against(r) == against]
    return float(np.mean(scores)) if scores else -1.0
