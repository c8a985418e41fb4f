"""Deep Monte-Carlo (DMC) on the batched engines: the DouZero recipe for discrete masked actions.

DouZero (Zha et al., 2021) beat every rule agent at Dou Dizhu, a climbing game
like Scum, with no policy gradient at all: a Q-network regressed on
Monte-Carlo returns, played greedily with a little epsilon exploration.
Here, per iteration:

1. **Rollout.** ``num_games`` games of the game's batched engine
   (`cardsuite.train.core.games`) advance ``rollout_steps`` steps
   together. Learner rows (every seat of a self-play game; one seat, drawn
   anew each episode, of a game against a baseline) go through the Q-network
   in one forward pass and play the legal argmax, or a uniform legal move
   with probability ``epsilon``; the other rows are played by the baseline
   (the game's real heuristic, or random), one call per baseline.
2. **Targets.** Each learner decision's target is the acting seat's
   undiscounted reward from that decision to its episode's end
   (`MCReturns`). Decisions whose episode
   has not finished wait; finished ones enter a FIFO replay.
3. **Update.** Adam on the mean squared error of ``Q(s, a_taken)`` against
   the return, in minibatches, about ``replay_ratio`` passes per decision.
   With ``polyak`` > 0 a running average of the weights follows each step
   (``avg += (1 - polyak) * (net - avg)``), and the average, not the trained
   network, is what the evaluations play, the league freezes and the agent
   saves; rollouts still act with the trained network.

Optional warm start (``bc_steps``): fit ``Q(s, heuristic move)`` to the
heuristic games' returns with a large-margin term making the heuristic's
move the argmax (`fit_heuristic`).

It stands on the training core (`cardsuite.train.core`): the opponents are
a `League` (the game's baselines and, with ``snapshot_every``, greedy frozen
copies of the Q-network, drawn by ``pfsp``); evaluation is the duplicate
evaluator (deals of ``eval_seed`` against each of ``eval_against``, greedy
Q-policy), logged to ``RUN/eval.csv``; training statistics go to
``RUN/progress.csv`` and TensorBoard (``RUN/tb``). Checkpoints
(``RUN/checkpoint``, every ``checkpoint_every`` steps and at the end) hold
everything a run needs to go on exactly: the Q-network, Adam, the replay,
the decisions still waiting for their episode's end, the running returns,
the games in flight, the league and every generator; ``--resume RUN``
continues it, and the result is the same as a run that never stopped. The
agent is saved in the safe format as ``RUN/agent`` (``trainer:
cardsuite-dmc``; its Q layers are the ``network.actor``), so the arena plays
it as ``ppo:RUN/agent`` (argmax of the legal Q-values).

**Every table size** (``sizes``, e.g. ``5,8,20,50``): the run keeps one
batch of ``num_games`` games per player count (`_Table`: its engine, league,
returns and games in flight), rolls every size out each iteration, and
trains one Q-network on the game's size-generic layout
(`cardsuite.agents.learned.layout`: observations padded to the largest table,
action masks padded with False, so a table's action ids are the generic
ones). The warm start imitates the heuristic at every size; the evaluation
plays each size (rows ``heuristic@20p``); the agent's metadata says
``network.layout: generic``, so ``ppo:RUN/agent`` sits at any table of the
game (`cardsuite.agents.learned.size_generic.SizeGenericAgent`).

Run: ``cardsuite dmc --config dmc_scum4 --seed 0 --run-dir RUN [--device cuda]``
(or ``python -m cardsuite.train.dmc.trainer`` with the same flags).
"""

from __future__ import annotations

import copy
import dataclasses
import re
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from cardsuite.agents.learned.features import table_features
from cardsuite.agents.learned.layout import generic_spec, layout_of
from cardsuite.agents.learned.netspec import NetworkSpec, Snapshot, obs_scale
from cardsuite.agents.learned.safe_io import (
    AgentMeta,
    load_agent,
    load_tensors,
    load_tensors_numpy,
    save_agent,
    save_tensors,
)
from cardsuite.errors import CheckpointError
from cardsuite.train.core.checkpoint import (
    capture_rng,
    check_must_match,
    engine_state,
    finite,
    flatten_optimizer,
    gen_state,
    read_checkpoint,
    restore_engine_state,
    restore_optimizer,
    restore_rng,
    set_gen,
    write_checkpoint,
)
from cardsuite.train.core.cli import command_main, trainer_command
from cardsuite.train.core.games import train_game
from cardsuite.train.core.league import League  # noqa: F401  (re-exported: the core League)
from cardsuite.train.core.log import open_log
from cardsuite.train.core.loop import BatchedLoop, seed_all
from cardsuite.train.core.rundir import plan_run
from cardsuite.train.core.tables import (
    FirstTable,
    GameTable,
    evaluate_tables,
    make_table,
    warm_start_data,
)
from cardsuite.train.dmc.config import DMCConfig
from cardsuite.train.dmc.parts import (
    MCReturns,
    QNet,
    Replay,
    epsilon_greedy,
    q_loss,
    relative_rewards,
)

TRAINER = "cardsuite-dmc"
STATE_VERSION = 1
PROGRESS_FIELDS = ("step", "iteration", "sps", "seconds", "rollout_s", "update_s", "loss",
                   "mean_q", "mean_return", "buffer", "pending", "league_games", "league_score")  # fmt: skip
MUST_MATCH = ("game", "num_players", "options", "hidden", "layers", "activation", "num_games",
              "buffer_size", "sizes", "features", "polyak", "learner_seats")  # fmt: skip
PENDING = ("obs", "action", "episode", "seat", "start")
_FILES = re.compile(
    r"agent/(weights\.safetensors|agent\.json)|(optimizer|average|replay|pending|returns|run)\.safetensors"
    r"|league/snapshot@\d{1,15}\.safetensors"
)


@dataclass(eq=False, kw_only=True)
class _Table(GameTable):
    """A table's games (`cardsuite.train.core.tables.GameTable`), with Deep Monte-Carlo's
    per-seat returns and the learner decisions still waiting for their episode's end."""

    mc: MCReturns
    pending: dict[str, list[np.ndarray]] = dataclasses.field(
        default_factory=lambda: {k: [] for k in PENDING}
    )


class DMCTrainer(FirstTable, BatchedLoop):
    """State of one DMC run: engine, Q-network, optimiser, league, pending decisions, replay."""

    def __init__(self, args: DMCConfig) -> None:
        """Seed everything and build the run: fresh (warm started if asked) or resumed."""
        self.args = args
        # the one resume rule; a run never overwrites another
        self.plan = plan_run(args.run_dir or None, args.resume or None, args.out_dir())
        self.dir = self.plan.run_dir
        seed_all(args.seed, args.threads)
        self.dev = torch.device(args.device)
        self.game = train_game(args.game)
        self.generic = args.game if args.sizes.strip() else ""
        self.gen = torch.Generator()
        self.gen.manual_seed(args.seed)
        self.rng = np.random.default_rng(args.seed)
        self.tables: list[_Table] = [self._table(n) for n in args.size_list()]
        if self.generic:
            spec, num_actions = generic_spec(self.generic), layout_of(self.generic).num_actions
        else:
            spec, num_actions = self.eng.obs_spec, self.eng.num_actions
        self.scale = torch.as_tensor(obs_scale(spec))
        for t in self.tables:
            t.league.scale = self.scale.numpy()
        first = self.tables[0]  # its heuristic's rules give every table size's decks
        features = table_features(args.features, self.game, first.eng, first.eng.num_players,
                                  obs_scale(spec), generic=self.generic)  # fmt: skip
        self.net = QNet(spec.size, num_actions, args.hidden, args.layers,
                        args.activation, features).to(self.dev)  # fmt: skip
        self.opt = torch.optim.Adam(self.net.parameters(), lr=args.learning_rate)
        # the Polyak average that is played outside rollouts (module doc); None without one
        self.avg: QNet | None = copy.deepcopy(self.net) if args.polyak else None
        self.replay = Replay(args.buffer_size, spec.size, args.seed + 7)
        self.step, self.iteration, self.credit = 0, 0, 0.0
        self.due = self.schedule_start()
        self.history: list[dict[str, Any]] = []
        for t in self.tables:
            t.obs, t.mask, t.to_act = t.eng.reset(args.seed)
        if self.plan.checkpoint is not None:
            self.load(self.plan.checkpoint)
        self.log = open_log(self.plan, self.step, PROGRESS_FIELDS, tensorboard=args.tensorboard,
                            quiet=args.quiet, headline=("loss", "mean_q", "league_score"))  # fmt: skip
        if self.plan.checkpoint is None and args.bc_steps:
            self.warm_start()
        if self.plan.checkpoint is None and self.avg is not None:
            self.avg.load_state_dict(self.net.state_dict())  # the average starts at the start

    def _table(self, players: int) -> _Table:
        """A batch of ``num_games`` games at ``players`` (league, seats, returns)."""
        table = make_table(self.game, players, self.args, self.rng, generic=self.generic,
                           greedy=True, table_class=_Table,
                           mc=MCReturns(self.args.num_games, players))  # fmt: skip
        assert isinstance(table, _Table)
        return table

    def note(self, text: str) -> None:
        """A log line (not in quiet mode)."""
        self.log.note(text)

    def warm_start(self) -> None:
        """Fit the Q-network on heuristic games (`cardsuite.train.dmc.parts.fit_heuristic`)."""
        from cardsuite.train.dmc.parts import fit_heuristic

        a = self.args
        t0 = time.perf_counter()
        data = warm_start_data(self.tables, self.game.name, a, relative=a.relative_reward)
        data["ret"] = data["ret"] * np.float32(a.reward_scale)
        stats = fit_heuristic(self.net, data, self.scale.to(self.dev), epochs=a.bc_epochs,
                              lr=1e-3, margin=a.bc_margin, margin_coef=a.bc_margin_coef,
                              batch=a.batch_size, seed=a.seed)  # fmt: skip
        stats["bc_seconds"] = time.perf_counter() - t0
        self.note("warm start: " + ", ".join(f"{k} {v:.4g}" for k, v in stats.items()))
        self.history.append({"step": 0, "against": "warm_start", **stats})

    # ------------------------------------------------------------------ rollout
    def rollout(self) -> dict[str, float]:
        """Play ``rollout_steps`` steps of every table; move finished decisions to the replay."""
        scores: list[np.ndarray] = []
        for t in self.tables:
            scores += self._rollout_table(t)
        pending, new, total = 0.0, 0.0, 0.0
        for t in self.tables:
            p, n, r = self._resolve(t)
            pending, new, total = pending + p, new + n, total + r
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
        """A table's pending decisions whose episode ended go to the replay with their MC return.

        Returns the decisions still pending, those moved, and the sum of their returns.
        """
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

    # ------------------------------------------------------------------ update
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

    # ------------------------------------------------------------------ loop
    @property
    def played(self) -> QNet:
        """The network played outside rollouts: the Polyak average, or the trained one."""
        return self.avg if self.avg is not None else self.net

    def snapshot(self) -> Snapshot:
        """The played Q-network frozen (numpy), as the league and the evaluator play it."""
        net = self.played
        return Snapshot.of(net.actor, self.step, self.args.activation, net.features)

    def evaluate(self) -> list[dict[str, Any]]:
        """Duplicate deals (``eval_seed``) of the greedy Q-policy against each eval baseline.

        With ``sizes``, at every player count (rows ``NAME@Pp``), the network
        seen at that table (`cardsuite.agents.learned.size_generic.GenericSnapshot`).
        """
        rows = evaluate_tables(self.snapshot(), self.scale.numpy(), self.tables,
                               game=self.game.name, deals=self.args.eval_deals,
                               seed=self.args.eval_seed, step=self.step)  # fmt: skip
        self.log.evals(rows)
        self.history.extend(rows)
        return rows

    def train(self) -> dict[str, Any]:
        """Evaluate first if asked (``eval_first``), then the core's loop (`BatchedLoop.train`)."""
        if self.args.eval_first and self.plan.checkpoint is None:
            self.evaluate_and_keep()
        return super().train()

    def iterate(self) -> dict[str, float]:
        """One rollout of every table and the replay updates it pays for."""
        t_roll = time.perf_counter()
        stats = self.rollout()
        t_upd = time.perf_counter()
        stats.update(self.update())
        return {"rollout_s": t_upd - t_roll, "update_s": time.perf_counter() - t_upd, **stats}

    def add_snapshot(self) -> None:
        """Freeze the Q-network into the League (played greedily)."""
        self.league.add_snapshot(self.snapshot())

    # ------------------------------------------------------------ checkpoints
    def agent_meta(self) -> AgentMeta:
        """The safe-format metadata of the Q-network at this step (size-generic with ``sizes``)."""
        options = dict(self.config)
        if self.generic:  # every table size: the rule options but the player count
            options.pop("num_players", None)
        return AgentMeta(
            game=self.game.name, options=options, obs_size=self.net.obs_size,
            num_actions=self.net.num_actions, step=self.step, trainer=TRAINER,
            network=NetworkSpec(activation=self.net.activation, actor=self.net.prefixes(),
                                layout="generic" if self.generic else "table",
                                features=self.net.features),
            config=self.args.to_dict(),
        )  # fmt: skip

    def save(self) -> Path:
        """Write ``RUN/checkpoint`` (the core's atomic writer): everything to go on exactly."""

        def fill(tmp: Path) -> dict[str, Any]:
            save_agent(tmp / "agent", self.net.state_dict(), self.agent_meta())
            tensors, groups = flatten_optimizer(self.opt.state_dict())
            save_tensors(tmp / "optimizer.safetensors", tensors)
            if self.avg is not None:
                save_tensors(tmp / "average.safetensors", self.avg.state_dict())
            r = self.replay
            save_tensors(tmp / "replay.safetensors", {"obs": r.obs, "action": r.action,
                                                       "ret": r.ret})  # fmt: skip
            pending: dict[str, np.ndarray] = {}
            returns: dict[str, np.ndarray] = {}
            run: dict[str, np.ndarray] = {}
            for t in self.tables:
                part = {k: np.concatenate(v) for k, v in t.pending.items() if v}
                if part and len(part["obs"]):
                    pending.update({t.key + k: v for k, v in part.items()})
                returns.update({t.key + k: v for k, v in (("cum", t.mc.cum),
                                ("episode", t.mc.episode), ("final", t.mc.final),
                                ("ended", t.mc.ended))})  # fmt: skip
                games = engine_state(t.eng)
                if games is None:
                    raise CheckpointError(f"{self.game.name}: its engine cannot be checkpointed")
                run.update({t.key + k: v for k, v in {
                    **t.seat_state(), "obs": t.obs, "mask": t.mask,
                    "to_act": np.asarray(t.to_act), **games}.items()})  # fmt: skip
            if pending:
                save_tensors(tmp / "pending.safetensors", pending)
            save_tensors(tmp / "returns.safetensors", returns)
            save_tensors(tmp / "run.safetensors", run)
            (tmp / "league").mkdir()
            for snap in self.league.snapshots():
                save_tensors(tmp / "league" / f"snapshot@{snap.step}.safetensors",
                             dict(snap.params))  # fmt: skip
            return {
                "version": STATE_VERSION, "step": self.step, "iteration": self.iteration,
                "credit": self.credit, "due": self.due, "config": self.args.to_dict(),
                "optimizer": groups, "league": self.league.state(),
                "leagues": {t.key: t.league.state() for t in self.tables[1:]},
                "replay": {"size": r.size, "head": r.head, "gen": gen_state(r.gen)},
                "next_episode": self.mc_next_ids(),
                "rng": {"numpy": self.rng.bit_generator.state, "torch": gen_state(self.gen),
                        "global": capture_rng()},
                "history": finite(self.history),
            }  # fmt: skip

        return write_checkpoint(self.dir, fill)

    def load(self, path: Path) -> None:
        """Restore the run from the checkpoint at ``path`` (CheckpointError naming what is wrong)."""
        ckpt, state = read_checkpoint(path, lambda n: bool(_FILES.fullmatch(n)),
                                      "agent/, league/ and the run's .safetensors")  # fmt: skip
        if state.get("version") != STATE_VERSION or "replay" not in state:
            raise CheckpointError(f"checkpoint {str(ckpt)!r}: not a Deep Monte-Carlo checkpoint")
        try:
            check_must_match(state["config"], self.args, MUST_MATCH)
            weights, _meta = load_agent(ckpt / "agent")
            self.net.load_state_dict(weights)
            restore_optimizer(self.opt, load_tensors(ckpt / "optimizer.safetensors"),
                              state["optimizer"])  # fmt: skip
            if self.avg is not None:
                self.avg.load_state_dict(load_tensors(ckpt / "average.safetensors"))
            replay = load_tensors(ckpt / "replay.safetensors")
            r = self.replay
            r.obs[...], r.action[...], r.ret[...] = replay["obs"], replay["action"], replay["ret"]
            r.size, r.head = int(state["replay"]["size"]), int(state["replay"]["head"])
            set_gen(r.gen, state["replay"]["gen"])
            pend: dict[str, Any] = {}
            if (ckpt / "pending.safetensors").exists():
                pend = {k: v.numpy() for k, v in load_tensors(ckpt / "pending.safetensors").items()}
            ret = {k: v.numpy() for k, v in load_tensors(ckpt / "returns.safetensors").items()}
            run = {k: v.numpy() for k, v in load_tensors(ckpt / "run.safetensors").items()}
            next_ids = state["next_episode"]
            next_ids = next_ids if isinstance(next_ids, list) else [next_ids]
            for t, next_id in zip(self.tables, next_ids, strict=True):
                k = t.key
                t.pending = {name: [] for name in PENDING}
                if k + "obs" in pend:
                    t.pending = {name: [pend[k + name]] for name in PENDING}
                t.mc.cum, t.mc.episode = ret[k + "cum"], ret[k + "episode"]
                t.mc.final, t.mc.ended = ret[k + "final"], ret[k + "ended"]
                t.mc.next_id = int(next_id)
                mine = {name[len(k):]: v for name, v in run.items() if name.startswith(k)
                        and (k or "/" not in name)}  # fmt: skip
                t.restore_seats(mine)
                t.obs, t.mask, t.to_act = mine.pop("obs"), mine.pop("mask"), mine.pop("to_act")
                restore_engine_state(t.eng, mine)
            self.league.restore(state["league"], lambda name: load_tensors_numpy(
                ckpt / "league" / f"{name}.safetensors"), self.args.activation,
                self.net.features)  # fmt: skip
            for t in self.tables[1:]:
                t.league.restore(state["leagues"][t.key], lambda name: load_tensors_numpy(
                    ckpt / "league" / f"{name}.safetensors"), self.args.activation,
                self.net.features)  # fmt: skip
            self.step, self.iteration = int(state["step"]), int(state["iteration"])
            self.credit = float(state["credit"])
            self.due = {k: int(v) for k, v in state["due"].items()}
            rng = state["rng"]
            self.rng.bit_generator.state = rng["numpy"]
            set_gen(self.gen, rng["torch"])
            restore_rng(rng["global"])
            self.history = list(state.get("history", []))
        except (KeyError, TypeError, ValueError, RuntimeError) as err:
            raise CheckpointError(f"checkpoint {str(ckpt)!r}: cannot resume: {err}") from None

    def mc_next_ids(self) -> int | list[int]:
        """The next episode id of each table's returns (one number for one table)."""
        ids = [t.mc.next_id for t in self.tables]
        return ids[0] if len(ids) == 1 else ids

    def save_agent(self, name: str = "agent") -> Path:
        """Write the Q-network as ``RUN/<name>`` (safe format, playable as ``ppo:RUN/agent``)."""
        out = self.dir / name
        if out.exists():
            shutil.rmtree(out)
        return save_agent(out, self.played.state_dict(), self.agent_meta())


def train(args: DMCConfig) -> dict[str, Any]:
    """Train one run with ``args``; the final step and evaluation rows."""
    return DMCTrainer(args).train()


def add_command(sub: Any) -> tuple[str, Any]:
    """The ``cardsuite dmc`` subcommand (``cardsuite.commands`` entry point)."""
    return trainer_command(sub, "dmc", DMCConfig, train, help="Deep Monte-Carlo (DouZero-style) on the batched engines",
                           description=__doc__.split("\n\n")[0])  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cardsuite.train.dmc.trainer [flags]`` (the flags of ``cardsuite dmc``)."""
    return command_main(add_command, argv)


if __name__ == "__main__":
    sys.exit(main())
