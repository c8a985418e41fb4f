"""Masked PPO on the batched engines, in one readable loop (cleanrl style, plain torch).

It plays Scum, Scum Party and Scandal (``game``; each game's engine, heuristic
and seat views come from `cardsuite.train.core.games`).

Per iteration:

1. **Rollout.** ``num_games`` games of the game's batched engine
   ([`BatchedScum`][scum_env.batched.BatchedScum],
   [`BatchedParty`][scum_env.party.batched.BatchedParty],
   [`BatchedScandal`][scandal_env.batched.BatchedScandal]) advance ``rollout_steps`` steps together. In every step the rows whose
   player to act is the learner (every seat of a *self-play* game; one seat
   of a *league* game) go through the network in one forward pass; the
   other rows are played by the game's league member (heuristic, random or
   a frozen snapshot, `cardsuite.train.core.league`), one call per member.
   Nothing loops over games in Python.
2. **Advantages.** Each learner decision is a transition of its own seat,
   lasting until that seat acts again; rewards are credited per seat and GAE
   runs along each seat's decisions (`cardsuite.train.ppo.rollout`).
3. **Update.** Clipped-ratio PPO with an entropy bonus and a (clipped) value
   loss over minibatches of the learner decisions, for ``update_epochs``;
   with ``anchor_coef``, a KL penalty towards the actor as PPO began
   (`anchor_kl`).
4. **League, evaluation, logging, checkpoints.** Snapshots join the league
   every ``snapshot_every`` steps and are drawn by PFSP; duplicate deals
   against the baselines are played every ``eval_every`` steps
   (`cardsuite.train.core.evaluate`, deals of ``eval_seed``, never trained
   on); logs go to ``progress.csv``, ``eval.csv`` and TensorBoard.

**Every table size** (``sizes``, e.g. ``5,8,20,50``): one batch of games per
player count (`cardsuite.train.core.tables`), every table padded into the
game's size-generic layout, one network trained on all of them; its agent
(``network.layout: generic``) sits at any table of the game.

The trained agent is written in the safe format (``RUN/agent``:
safetensors + ``agent.json``, ``trainer: cardsuite-ppo``): play it with
``ppo:RUN/agent``. Steps count learner decisions. Run it with ``cardsuite
ppo --config configs/train/ppo_scum4.yaml`` or ``python -m
cardsuite.train.ppo.trainer``; see ``docs/training.md``.
"""

from __future__ import annotations

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
from cardsuite.agents.learned.netspec import Snapshot, obs_scale
from cardsuite.errors import CheckpointError
from cardsuite.train.core.cli import command_main, trainer_command
from cardsuite.train.core.duplicate import TwinDeals
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
from cardsuite.train.ppo import checkpoint as ppo_checkpoint
from cardsuite.train.ppo.config import PPOConfig
from cardsuite.train.ppo.network import ActorCritic
from cardsuite.train.ppo.rollout import SeatRollout, to_torch

DAGGER_SEED = 7_919  # a DAgger round r deals games of seed + DAGGER_SEED * r

PROGRESS_FIELDS = ("step", "iteration", "sps", "rollout_s", "update_s", "lr", "league_games",
                   "league_win", "pg_loss", "v_loss", "entropy", "approx_kl", "clipfrac",
                   "explained_var")  # fmt: skip
ANCHOR_FIELDS = ("anchor_kl",)  # progress.csv's last column with anchor_coef above 0
DUPLICATE_FIELDS = ("dup_margin",)  # and with duplicate_baseline


def anchor_kl(
    log_policy: torch.Tensor, anchor: ActorCritic, obs: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    """Mean ``KL(anchor || policy)`` over a batch; ``log_policy``: the learner's
    `ActorCritic.log_policy` of ``obs`` and ``mask`` (the gradient flows to it).

    Illegal moves have probability exactly 0 under both (their logits are
    `MASKED`), so they add nothing; a forced decision adds 0.
    """
    with torch.no_grad():
        ref = anchor.log_policy(obs, mask)
    return (ref.exp() * (ref - log_policy)).sum(dim=-1).mean()


def ppo_update(
    net: ActorCritic, opt: torch.optim.Optimizer, data: dict[str, torch.Tensor], args: PPOConfig,
    gen: torch.Generator, anchor: ActorCritic | None = None, critic_only: bool = False,
) -> dict[str, float]:  # fmt: skip
    """Clipped PPO epochs over ``data`` (flat learner decisions); the loss statistics.

    With ``anchor`` (and ``args.anchor_coef`` above 0) the loss adds
    ``anchor_coef * KL(anchor || policy)`` (`anchor_kl`). With ``critic_only``
    (``critic_warmup``) the loss is the value loss alone: no gradient reaches
    the actor, which Adam then leaves exactly as it is.
    """
    n = data["obs"].shape[0]
    mb = max(1, n // args.num_minibatches)
    stats: dict[str, list[float]] = {"pg_loss": [], "v_loss": [], "entropy": [], "approx_kl": [],
                                     "clipfrac": []}  # fmt: skip
    if anchor is not None and args.anchor_coef:
        stats["anchor_kl"] = []
    for _epoch in range(args.update_epochs):
        perm = torch.randperm(n, generator=gen, device="cpu").to(data["obs"].device)
        kl = 0.0
        for start in range(0, n, mb):
            idx = perm[start : start + mb]
            logp, entropy, value, log_pi = net.evaluate(data["obs"][idx], data["mask"][idx],
                                                        data["action"][idx])  # fmt: skip
            logratio = logp - data["logp"][idx]
            ratio = logratio.exp()
            with torch.no_grad():
                kl = float(((ratio - 1) - logratio).mean())
                clipfrac = float(((ratio - 1.0).abs() > args.clip_coef).float().mean())
            adv = data["adv"][idx]
            if args.norm_adv and adv.numel() > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg = torch.max(-adv * ratio,
                           -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()  # fmt: skip
            ret, old_v = data["ret"][idx], data["value"][idx]
            if args.clip_vloss:
                clipped = old_v + (value - old_v).clamp(-args.clip_coef, args.clip_coef)
                v_loss = 0.5 * torch.max((value - ret) ** 2, (clipped - ret) ** 2).mean()
            else:
                v_loss = 0.5 * ((value - ret) ** 2).mean()
            ent = entropy.mean()
            loss = pg - args.ent_coef * ent + args.vf_coef * v_loss
            if critic_only:
                loss = args.vf_coef * v_loss
            elif "anchor_kl" in stats:
                assert anchor is not None
                akl = anchor_kl(log_pi, anchor, data["obs"][idx], data["mask"][idx])
                loss = loss + args.anchor_coef * akl
                stats["anchor_kl"].append(float(akl.detach()))
            pg_f, v_f, ent_f = float(pg.detach()), float(v_loss.detach()), float(ent.detach())
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
            opt.step()
            for key, v in (("pg_loss", pg_f), ("v_loss", v_f), ("entropy", ent_f),
                           ("approx_kl", kl), ("clipfrac", clipfrac)):  # fmt: skip
                stats[key].append(v)
        if args.target_kl and kl > args.target_kl:
            break
    out = {k: float(np.mean(v)) for k, v in stats.items() if v}
    var = float(data["ret"].var())
    out["explained_var"] = float("nan") if var == 0 else 1 - float(
        (data["ret"] - data["value"]).var()) / var  # fmt: skip
    return out


@dataclass(eq=False, kw_only=True)
class PPOTable(GameTable):
    """A table's games (`cardsuite.train.core.tables.GameTable`) and its rollout buffer."""

    buf: SeatRollout | None = None
    twin: TwinDeals | None = None  # duplicate_baseline: the same deals played by the heuristic

    def reset_games(self, seed: int) -> None:
        """New deals of ``seed`` in every game (and in the twin games, the same)."""
        self.obs, self.mask, self.to_act = self.eng.reset(seed)
        if self.twin is not None:
            self.twin.reset(seed)

    def hands_dealt(self) -> np.ndarray:
        """Hands dealt so far in each game (the engines' deal counters)."""
        return np.array(self.eng.xp.to_numpy(self.eng.deals), dtype=np.int64)  # a copy


class Trainer(FirstTable, BatchedLoop):
    """State of one run: the tables of games in flight, network, optimiser, leagues.

    With ``sizes`` the run keeps one table of ``num_games`` games per player
    count and trains one network on the game's size-generic layout
    (`cardsuite.agents.learned.layout`); each iteration rolls every table out
    and updates on all their decisions together.
    """

    def __init__(self, args: PPOConfig, opponents: dict[str, Any] | None = None) -> None:
        """Seed everything and build the run (resume if asked).

        ``opponents`` (name -> batch policy) replaces the ``baselines`` and
        ``eval_against`` of ``args`` (``cardsuite exploit`` trains against one
        frozen agent this way).
        """
        self.args = args
        # the one resume rule; a run never overwrites another
        self.plan = plan_run(args.run_dir or None, args.resume or None, args.out_dir())
        self.run_dir = self.plan.run_dir
        seed_all(args.seed, args.threads)
        self.dev = torch.device(args.device)
        backend = "torch" if self.dev.type != "cpu" else args.backend
        self.game = train_game(args.game)
        self.generic = args.game if args.sizes.strip() else ""
        self.rng = np.random.default_rng(args.seed)
        kwargs = {"backend": backend, "device": str(self.dev) if backend == "torch" else None}
        self.tables: list[PPOTable] = []
        for players in args.size_list():
            table = make_table(self.game, players, args, self.rng, generic=self.generic,
                               engine_kwargs=kwargs, opponents=opponents,
                               table_class=PPOTable)  # fmt: skip
            assert isinstance(table, PPOTable)
            self.tables.append(table)
        self.xp = self.eng.xp
        if self.generic:
            spec, num_actions = generic_spec(self.generic), layout_of(self.generic).num_actions
        else:
            spec, num_actions = self.eng.obs_spec, self.eng.num_actions
        self.scale = torch.as_tensor(obs_scale(spec), device=self.dev)
        first = self.tables[0]  # its heuristic's rules give every table size's decks
        features = table_features(args.features, self.game, first.eng, first.players,
                                  obs_scale(spec), generic=self.generic)  # fmt: skip
        self.net = ActorCritic(spec.size, num_actions, args.hidden, args.layers,
                               args.activation, features).to(self.dev)  # fmt: skip
        self.opt = torch.optim.Adam(self.net.parameters(), lr=args.learning_rate, eps=1e-5)
        self.gen = torch.Generator(device=self.dev)
        self.gen.manual_seed(args.seed)
        self.cpu_gen = torch.Generator()
        self.cpu_gen.manual_seed(args.seed + 1)
        for t in self.tables:
            t.league.scale = obs_scale(spec)
            t.buf = SeatRollout(args.rollout_steps, args.num_games, t.eng.num_players, spec.size,
                                num_actions, self.dev)  # fmt: skip
            if args.duplicate_baseline:
                t.twin = TwinDeals(self.game, t.config, args.num_games, kwargs)
        self.step = 0
        self.iteration = 0
        self.due = self.schedule_start()
        self.history: list[dict[str, Any]] = []
        self.games_restored = False
        self.anchor: ActorCritic | None = None  # the frozen actor of anchor_coef (a checkpoint's)
        for t in self.tables:
            t.reset_games(args.seed)
        if self.plan.checkpoint is not None:
            ppo_checkpoint.load_checkpoint(self, self.plan.checkpoint)
        fields = (PROGRESS_FIELDS + (ANCHOR_FIELDS if args.anchor_coef else ())
                  + (DUPLICATE_FIELDS if args.duplicate_baseline else ()))  # fmt: skip
        self.log = open_log(self.plan, self.step, fields, tensorboard=args.tensorboard,
                            quiet=args.quiet, headline=("entropy", "approx_kl", "league_win"))  # fmt: skip
        if self.plan.checkpoint is None and args.init:
            self.load_init(args.init)
        elif self.plan.checkpoint is None and args.bc_steps:
            self.warm_start()
        if self.plan.checkpoint is None and args.anchor_coef:
            self.anchor = self.frozen_copy()
        if self.plan.checkpoint is not None and not self.games_restored:  # fresh deals
            for t in self.tables:
                t.reset_games(args.seed + self.iteration)

    @property
    def buf(self) -> SeatRollout:
        """The first table's rollout buffer."""
        buf = self.tables[0].buf
        assert buf is not None
        return buf

    @property
    def obs(self) -> Any:
        """The first table's current observations."""
        return self.tables[0].obs

    @property
    def to_act(self) -> Any:
        """The first table's players to act."""
        return self.tables[0].to_act

    @property
    def selfplay(self) -> np.ndarray:
        """The first table's self-play games."""
        return self.tables[0].selfplay

    @property
    def learner_seat(self) -> np.ndarray:
        """The first table's learner seat per game (-1: self-play)."""
        return self.tables[0].learner_seat

    @property
    def opp(self) -> np.ndarray:
        """The first table's League member per game (-1: self-play)."""
        return self.tables[0].opp

    def frozen_copy(self) -> ActorCritic:
        """A copy of the network as it is now, without gradients (the anchor of anchor_coef)."""
        copy = ActorCritic(self.net.obs_size, self.net.num_actions, self.args.hidden,
                           self.args.layers, self.args.activation,
                           self.net.features).to(self.dev)  # fmt: skip
        copy.load_state_dict(self.net.state_dict())
        return copy.requires_grad_(False)

    def load_init(self, path: str) -> None:
        """Start from a saved agent; CheckpointError if it does not fit.

        ``path``: an agent directory or ``pretrained:NAME``. An agent saved with
        its actor only (most shipped ones) starts with a fresh critic; fit it with
        ``critic_warmup`` before the actor learns from its advantages.
        """
        from cardsuite.train.ppo.network import load_actor

        if path.startswith("pretrained:"):
            from cardsuite.agents.learned.pretrained import agent_dir

            path = str(agent_dir(path.removeprefix("pretrained:")))
        torch.manual_seed(self.args.seed)  # a fresh critic's initial weights
        net, _meta, fresh = load_actor(path)
        if fresh:
            self.log.note(f"init: {path} has no critic; the critic starts fresh")
        mine = self.net.state_dict()
        theirs = net.state_dict()
        if {k: tuple(v.shape) for k, v in mine.items()} != {
            k: tuple(v.shape) for k, v in theirs.items()
        }:
            raise CheckpointError(
                f"init: agent {path!r} has another network shape than hidden={self.args.hidden}, "
                f"layers={self.args.layers} on this table"
            )
        self.net.load_state_dict(theirs)

    def warm_start(self) -> None:
        """Imitate the heuristic before PPO, then ``bc_dagger`` DAgger rounds
        (`cardsuite.train.ppo.imitation`)."""
        from cardsuite.train.ppo.imitation import dagger, imitate

        args = self.args
        t0 = time.perf_counter()
        data = warm_start_data(self.tables, self.game.name, args)
        stats = imitate(self.net, data, self.scale, epochs=args.bc_epochs, seed=args.seed)
        if args.bc_dagger:
            # Each round deals games of its own seed; the copy plays, the heuristic labels.
            _, more = dagger(
                self.net, data, self.scale, rounds=args.bc_dagger, epochs=args.bc_dagger_epochs,
                seed=args.seed, note=self.log.note,
                collect=lambda r: warm_start_data(self.tables, self.game.name, args,
                                                  seed=args.seed + DAGGER_SEED * r,
                                                  actor_for=self._greedy_actor),
            )  # fmt: skip
            stats |= more
        stats["bc_seconds"] = time.perf_counter() - t0
        self.log.note("warm start: " + ", ".join(f"{k} {v:.4g}" for k, v in stats.items()))
        self.history.append({"step": 0, "against": "warm_start", **stats})

    def _greedy_actor(self, t: PPOTable) -> Any:
        """The network's greedy move at table ``t``, on the engine's own arrays (DAgger)."""

        def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
            rows = torch.arange(len(obs), device=self.dev)
            with torch.no_grad():
                x, m = self._net_input(t, rows, obs, mask)
                return self.net.logits(x, m).argmax(-1).cpu().numpy()

        return act

    # ------------------------------------------------------------------ rollout
    def rollout(self) -> dict[str, float]:
        """Fill every table's buffer with ``rollout_steps`` steps of its games; episode statistics."""
        outcomes: list[np.ndarray] = []
        margins: list[np.ndarray] = []
        for t in self.tables:
            outcomes += self._rollout_table(t, margins)
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

        With ``duplicate_baseline`` the rewards credited are the table's less its
        twin games' (`cardsuite.train.core.duplicate`), and each finished league
        game's learner margin over its twin is appended to ``margins``.
        """
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
            view = self.game.observe_as(t.eng, seat)
            x = (to_torch(view, self.dev) if not t.generic else
                 torch.from_numpy(t.net_obs(self.xp.to_numpy(view))).to(self.dev))  # fmt: skip
            with torch.no_grad():
                t.buf.boot[ts, gs] = self.net.value(x[gs] * self.scale)

    # ------------------------------------------------------------------ loop
    def evaluate(self) -> list[dict[str, Any]]:
        """Duplicate deals (``eval_seed``) of the greedy learner against each eval baseline."""
        snap = Snapshot.of(self.net.actor, self.step, self.args.activation, self.net.features)
        dicts = evaluate_tables(snap, self.scale.cpu().numpy(), self.tables, game=self.game.name,
                                deals=self.args.eval_deals, seed=self.args.eval_seed,
                                step=self.step)  # fmt: skip
        self.log.evals(dicts)
        self.history.extend(dicts)
        return dicts

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
        parts = []
        for t in self.tables:
            assert t.buf is not None
            adv, ret = t.buf.advantages(args.gamma, args.gae_lambda)
            parts.append(t.buf.flat(adv, ret))
        data = parts[0] if len(parts) == 1 else {
            k: torch.cat([part[k] for part in parts]) for k in parts[0]}  # fmt: skip
        t_upd = time.perf_counter()
        stats = ppo_update(self.net, self.opt, data, args, self.cpu_gen, self.anchor,
                           critic_only=start < args.critic_warmup)  # fmt: skip
        return {"rollout_s": t_upd - t_roll, "update_s": time.perf_counter() - t_upd,
                "lr": self.opt.param_groups[0]["lr"], **episodes, **stats}  # fmt: skip

    def add_snapshot(self) -> None:
        """Freeze the actor into the League."""
        self.league.add_snapshot(
            Snapshot.of(self.net.actor, self.step, self.args.activation, self.net.features)
        )
        self.log.note(f"league: {self.league.describe()}")

    def save(self) -> Path:
        """Write ``RUN/checkpoint`` (`cardsuite.train.ppo.checkpoint`)."""
        return ppo_checkpoint.save_checkpoint(self)

    def save_agent(self, name: str = "agent") -> Path:
        """Write the trained network as ``RUN/<name>``."""
        return ppo_checkpoint.save_final_agent(self, name)


def train(args: PPOConfig) -> dict[str, Any]:
    """Train one run with ``args``; the final step and evaluation rows."""
    return Trainer(args).train()


def add_command(sub: Any) -> tuple[str, Any]:
    """The ``cardsuite ppo`` subcommand (``cardsuite.commands`` entry point)."""
    return trainer_command(sub, "ppo", PPOConfig, train, help="masked PPO self-play on the batched engines",
                           description=__doc__.split("\n\n")[0])  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cardsuite.train.ppo.trainer [flags]`` (the flags of ``cardsuite ppo``)."""
    return command_main(add_command, argv)


if __name__ == "__main__":
    sys.exit(main())
