"""What batched PPO and Deep Monte-Carlo share (`BatchedTrainer`): the run's start, the
evaluation at every table, the agent, and the shared part of the checkpoint (``agent/``,
``optimizer``, ``run`` (seats, games in flight), ``league/`` and ``state.json``). An
algorithm adds its own parts (`checkpoint_parts`, `restore_parts`, `generators`)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch

from cardsuite.agents.learned.layout import generic_spec, layout_of
from cardsuite.agents.learned.netspec import Snapshot, obs_scale
from cardsuite.agents.learned.safe_io import AgentMeta, load_tensors_numpy
from cardsuite.train.core.checkpoint import (
    Saved,
    check_must_match,
    open_checkpoint,
    save_checkpoint,
)
from cardsuite.train.core.games import train_game
from cardsuite.train.core.learned import table_features
from cardsuite.train.core.log import open_log
from cardsuite.train.core.loop import WARM_SHARE, TrainLoop, seed_all
from cardsuite.train.core.rundir import plan_run
from cardsuite.train.core.state import capture_rng, gen_state, restore_rng, set_gen
from cardsuite.train.core.tables import FirstTable, GameTable, evaluate_tables

SHARED_FILES = (r"agent/(weights\.safetensors|agent\.json)|(optimizer|run)\.safetensors"
                r"|league/snapshot@\d{1,15}\.safetensors")  # fmt: skip


class BatchedTrainer(FirstTable, TrainLoop):
    """A batched trainer's run (module doc); the algorithm sets ``net`` and ``opt``."""

    TRAINER: ClassVar[str]  # agent.json's trainer
    VERSION: ClassVar[int]  # state.json's version
    FILES: ClassVar[re.Pattern[str]]  # every file its checkpoints may hold
    KINDS: ClassVar[str]  # those files in words
    MUST_MATCH: ClassVar[tuple[str, ...]]  # config fields a resume may not change
    OPTIMIZER_GROUPS: ClassVar[bool] = True  # restore Adam's hyperparameters too
    tables: list[GameTable]  # type: ignore[assignment]
    net: torch.nn.Module
    opt: torch.optim.Optimizer
    scale: torch.Tensor
    games_restored = False
    fit_warm_start: Callable[[Callable[[], bool]], dict[str, float]]  # (until) -> its stats

    def start(self, args: Any) -> None:
        """The run's folder (`plan_run`), seeds, game and generators; a fresh run's counters."""
        self.args = args
        self.plan = plan_run(args.run_dir or None, args.resume or None, args.out_dir(),
                             f"cardsuite {self.command}", args.record())  # fmt: skip
        self.run_dir = self.plan.run_dir
        self.announce(self.plan.checkpoint)
        self.start_clock()
        seed_all(args.seed, args.threads)
        self.dev = torch.device(args.device)
        self.game = train_game(args.game)
        self.generic = args.game if args.sizes.strip() else ""
        self.rng = np.random.default_rng(args.seed)
        self.step, self.iteration = 0, 0
        self.history: list[dict[str, Any]] = []

    @property
    def players(self) -> int:
        """The players at the first table (the smallest of ``sizes``)."""
        return int(self.tables[0].players)

    def layout(self) -> tuple[Any, int, Any]:
        """The network's observation spec, action count and derived inputs."""
        if self.generic:
            spec, num_actions = generic_spec(self.generic), layout_of(self.generic).num_actions
        else:
            spec, num_actions = self.eng.obs_spec, self.eng.num_actions
        first = self.tables[0]  # its heuristic's rules give every table size's decks
        features = table_features(self.args.features, self.game, first.eng, first.players,
                                  obs_scale(spec), generic=self.generic)  # fmt: skip
        return spec, num_actions, features

    def open_run(self, fields: tuple[str, ...], headline: tuple[str, ...]) -> None:
        """Deal the first games, resume the checkpoint if any, open the logs."""
        self.due = self.schedule_start()
        for t in self.tables:
            t.reset_games(self.args.seed)
        if self.plan.checkpoint is not None:
            self.load(self.plan.checkpoint)
        self.log = open_log(self.plan, self.step, fields, tensorboard=self.args.tensorboard,
                            quiet=self.args.quiet, headline=headline)  # fmt: skip

    def warm_start(self) -> None:
        """Learn from the heuristic's games before training (`fit_warm_start`, stopped at
        `WARM_SHARE` of the budget); its statistics logged and kept in the history."""
        a, t0 = self.args, time.perf_counter()
        self.log.note(f"warm start: imitating the heuristic on {a.bc_games} games of "
                      f"{a.bc_steps} steps ...")  # fmt: skip
        stats = self.fit_warm_start(lambda: self.past(WARM_SHARE))
        stats["bc_seconds"] = time.perf_counter() - t0
        self.log.note("warm start: " + ", ".join(f"{k} {v:.4g}" for k, v in stats.items()))
        self.history.append({"step": 0, "against": "warm_start", **stats})

    def keep_warm_start(self) -> None:
        """Checkpoint a fresh run as soon as its warm start is done: a run stopped later
        resumes without repeating it (with ``checkpoint_every`` 0, nothing is saved early)."""
        if self.plan.checkpoint is None and self.args.bc_steps and self.args.checkpoint_every:
            self.save()

    @property
    def played(self) -> Any:
        """The network played outside rollouts (evaluated, frozen, saved as the agent)."""
        return self.net

    def snapshot(self) -> Snapshot:
        """The played network's actor frozen (numpy), as the League and the evaluator play it."""
        return Snapshot.of(self.played.actor, self.step, self.args.activation, self.played.features)

    def add_snapshot(self) -> None:
        """Freeze the played network into the League."""
        self.league.add_snapshot(self.snapshot())

    def evaluate(self) -> list[dict[str, Any]]:
        """`evaluate_tables` on ``eval_seed``'s deals; the rows, logged and kept."""
        rows = self.pilot_eval(self.args.eval_deals)
        self.log.evals(rows)
        self.history.extend(rows)
        return rows

    def pilot_eval(self, deals: int) -> list[dict[str, Any]]:
        """`evaluate_tables` on ``deals`` of ``eval_seed``'s deals; the rows, not logged."""
        return evaluate_tables(self.snapshot(), self.scale.cpu().numpy(), self.tables,
                               game=self.game.name, deals=deals, seed=self.args.eval_seed,
                               step=self.step)  # fmt: skip

    def agent_meta(self) -> AgentMeta:
        """The safe-format metadata of the played network now."""
        options = dict(self.config)
        if self.generic:
            options.pop("num_players", None)
        layout, config = "generic" if self.generic else "table", self.args.to_dict()
        return self.played.meta(self.TRAINER, self.game.name, options, self.step, config, layout)

    def agent_files(self) -> tuple[dict[str, Any], AgentMeta]:
        """The played network's weights and metadata (`save_agent` writes them)."""
        return self.played.state_dict(), self.agent_meta()

    def generators(self) -> dict[str, torch.Generator]:
        """The algorithm's torch generators by name (kept by the checkpoint)."""
        return {}

    def checkpoint_parts(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The algorithm's own files (name -> arrays) and ``state.json`` entries."""
        return {}, {}

    def restore_parts(self, saved: Saved) -> None:
        """Restore what `checkpoint_parts` saved (before the shared state)."""

    def check_version(self, saved: Saved) -> None:
        """CheckpointError unless ``saved`` is one of this trainer's checkpoints."""
        if saved.state.get("version") != self.VERSION:
            raise saved.error("unknown state.json version")

    def save(self) -> Path:
        """Write ``RUN/checkpoint`` (module doc): everything to go on exactly."""
        files, own = self.checkpoint_parts()
        run, games = self._run_arrays()
        snaps = {f"league/snapshot@{s.step}.safetensors": s.params for s in self.league.snapshots()}
        rng = {k: gen_state(g) for k, g in self.generators().items()}
        state = {"version": self.VERSION, "step": self.step, "iteration": self.iteration,
                 "due": self.due, "config": self.args.to_dict(), "league": self.league.state(),
                 "leagues": {t.key: t.league.state() for t in self.tables[1:]},
                 "games_saved": games, "history": self.history,
                 "rng": {"numpy": self.rng.bit_generator.state, **rng, "global": capture_rng()},
                 **own}  # fmt: skip
        return save_checkpoint(self.run_dir, weights=self.net.state_dict(),
                               meta=self.agent_meta(), optimizer=self.opt.state_dict(),
                               files={"run.safetensors": run, **snaps, **files},
                               state=state)  # fmt: skip

    def _run_arrays(self) -> tuple[dict[str, np.ndarray], bool]:
        """Every table's seats and games in flight (keys prefixed by its ``key``)."""
        numpy = self.eng.xp.name == "numpy"
        games = [t.game_state() if numpy else None for t in self.tables]
        saved = all(g is not None for g in games)
        run: dict[str, np.ndarray] = {}
        for t, g in zip(self.tables, games, strict=True):
            run.update({t.key + k: v for k, v in {**t.seat_state(), **(g or {})}.items()})
        return run, saved

    def load(self, path: Path) -> None:
        """Restore the run from the checkpoint at ``path`` (CheckpointError naming what is wrong)."""
        saved = open_checkpoint(path, self.FILES, self.KINDS)
        self.check_version(saved)
        state = saved.state
        try:
            check_must_match(state["config"], self.args, self.MUST_MATCH)
            self.restore_parts(saved)
            self.net.load_state_dict(saved.agent()[0])
            saved.restore_optimizer(self.opt, groups=self.OPTIMIZER_GROUPS)
            for t in self.tables:
                t.league.restore(
                    state["league"] if t is self.tables[0] else state["leagues"][t.key],
                    lambda name: load_tensors_numpy(
                        saved.path / "league" / f"{Path(name).name}.safetensors"),
                    self.args.activation, self.played.features)  # fmt: skip
            self._restore_tables(saved)
            self.step, self.iteration = int(state["step"]), int(state["iteration"])
            self.due = {k: int(v) for k, v in state["due"].items()}
            self.history = list(state.get("history", []))
            rng = state["rng"]
            self.rng.bit_generator.state = rng["numpy"]
            for name, gen in self.generators().items():
                set_gen(gen, rng[name])
            restore_rng(rng["global"])
        except (KeyError, TypeError, ValueError, RuntimeError) as err:
            raise saved.error(f"cannot resume: {err}") from None

    def _restore_tables(self, saved: Saved) -> None:
        """Each table's seats, and its games in flight when the checkpoint holds them."""
        run = saved.arrays("run.safetensors")
        games = bool(saved.state.get("games_saved", True)) and self.eng.xp.name == "numpy"
        for t in self.tables:
            k = t.key
            mine = {name[len(k):]: v for name, v in run.items() if name.startswith(k)
                    and (k or "/" not in name)}  # fmt: skip
            t.restore_seats(mine)
            if games:
                t.restore_games(mine)
        self.games_restored = games
