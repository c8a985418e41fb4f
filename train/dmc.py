"""Deep Monte-Carlo (DMC) on the batched engines: the DouZero recipe for discrete masked actions.

DouZero (Zha et al., 2021) beat every rule agent at Dou Dizhu, a climbing game
like Scum, with no policy gradient at all: a Q-network regressed on
Monte-Carlo returns, played greedily with a little epsilon exploration.
Here, per iteration:

1. **Rollout.** ``num_games`` games of the game's batched engine
   (:mod:`cardsuite.train.ppo_games`) advance ``rollout_steps`` steps
   together. Learner rows (every seat of a self-play game; one seat, drawn
   anew each episode, of a game against a baseline) go through the Q-network
   in one forward pass and play the legal argmax, or a uniform legal move
   with probability ``epsilon``; the other rows are played by the baseline
   (the game's real heuristic, or random), one call per baseline.
2. **Targets.** Each learner decision's target is the acting seat's
   undiscounted reward from that decision to its episode's end
   (:class:`~cardsuite.train.dmc_core.MCReturns`). Decisions whose episode
   has not finished wait; finished ones enter a FIFO replay.
3. **Update.** Adam on the mean squared error of ``Q(s, a_taken)`` against
   the return, in minibatches, about ``replay_ratio`` passes per decision.

Optional warm start (``bc_steps``): fit ``Q(s, heuristic move)`` to the
heuristic games' returns with a large-margin term making the heuristic's
move the argmax (:func:`~cardsuite.train.dmc_core.fit_heuristic`).

Evaluation: duplicate deals of the greedy Q-policy against each of
``eval_against`` (:func:`cardsuite.train.duplicate.duplicate_match`, deals
of ``eval_seed``), written to ``RUN/eval.csv``; training statistics to
``RUN/progress.csv``. The agent is saved in the safe format as ``RUN/agent``
(``trainer: cardsuite-dmc``; its Q layers are the ``network.actor``), so the
arena plays it as ``ppo:RUN/agent`` (argmax of the legal Q-values).

Run: ``cardsuite dmc --config configs/train/dmc_scum4.yaml --seed 0 --run-dir
RUN`` (or ``python -m cardsuite.train.dmc`` with the same flags).
"""

from __future__ import annotations

import argparse
import csv
import random
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from cardsuite.batched.policies import call_policy
from cardsuite.errors import CardsuiteError
from cardsuite.train.dmc_args import DMCArgs, load_args
from cardsuite.train.dmc_core import MCReturns, QNet, Replay, epsilon_greedy, q_loss
from cardsuite.train.duplicate import GreedyActor, duplicate_match
from cardsuite.train.opponents import obs_scale
from cardsuite.train.ppo_games import train_game
from cardsuite.train.rundir import check_new_run_dir
from cardsuite.train.safe_io import AgentMeta, NetworkSpec, save_agent

TRAINER = "cardsuite-dmc"
PROGRESS_FIELDS = ("step", "iteration", "sps", "seconds", "rollout_s", "update_s", "loss",
                   "mean_q", "mean_return", "buffer", "pending", "league_games", "league_score")  # fmt: skip
EVAL_FIELDS = ("step", "seconds", "against", "deals", "beats", "beats_ci", "mean_a", "mean_b",
               "margin", "margin_ci")  # fmt: skip


class DMCTrainer:
    """State of one DMC run: engine, Q-network, optimiser, pending decisions, replay."""

    def __init__(self, args: DMCArgs) -> None:
        """Seed everything, build the run, and warm start if asked."""
        self.args = args
        random.seed(args.seed)
        np.random.seed(args.seed)
        torch.manual_seed(args.seed)
        if args.threads:
            torch.set_num_threads(args.threads)
        self.game = train_game(args.game)
        self.config: dict[str, Any] = self.game.config(args.num_players, args.options)
        self.eng = self.game.make_engine(args.num_games, self.config)
        spec = self.eng.obs_spec
        self.scale = torch.as_tensor(obs_scale(spec))
        self.net = QNet(spec.size, self.eng.num_actions, args.hidden, args.layers, args.activation)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=args.learning_rate)
        self.gen = torch.Generator()
        self.gen.manual_seed(args.seed)
        self.rng = np.random.default_rng(args.seed)
        n, p = args.num_games, self.eng.num_players
        self.baselines = self.game.baselines(args.names("baselines"), self.eng, args.seed)
        self.eval_opponents = self.game.baselines(args.names("eval_against"), self.eng, args.seed)
        self.selfplay = np.zeros(n, dtype=bool)
        self.selfplay[: round(args.self_play * n)] = True
        self.learner_seat = np.where(self.selfplay, -1, self.rng.integers(p, size=n))
        self.opp = self.rng.integers(max(1, len(self.baselines)), size=n)
        self.mc = MCReturns(n, p)
        self.replay = Replay(args.buffer_size, spec.size, args.seed + 7)
        self.pending: dict[str, list[np.ndarray]] = {k: [] for k in ("obs", "action", "episode",
                                                                     "seat", "start")}  # fmt: skip
        self.step, self.iteration, self.credit = 0, 0, 0.0
        self.t0 = time.perf_counter()
        self.dir = args.out_dir()
        check_new_run_dir(self.dir, "--run-dir")  # a run never overwrites another
        self.dir.mkdir(parents=True, exist_ok=True)
        self.history: list[dict[str, Any]] = []
        if args.bc_steps:
            self.warm_start()
        self.obs, self.mask, self.to_act = self.eng.reset(args.seed)

    def note(self, text: str) -> None:
        """A log line (not in quiet mode)."""
        if not self.args.quiet:
            print(text, flush=True)

    def warm_start(self) -> None:
        """Fit the Q-network on heuristic games (:func:`~cardsuite.train.dmc_core.fit_heuristic`)."""
        from cardsuite.train.dmc_core import fit_heuristic
        from cardsuite.train.imitation import heuristic_dataset

        a = self.args
        t0 = time.perf_counter()
        data = heuristic_dataset(a.bc_games, a.bc_steps, a.bc_explore, a.seed, self.config,
                                 self.game.name)  # fmt: skip
        stats = fit_heuristic(self.net, data, self.scale, epochs=a.bc_epochs, lr=1e-3,
                              margin=a.bc_margin, margin_coef=a.bc_margin_coef,
                              batch=a.batch_size, seed=a.seed)  # fmt: skip
        stats["bc_seconds"] = time.perf_counter() - t0
        self.note("warm start: " + ", ".join(f"{k} {v:.4g}" for k, v in stats.items()))
        self.history.append({"step": 0, "against": "warm_start", **stats})

    # ------------------------------------------------------------------ rollout
    def rollout(self) -> dict[str, float]:
        """Play ``rollout_steps`` steps of every game; move finished decisions to the replay."""
        n = self.args.num_games
        scores: list[np.ndarray] = []
        for _ in range(self.args.rollout_steps):
            to_act = np.asarray(self.to_act)
            learner = self.selfplay | (to_act == self.learner_seat)
            actions = np.zeros(n, dtype=np.int64)
            rows = np.flatnonzero(learner)
            if rows.size:
                obs = torch.from_numpy(self.obs[rows]) * self.scale
                mask = torch.from_numpy(self.mask[rows]).bool()
                with torch.no_grad():
                    a = epsilon_greedy(self.net(obs), mask, self.args.epsilon, self.gen).numpy()
                actions[rows] = a
                episode, start = self.mc.decide(rows, to_act[rows])
                for key, v in (("obs", obs.numpy()), ("action", a), ("episode", episode),
                               ("seat", to_act[rows]), ("start", start)):  # fmt: skip
                    self.pending[key].append(v)
                self.step += int(rows.size)
            for k, policy in enumerate(self.baselines.values()):
                idx = np.flatnonzero(~learner & (self.opp == k))
                if idx.size:
                    actions[idx] = np.asarray(call_policy(policy, self.obs[idx], self.mask[idx],
                                                          idx, to_act[idx]))  # fmt: skip
            res = self.eng.step(actions)
            rewards, done = np.asarray(res.rewards), np.asarray(res.done).astype(bool)
            self.mc.add(rewards, done)
            if done.any():
                scores.append(self._new_episodes(done, rewards))
            self.obs, self.mask, self.to_act = res.obs, res.mask, res.to_act
        score = np.concatenate(scores) if scores else np.zeros(0)
        return {"league_games": float(score.size),
                "league_score": float(score.mean()) if score.size else float("nan"),
                **self._resolve()}  # fmt: skip

    def _new_episodes(self, done: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        """Score finished baseline games (1 win, 0.5 tie); draw a new seat and baseline."""
        fin = np.flatnonzero(done & ~self.selfplay)
        if fin.size == 0:
            return np.zeros(0)
        p = self.eng.num_players
        mine = rewards[fin, self.learner_seat[fin]]
        others = (rewards[fin].sum(axis=1) - mine) / (p - 1)
        self.learner_seat[fin] = self.rng.integers(p, size=fin.size)
        self.opp[fin] = self.rng.integers(max(1, len(self.baselines)), size=fin.size)
        return np.asarray((mine > others) + 0.5 * (mine == others), dtype=np.float64)

    def _resolve(self) -> dict[str, float]:
        """Pending decisions whose episode ended go to the replay with their MC return."""
        if not self.pending["obs"]:
            return {"pending": 0.0, "new": 0.0, "mean_return": float("nan")}
        cat = {k: np.concatenate(v) for k, v in self.pending.items()}
        ended, ret = self.mc.resolve(cat["episode"], cat["seat"], cat["start"])
        if ended.any():
            self.replay.add(torch.from_numpy(cat["obs"][ended]),
                            torch.from_numpy(cat["action"][ended]),
                            torch.from_numpy(ret[ended].astype(np.float32)))  # fmt: skip
        self.pending = {k: [v[~ended]] for k, v in cat.items()}
        new = int(ended.sum())
        self.credit += new * self.args.replay_ratio / self.args.batch_size
        return {"pending": float((~ended).sum()), "new": float(new),
                "mean_return": float(ret[ended].mean()) if new else float("nan")}  # fmt: skip

    # ------------------------------------------------------------------ update
    def update(self) -> dict[str, float]:
        """Gradient steps on minibatches of the replay (``replay_ratio`` passes on average)."""
        losses, qs = [], []
        while self.credit >= 1.0 and self.replay.size:
            self.credit -= 1.0
            obs, action, ret = self.replay.sample(self.args.batch_size)
            loss = q_loss(self.net, obs, action, ret)
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            if self.args.max_grad_norm:
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.args.max_grad_norm)
            self.opt.step()
            losses.append(float(loss.detach()))
        if self.replay.size:
            with torch.no_grad():
                o, a, _r = self.replay.sample(min(256, self.replay.size))
                qs.append(float(self.net(o).gather(1, a[:, None]).mean()))
        return {"loss": float(np.mean(losses)) if losses else float("nan"),
                "mean_q": qs[0] if qs else float("nan"), "buffer": float(self.replay.size)}  # fmt: skip

    # ------------------------------------------------------------------ loop
    def evaluate(self) -> list[dict[str, Any]]:
        """Duplicate deals (``eval_seed``) of the greedy Q-policy against each eval baseline."""
        me = GreedyActor(self.net.actor, self.scale)
        rows: list[dict[str, Any]] = []
        for name, policy in self.eval_opponents.items():
            res = duplicate_match(me, policy, deals=self.args.eval_deals,
                                  seed=self.args.eval_seed, game=self.game.name,
                                  **self.config)  # fmt: skip
            rows.append({"step": self.step, "seconds": time.perf_counter() - self.t0,
                         "against": name, **res.to_dict()})  # fmt: skip
        for row in rows:
            _append(self.dir / "eval.csv", EVAL_FIELDS, row)
            self.note(f"eval step {self.step:,}: beats {row['against']} on "
                      f"{100 * row['beats']:.1f}% ± {100 * row['beats_ci']:.1f} of "
                      f"{int(row['deals'])} duplicate deals")  # fmt: skip
        self.history.extend(rows)
        return rows

    def train(self) -> dict[str, Any]:
        """Run to ``total_steps`` (or the time budget); the final evaluation rows."""
        args = self.args
        if args.eval_first:
            self.evaluate()
        self.t0 = time.perf_counter()
        budget = args.budget_minutes * 60 or float("inf")
        due = args.eval_every
        while self.step < args.total_steps and time.perf_counter() - self.t0 < budget:
            t_roll = time.perf_counter()
            stats = self.rollout()
            t_upd = time.perf_counter()
            stats.update(self.update())
            now = time.perf_counter()
            self.iteration += 1
            row = {"step": self.step, "iteration": self.iteration, "seconds": now - self.t0,
                   "sps": self.step / max(now - self.t0, 1e-9), "rollout_s": t_upd - t_roll,
                   "update_s": now - t_upd, **stats}  # fmt: skip
            _append(self.dir / "progress.csv", PROGRESS_FIELDS, row)
            if self.iteration % 20 == 0:
                self.note(f"step {self.step:>10,}  {row['sps']:>8,.0f} steps/s  loss "
                          f"{row['loss']:.4f}  mean Q {row['mean_q']:+.3f}  league "
                          f"{row['league_score']:.3f}")  # fmt: skip
            if args.eval_every and self.step >= due and self.step < args.total_steps:
                self.evaluate()
                due += args.eval_every
        rows = self.evaluate()
        self.save_agent()
        return {"step": self.step, "eval": rows}

    def save_agent(self) -> Path:
        """Write the Q-network as ``RUN/agent`` (safe format, playable as ``ppo:RUN/agent``)."""
        out = self.dir / "agent"
        if out.exists():
            shutil.rmtree(out)
        meta = AgentMeta(
            game=self.game.name, options=dict(self.config), obs_size=self.net.obs_size,
            num_actions=self.net.num_actions, step=self.step, trainer=TRAINER,
            network=NetworkSpec(activation=self.net.activation, actor=self.net.prefixes()),
            config=self.args.to_dict(),
        )  # fmt: skip
        return save_agent(out, self.net.state_dict(), meta)


def _append(path: Path, header: tuple[str, ...], row: dict[str, Any]) -> None:
    new = not path.exists()
    with open(path, "a", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=header, extrasaction="ignore")
        if new:
            w.writeheader()
        w.writerow({k: f"{v:.6g}" if isinstance(v, float) else v for k, v in
                    ((k, row.get(k)) for k in header)})  # fmt: skip


def train(args: DMCArgs) -> dict[str, Any]:
    """Train one run with ``args``; the final step and evaluation rows."""
    return DMCTrainer(args).train()


def _add_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="YAML preset of DMCArgs fields (train/dmc_args.py)")
    parser.add_argument("--seed", type=int, default=None, help="overrides the preset's seed")
    parser.add_argument("--run-dir", default=None, help="output folder")
    parser.add_argument("--total-steps", type=int, default=None, help="learner decisions")
    parser.add_argument("--budget-minutes", type=float, default=None,
                        help="time limit (0: none, only --total-steps)")  # fmt: skip


def _run(ns: argparse.Namespace) -> int:
    """Train from parsed flags; print the final evaluation (CardsuiteError propagates)."""
    args = load_args(ns.config, seed=ns.seed, run_dir=ns.run_dir, total_steps=ns.total_steps,
                     budget_minutes=ns.budget_minutes)  # fmt: skip
    result = train(args)
    for row in result["eval"]:
        print(f"vs {row['against']}: beats {100 * row['beats']:.1f}% ± "
              f"{100 * row['beats_ci']:.1f} of {row['deals']:.0f} duplicate deals, "
              f"margin {row['margin']:+.3f} ± {row['margin_ci']:.3f}")  # fmt: skip
    return 0


def add_command(sub: Any) -> tuple[str, Any]:
    """The ``cardsuite dmc`` subcommand (``cardsuite.commands`` entry point)."""
    parser = sub.add_parser("dmc", help="Deep Monte-Carlo (DouZero-style) on the batched engines",
                            description=__doc__.split("\n\n")[0])  # fmt: skip
    _add_flags(parser)

    def run(ns: argparse.Namespace, extra: list[str]) -> int:
        if extra:
            raise CardsuiteError(f"unknown arguments: {' '.join(extra)}")
        return _run(ns)

    return "dmc", run


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cardsuite.train.dmc --config PRESET [--seed N] [--run-dir RUN]``."""
    parser = argparse.ArgumentParser(prog="python -m cardsuite.train.dmc",
                                     description=__doc__.split("\n\n")[0])  # fmt: skip
    _add_flags(parser)
    ns = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return _run(ns)
    except CardsuiteError as err:
        print(f"cardsuite dmc: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
