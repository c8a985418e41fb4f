"""Deep Monte-Carlo (DMC) on the batched engines: the DouZero recipe for discrete masked actions.

A Q-network regressed on Monte-Carlo returns (Zha et al., 2021), played greedily with
``epsilon`` exploration. Per iteration: a **rollout**, each learner decision's return to
its episode's end into a FIFO replay, then Adam on ``(Q(s, a) - return)^2`` about
``replay_ratio`` times per decision (with ``polyak``, a running average of the weights is
what is evaluated, frozen and saved). The agent is ``RUN/agent`` (``ppo:RUN/agent``).
"""

from __future__ import annotations

import copy
import dataclasses
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from cardsuite.agents.learned.netspec import obs_scale
from cardsuite.errors import CheckpointError
from cardsuite.train.core.batched import SHARED_FILES, BatchedTrainer
from cardsuite.train.core.checkpoint import Saved
from cardsuite.train.core.cli import trainer_entry
from cardsuite.train.core.league import League  # noqa: F401  (re-exported: the core League)
from cardsuite.train.core.state import gen_state, set_gen
from cardsuite.train.core.tables import GameTable, make_table, warm_start_data
from cardsuite.train.dmc.config import DMCConfig
from cardsuite.train.dmc.parts import (
    MCReturns,
    QNet,
    Replay,
    epsilon_greedy,
    fit_heuristic,
    q_loss,
    relative_rewards,
)

TRAINER = "cardsuite-dmc"
PROGRESS_FIELDS = ("step", "iteration", "sps", "seconds", "rollout_s", "update_s", "loss",
                   "mean_q", "mean_return", "buffer", "pending", "league_games", "league_score")  # fmt: skip
PENDING = ("obs", "action", "episode", "seat", "start")
RETURNS = ("cum", "episode", "final", "ended")


@dataclass(eq=False, kw_only=True)
class _Table(GameTable):
    """A table's games, per-seat returns and decisions waiting for their episode's end."""

    mc: MCReturns
    pending: dict[str, list[np.ndarray]] = dataclasses.field(
        default_factory=lambda: {k: [] for k in PENDING}
    )


class DMCTrainer(BatchedTrainer):
    """One DMC run: the tables of games, Q-network, Adam, League, pending decisions, replay."""

    TRAINER = TRAINER
    VERSION = 1
    FILES = re.compile(SHARED_FILES + r"|(average|replay|pending|returns)\.safetensors")
    KINDS = "agent/, league/ and the run's .safetensors"
    MUST_MATCH = ("game", "num_players", "options", "hidden", "layers", "activation",
                  "num_games", "buffer_size", "sizes", "features", "polyak", "learner_seats")  # fmt: skip
    command = "dmc"
    tables: list[_Table]  # type: ignore[assignment]
    net: QNet

    def __init__(self, args: DMCConfig) -> None:
        self.start(args)
        self.gen = torch.Generator().manual_seed(args.seed)
        self.tables = [make_table(self.game, n, args, self.rng, generic=self.generic, greedy=True,
                                  table_class=_Table, mc=MCReturns(args.num_games, n))
                       for n in args.size_list()]  # fmt: skip
        spec, num_actions, features = self.layout()
        self.scale = torch.as_tensor(obs_scale(spec))
        for t in self.tables:
            t.league.scale = self.scale.numpy()
        self.net = QNet(spec.size, num_actions, args.hidden, args.layers,
                        args.activation, features).to(self.dev)  # fmt: skip
        self.opt = torch.optim.Adam(self.net.parameters(), lr=args.learning_rate)
        # the Polyak average that is played outside rollouts (module doc); None without one
        self.avg: QNet | None = copy.deepcopy(self.net) if args.polyak else None
        self.replay = Replay(args.buffer_size, spec.size, args.seed + 7)
        self.credit = 0.0
        self.open_run(PROGRESS_FIELDS, headline=("loss", "mean_q", "league_score"))
        if self.plan.checkpoint is None and args.bc_steps:
            self.warm_start()
        if self.plan.checkpoint is None and self.avg is not None:
            self.avg.load_state_dict(self.net.state_dict())  # the average starts at the start
        self.keep_warm_start()

    def fit_warm_start(self, until: Callable[[], bool]) -> dict[str, float]:
        """Fit the Q-network on heuristic games (`cardsuite.train.dmc.parts.fit_heuristic`)."""
        a = self.args
        data = warm_start_data(self.tables, self.game.name, a, relative=a.relative_reward,
                               until=until)  # fmt: skip
        data["ret"] = data["ret"] * np.float32(a.reward_scale)
        return fit_heuristic(self.net, data, self.scale.to(self.dev), epochs=a.bc_epochs,
                             lr=1e-3, margin=a.bc_margin, margin_coef=a.bc_margin_coef,
                             batch=a.batch_size, seed=a.seed, until=until)  # fmt: skip

    def rollout(self) -> dict[str, float]:
        """Play ``rollout_steps`` steps of every table; move finished decisions to the replay."""
        scores = [s for t in self.tables for s in self._rollout_table(t)]
        pending, new, total = (sum(x, 0.0) for x in zip(*map(self._resolve, self.tables)))
        self.credit += new * self.args.replay_ratio / self.args.batch_size
        score = np.concatenate(scores) if scores else np.zeros(0)
        return {"league_games": float(score.size),
                "league_score": float(score.mean()) if score.size else float("nan"),
                "pending": pending, "new": new,
                "mean_return": total / new if new else float("nan")}  # fmt: skip

    def _rollout_table(self, t: _Table) -> list[np.ndarray]:
        """``rollout_steps`` steps of one table's games; the scores of its finished league games."""
        n = self.args.num_games
        scores: list[np.ndarray] = []
        for _ in range(self.args.rollout_steps):
            to_act = np.asarray(t.to_act)
            learner = t.learner_rows(to_act)
            actions = np.zeros(n, dtype=np.int64)
            rows = np.flatnonzero(learner)
            if rows.size:
                obs = torch.from_numpy(t.net_obs(t.obs[rows])) * self.scale
                mask = torch.from_numpy(t.net_mask(t.mask[rows]))
                with torch.no_grad():
                    q = self.net(obs.to(self.dev)).cpu()
                a = epsilon_greedy(q, mask, self.args.epsilon, self.gen).numpy()
                actions[rows] = a
                episode, start = t.mc.decide(rows, to_act[rows])
                for key, v in (("obs", obs.numpy()), ("action", a), ("episode", episode),
                               ("seat", to_act[rows]), ("start", start)):  # fmt: skip
                    t.pending[key].append(v)
                self.step += int(rows.size)
            other = np.flatnonzero(~learner)
            if other.size:
                actions[other] = t.league.act(t.opp[other], t.obs[other], t.mask[other], other,
                                              to_act[other])  # fmt: skip
            res = t.eng.step(actions)
            rewards, done = np.asarray(res.rewards), np.asarray(res.done).astype(bool)
            trained = relative_rewards(rewards) if self.args.relative_reward else rewards
            t.mc.add(trained * self.args.reward_scale, done)
            if done.any():
                scores.append(t.finish_games(done, rewards, self.rng))
            t.obs, t.mask, t.to_act = res.obs, res.mask, res.to_act
        return scores

    def _resolve(self, t: _Table) -> tuple[float, float, float]:
        """Move a table's pending decisions whose episode ended to the replay with their
        return; the decisions still pending, those moved and their returns' sum."""
        if not t.pending["obs"]:
            return 0.0, 0.0, 0.0
        cat = {k: np.concatenate(v) for k, v in t.pending.items()}
        ended, ret = t.mc.resolve(cat["episode"], cat["seat"], cat["start"])
        if ended.any():
            self.replay.add(torch.from_numpy(cat["obs"][ended]),
                            torch.from_numpy(cat["action"][ended]),
                            torch.from_numpy(ret[ended].astype(np.float32)))  # fmt: skip
        t.pending = {k: [v[~ended]] for k, v in cat.items()}
        new = int(ended.sum())
        return float((~ended).sum()), float(new), float(ret[ended].sum()) if new else 0.0

    def update(self) -> dict[str, float]:
        """Gradient steps on minibatches of the replay (``replay_ratio`` passes on average)."""
        losses, qs = [], []
        while self.credit >= 1.0 and self.replay.size:
            self.credit -= 1.0
            obs, action, ret = (t.to(self.dev) for t in self.replay.sample(self.args.batch_size))
            loss = q_loss(self.net, obs, action, ret)
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            if self.args.max_grad_norm:
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.args.max_grad_norm)
            self.opt.step()
            if self.avg is not None:
                with torch.no_grad():
                    for mean, w in zip(self.avg.parameters(), self.net.parameters(), strict=True):
                        mean.lerp_(w, 1.0 - self.args.polyak)
            losses.append(float(loss.detach()))
        if self.replay.size:
            with torch.no_grad():
                o, a, _r = (t.to(self.dev) for t in self.replay.sample(min(256, self.replay.size)))
                qs.append(float(self.net(o).gather(1, a[:, None]).mean()))
        return {"loss": float(np.mean(losses)) if losses else float("nan"),
                "mean_q": qs[0] if qs else float("nan"), "buffer": float(self.replay.size)}  # fmt: skip

    @property
    def played(self) -> QNet:
        """The network played outside rollouts: the Polyak average, or the trained one."""
        return self.avg if self.avg is not None else self.net

    def begin(self) -> None:
        """Evaluate the warm start alone first if asked (``eval_first``, a fresh run)."""
        if self.args.eval_first and self.plan.checkpoint is None:
            self.evaluate_and_keep()

    def iterate(self) -> dict[str, float]:
        """One rollout of every table and the replay updates it pays for."""
        t_roll = time.perf_counter()
        stats = self.rollout()
        t_upd = time.perf_counter()
        stats.update(self.update())
        return {"rollout_s": t_upd - t_roll, "update_s": time.perf_counter() - t_upd, **stats}

    def generators(self) -> dict[str, torch.Generator]:
        """The epsilon-greedy generator."""
        return {"torch": self.gen}

    def checkpoint_parts(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The average, the replay, each table's pending decisions and running returns."""
        if self.tables[0].game_state() is None:  # games kept in Python objects
            raise CheckpointError(f"{self.game.name}: its engine cannot be checkpointed")
        r, pending, returns = self.replay, {}, {}
        for t in self.tables:
            part = {k: np.concatenate(v) for k, v in t.pending.items() if v}
            if part and len(part["obs"]):
                pending.update({t.key + k: v for k, v in part.items()})
            returns.update({t.key + k: getattr(t.mc, k) for k in RETURNS})
        ids = [t.mc.next_id for t in self.tables]
        files = {"average.safetensors": {} if self.avg is None else self.avg.state_dict(),
                 "replay.safetensors": {"obs": r.obs, "action": r.action, "ret": r.ret},
                 "pending.safetensors": pending, "returns.safetensors": returns}  # fmt: skip
        return files, {"credit": self.credit, "next_episode": ids[0] if len(ids) == 1 else ids,
                       "replay": {"size": r.size, "head": r.head, "gen": gen_state(r.gen)}}  # fmt: skip

    def check_version(self, saved: Saved) -> None:
        """CheckpointError unless ``saved`` is a Deep Monte-Carlo checkpoint."""
        if saved.state.get("version") != self.VERSION or "replay" not in saved.state:
            raise saved.error("not a Deep Monte-Carlo checkpoint")

    def restore_parts(self, saved: Saved) -> None:
        """The average, the replay, the pending decisions and the running returns."""
        state, r = saved.state, self.replay
        if self.avg is not None:
            self.avg.load_state_dict(saved.tensors("average.safetensors"))
        replay = saved.tensors("replay.safetensors")
        r.obs[...], r.action[...], r.ret[...] = replay["obs"], replay["action"], replay["ret"]
        r.size, r.head = int(state["replay"]["size"]), int(state["replay"]["head"])
        set_gen(r.gen, state["replay"]["gen"])
        self.credit = float(state["credit"])
        pend, ret = saved.arrays("pending.safetensors"), saved.arrays("returns.safetensors")
        next_ids = state["next_episode"]
        next_ids = next_ids if isinstance(next_ids, list) else [next_ids]
        for t, next_id in zip(self.tables, next_ids, strict=True):
            k = t.key
            t.pending = {name: [pend[k + name]] if k + "obs" in pend else [] for name in PENDING}
            for name in RETURNS:
                setattr(t.mc, name, ret[k + name])
            t.mc.next_id = int(next_id)


DESCRIPTION = __doc__.split("\n\n")[0]
train, add_command, main = trainer_entry("dmc", DMCConfig, DMCTrainer, description=DESCRIPTION,
                                         help="Deep Monte-Carlo (DouZero-style) on the batched engines")  # fmt: skip

if __name__ == "__main__":
    sys.exit(main())
