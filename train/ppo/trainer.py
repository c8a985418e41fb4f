"""Masked PPO on the batched engines, in one readable loop (cleanrl style, plain torch).

Per iteration: a **rollout** (the learner's rows in one forward pass, the League's member
plays the others), **advantages** (GAE along each seat's own decisions), the clipped PPO
**update**, then the core loop's schedules. The agent is ``RUN/agent``
(``ppo:RUN/agent``); see ``docs/training.md``.
"""

from __future__ import annotations

import copy
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from cardsuite.agents.learned.netspec import obs_scale
from cardsuite.agents.learned.pretrained import agent_dir
from cardsuite.errors import CheckpointError
from cardsuite.train.core.batched import SHARED_FILES, BatchedTrainer
from cardsuite.train.core.checkpoint import Saved
from cardsuite.train.core.cli import trainer_entry
from cardsuite.train.core.duplicate import TwinDeals, split_twin
from cardsuite.train.core.league import League  # noqa: F401  (re-exported: the core League)
from cardsuite.train.core.learned import load_tensors
from cardsuite.train.core.tables import GameTable, make_table, warm_start_data
from cardsuite.train.ppo.config import PPOConfig
from cardsuite.train.ppo.imitation import dagger, greedy_actor, imitate
from cardsuite.train.ppo.network import TRAINER, ActorCritic, load_actor
from cardsuite.train.ppo.rollout import SeatRollout, to_torch
from cardsuite.train.ppo.update import anchor_kl, ppo_update  # noqa: F401  (re-exported)

DAGGER_SEED = 7_919  # a DAgger round r deals games of seed + DAGGER_SEED * r
PROGRESS_FIELDS = ("step", "iteration", "sps", "rollout_s", "update_s", "lr", "league_games",
                   "league_win", "pg_loss", "v_loss", "entropy", "approx_kl", "clipfrac",
                   "explained_var")  # fmt: skip
ANCHOR_FIELDS = ("anchor_kl",)  # progress.csv's last column with anchor_coef above 0
DUPLICATE_FIELDS = ("dup_margin",)  # and with duplicate_baseline


@dataclass(eq=False, kw_only=True)
class PPOTable(GameTable):
    """A table's games, its rollout buffer and (``duplicate_baseline``) its twin games."""

    buf: SeatRollout | None = None
    twin: TwinDeals | None = None

    def reset_games(self, seed: int) -> None:
        """New deals of ``seed`` in every game (and in the twin games, the same)."""
        super().reset_games(seed)
        if self.twin is not None:
            self.twin.reset(seed)

    def game_state(self) -> dict[str, np.ndarray] | None:
        """The games in flight and the twin's, or None when either cannot be saved."""
        games = super().game_state()
        twin = self.twin.state() if self.twin is not None and games is not None else {}
        return None if games is None or twin is None else {**games, **twin}

    def restore_games(self, saved: dict[str, Any]) -> None:
        """Put back `game_state`'s arrays, the twin's too."""
        own, twin = split_twin(saved)
        super().restore_games(own)
        if self.twin is not None:
            self.twin.restore(twin)

    def hands_dealt(self) -> np.ndarray:
        """Hands dealt so far in each game (the engines' deal counters)."""
        return np.array(self.eng.xp.to_numpy(self.eng.deals), dtype=np.int64)  # a copy


class Trainer(BatchedTrainer):
    """One run: the tables of games in flight, the network, Adam and the Leagues.
    ``opponents`` (name -> batch policy) replaces ``baselines`` and ``eval_against``."""

    TRAINER = TRAINER
    VERSION = 2
    FILES = re.compile(SHARED_FILES + r"|anchor\.safetensors")
    KINDS = "agent/, optimizer, run and league/*.safetensors"
    MUST_MATCH = ("game", "num_players", "options", "hidden", "layers", "activation",
                  "num_games", "sizes", "features", "duplicate_baseline", "learner_seats")  # fmt: skip
    OPTIMIZER_GROUPS = False  # the learning rate is set each iteration
    command = "ppo"
    tables: list[PPOTable]  # type: ignore[assignment]
    net: ActorCritic

    def __init__(self, args: PPOConfig, opponents: dict[str, Any] | None = None) -> None:
        self.start(args)
        backend = "torch" if self.dev.type != "cpu" else args.backend
        kwargs = {"backend": backend, "device": str(self.dev) if backend == "torch" else None}
        self.tables = [make_table(self.game, players, args, self.rng, generic=self.generic,
                                  engine_kwargs=kwargs, opponents=opponents,
                                  table_class=PPOTable) for players in args.size_list()]  # fmt: skip
        self.xp = self.eng.xp
        spec, num_actions, features = self.layout()
        self.scale = torch.as_tensor(obs_scale(spec), device=self.dev)
        self.net = ActorCritic(spec.size, num_actions, args.hidden, args.layers,
                               args.activation, features).to(self.dev)  # fmt: skip
        self.opt = torch.optim.Adam(self.net.parameters(), lr=args.learning_rate, eps=1e-5)
        self.gen = torch.Generator(device=self.dev).manual_seed(args.seed)
        self.cpu_gen = torch.Generator().manual_seed(args.seed + 1)
        for t in self.tables:
            t.league.scale = obs_scale(spec)
            t.buf = SeatRollout(args.rollout_steps, args.num_games, t.eng.num_players, spec.size,
                                num_actions, self.dev)  # fmt: skip
            if args.duplicate_baseline:
                t.twin = TwinDeals(self.game, t.config, args.num_games, kwargs)
        self.anchor: ActorCritic | None = None  # the frozen actor of anchor_coef
        fields = (PROGRESS_FIELDS + (ANCHOR_FIELDS if args.anchor_coef else ())
                  + (DUPLICATE_FIELDS if args.duplicate_baseline else ()))  # fmt: skip
        self.open_run(fields, headline=("entropy", "approx_kl", "league_win"))
        if self.plan.checkpoint is None and args.init:
            self.load_init(args.init)
        elif self.plan.checkpoint is None and args.bc_steps:
            self.warm_start()
        if self.plan.checkpoint is None and args.anchor_coef:
            self.anchor = self.frozen_copy()
        self.keep_warm_start()
        if self.plan.checkpoint is not None and not self.games_restored:  # fresh deals
            for t in self.tables:
                t.reset_games(args.seed + self.iteration)

    @property
    def buf(self) -> SeatRollout:
        """The first table's rollout buffer."""
        buf = self.tables[0].buf
        assert buf is not None
        return buf

    def frozen_copy(self) -> ActorCritic:
        """A copy of the network as it is now, without gradients (the anchor of anchor_coef)."""
        return copy.deepcopy(self.net).requires_grad_(False)

    def load_init(self, path: str) -> None:
        """Start from a saved agent (a directory or ``pretrained:NAME``; CheckpointError if it
        does not fit); an actor saved without its critic gets a fresh one (``critic_warmup``)."""
        if path.startswith("pretrained:"):
            path = str(agent_dir(path.removeprefix("pretrained:")))
        torch.manual_seed(self.args.seed)  # a fresh critic's initial weights
        net, _meta, fresh = load_actor(path)
        if fresh:
            self.log.note(f"init: {path} has no critic; the critic starts fresh")
        mine, theirs = self.net.state_dict(), net.state_dict()
        if {k: v.shape for k, v in mine.items()} != {k: v.shape for k, v in theirs.items()}:
            raise CheckpointError(
                f"init: agent {path!r} has another network shape than hidden={self.args.hidden}, "
                f"layers={self.args.layers} on this table"
            )
        self.net.load_state_dict(theirs)

    def fit_warm_start(self, until: Callable[[], bool]) -> dict[str, float]:
        """Imitate the heuristic, then ``bc_dagger`` DAgger rounds."""
        args = self.args
        data = warm_start_data(self.tables, self.game.name, args, until=until)
        stats = imitate(self.net, data, self.scale, epochs=args.bc_epochs, seed=args.seed,
                        until=until)  # fmt: skip
        if args.bc_dagger:
            # Each round deals games of its own seed; the copy plays, the heuristic labels.
            _, more = dagger(
                self.net, data, self.scale, rounds=args.bc_dagger, epochs=args.bc_dagger_epochs,
                seed=args.seed, note=self.log.note, until=until,
                collect=lambda r: warm_start_data(self.tables, self.game.name, args,
                                                  seed=args.seed + DAGGER_SEED * r,
                                                  actor_for=self._greedy_actor),
            )  # fmt: skip
            stats |= more
        return stats

    def _greedy_actor(self, t: PPOTable) -> Any:
        """The network's greedy move at table ``t``, on the engine's own arrays (DAgger)."""
        act = greedy_actor(self.net, self.scale)
        return lambda obs, mask: act(t.net_obs(obs), t.net_mask(mask))

    def rollout(self) -> dict[str, float]:
        """Fill every table's buffer with ``rollout_steps`` steps of its games; episode statistics."""
        margins: list[np.ndarray] = []
        outcomes = [o for t in self.tables for o in self._rollout_table(t, margins)]
        finished = np.concatenate(outcomes) if outcomes else np.zeros(0)
        out = {"league_games": float(finished.size),
               "league_win": float(finished.mean()) if finished.size else float("nan")}  # fmt: skip
        if self.args.duplicate_baseline:
            dup = np.concatenate(margins) if margins else np.zeros(0)
            out["dup_margin"] = float(dup.mean()) if dup.size else float("nan")
        return out

    def _net_input(self, t: PPOTable, rows: torch.Tensor, obs: Any, mask: Any) -> tuple[
            torch.Tensor, torch.Tensor]:  # fmt: skip
        """The network's scaled observations and masks of a table's ``rows`` (padded if generic)."""
        if not t.generic:
            return (to_torch(obs, self.dev)[rows] * self.scale,
                    to_torch(mask, self.dev)[rows].bool())  # fmt: skip
        idx = rows.cpu().numpy()
        x = torch.from_numpy(t.net_obs(self.xp.to_numpy(obs)[idx])).to(self.dev) * self.scale
        return x, torch.from_numpy(t.net_mask(self.xp.to_numpy(mask)[idx])).to(self.dev)

    def _rollout_table(self, t: PPOTable, margins: list[np.ndarray]) -> list[np.ndarray]:
        """``rollout_steps`` steps of one table's games; its finished league games' outcomes.
        With ``duplicate_baseline`` the credited rewards are less the twin games', and each
        finished league game's learner margin goes to ``margins``."""
        xp, buf, dev = self.xp, t.buf, self.dev
        assert buf is not None
        buf.clear()
        n = self.args.num_games
        outcomes: list[np.ndarray] = []
        for step in range(self.args.rollout_steps):
            to_act = xp.to_numpy(t.to_act)
            learner = t.learner_rows(to_act)
            rows = np.flatnonzero(learner)
            actions = np.zeros(n, dtype=np.int64)
            if rows.size:
                rows_t = torch.from_numpy(rows).to(dev)
                obs, mask = self._net_input(t, rows_t, t.obs, t.mask)
                a, logp, v = self.net.act(obs, mask, self.gen)
                seats = torch.from_numpy(to_act[rows]).to(dev)
                buf.record(step, rows_t, seats, obs, mask, a, logp, v)
                actions[rows] = a.cpu().numpy()
                self.step += int(rows.size)
            other = np.flatnonzero(~learner)
            if other.size:
                o_np, m_np = xp.to_numpy(t.obs), xp.to_numpy(t.mask)
                actions[other] = t.league.act(t.opp[other], o_np[other], m_np[other], other,
                                              to_act[other])  # fmt: skip
            if t.twin is not None:
                dealt = t.hands_dealt()
                t.twin.keep_up(dealt)
            res = t.eng.step(xp.asarray(actions, xp.int64))
            done = xp.to_numpy(res.done).astype(bool)
            credit = res.rewards
            if t.twin is not None:
                raw = np.asarray(xp.to_numpy(res.rewards), dtype=np.float64)
                shaped = t.twin.subtract(dealt, t.hands_dealt(), done, raw)
                credit = torch.from_numpy(shaped.astype(np.float32))
                league = np.flatnonzero(done & ~t.selfplay)
                margins.append(t.twin.take_margin(league, t.learner_seat[league]))
                t.twin.margin[done] = 0.0  # self-play games: every seat is the learner
            buf.add_rewards(to_torch(credit, dev), to_torch(res.done, dev))
            if done.any():
                outcomes.append(t.finish_games(done, xp.to_numpy(res.rewards), self.rng))
            t.obs, t.mask, t.to_act = res.obs, res.mask, res.to_act
        self._bootstrap(t)
        return outcomes

    def _bootstrap(self, t: PPOTable) -> None:
        """Values of a table's transitions still open, from each seat's view of the current state."""
        assert t.buf is not None
        for seat in range(t.eng.num_players):
            ts, gs = t.buf.open_transitions(seat)
            if ts.numel() == 0:
                continue
            view = t.eng.observe_as(seat)
            x = (to_torch(view, self.dev) if not t.generic else
                 torch.from_numpy(t.net_obs(self.xp.to_numpy(view))).to(self.dev))  # fmt: skip
            with torch.no_grad():
                t.buf.boot[ts, gs] = self.net.value(x[gs] * self.scale)

    def iterate(self) -> dict[str, float]:
        """One rollout of every game and a PPO update (the learning rate annealed first)."""
        args = self.args
        if args.anneal_lr:
            frac = max(0.0, 1.0 - self.step / args.total_steps)
            for group in self.opt.param_groups:
                group["lr"] = frac * args.learning_rate
        t_roll = time.perf_counter()
        start = self.step  # critic_warmup: judged by the decisions before this rollout
        episodes = self.rollout()
        bufs = [t.buf for t in self.tables if t.buf is not None]
        parts = [b.flat(*b.advantages(args.gamma, args.gae_lambda)) for b in bufs]
        data = parts[0] if len(parts) == 1 else {
            k: torch.cat([part[k] for part in parts]) for k in parts[0]}  # fmt: skip
        t_upd = time.perf_counter()
        stats = ppo_update(self.net, self.opt, data, args, self.cpu_gen, self.anchor,
                           critic_only=start < args.critic_warmup)  # fmt: skip
        return {"rollout_s": t_upd - t_roll, "update_s": time.perf_counter() - t_upd,
                "lr": self.opt.param_groups[0]["lr"], **episodes, **stats}  # fmt: skip

    def add_snapshot(self) -> None:
        """Freeze the actor into the League."""
        super().add_snapshot()
        self.log.note(f"league: {self.league.describe()}")

    def generators(self) -> dict[str, torch.Generator]:
        """The rollout's generator and the update's (on the CPU)."""
        return {"torch": self.gen, "torch_cpu": self.cpu_gen}

    def checkpoint_parts(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The anchor of ``anchor_coef`` (``anchor.safetensors``)."""
        anchor = {} if self.anchor is None else dict(self.anchor.state_dict())
        return {"anchor.safetensors": anchor}, {}

    def restore_parts(self, saved: Saved) -> None:
        """The anchor: a resume may change ``anchor_coef``, not whether there is one."""
        had = bool(saved.state["config"].get("anchor_coef", 0.0))
        if had != bool(self.args.anchor_coef):
            raise saved.error(f"anchor_coef: the run was trained {'with' if had else 'without'} "
                              f"an anchor; a resume cannot {'drop' if had else 'add'} it")  # fmt: skip
        if had:
            self.anchor = self.frozen_copy()
            self.anchor.load_state_dict(load_tensors(saved.path / "anchor.safetensors"))


DESCRIPTION = __doc__.split("\n\n")[0]
train, add_command, main = trainer_entry("ppo", PPOConfig, Trainer, description=DESCRIPTION,
                                         help="masked PPO self-play on the batched engines")  # fmt: skip

if __name__ == "__main__":
    sys.exit(main())
