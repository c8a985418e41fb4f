"""Why does Deep Monte-Carlo fall below its own warm start on Scandal 2p? A controlled probe.

``configs/train/dmc_scandal2.yaml`` starts from a warm start at about 46% of
duplicate deals against the heuristic and ends near 35% after 1.4M
decisions. This script runs the real trainer (``DMCTrainer`` of
``cardsuite.train.dmc.trainer``) briefly with one change at a time and reports, at
every evaluation, the share of duplicate deals won against the heuristic
and what the Q-network does on held-out heuristic states:

* ``agree``: share of held-out states (heuristic games of a seed no run uses)
  where the greedy Q-action is the heuristic's move;
* ``gap``: mean of ``max over other legal a of Q(s, a) - Q(s, heuristic move)``
  (negative: the heuristic's move is still preferred);
* ``untried``: among the held-out states where the greedy action is not the
  heuristic's, the share whose greedy action id was played fewer than
  ``RARE`` times in the replay (a Q-value that no return has corrected);
* ``ret_std``: the standard deviation of the Monte-Carlo returns regressed on.

Variants (``--variant``):

``preset``
    the preset as it was measured (its own hand score / 100 as the reward:
    ``relative_reward`` off).
``margin_on``
    the preset, with the warm start's large-margin term kept on during RL
    (on the warm start's heuristic data, as DQfD does).
``zero_sum``
    every reward (warm start, training and evaluation) is the seat's hand
    score minus the other seats' mean: the quantity a duplicate deal is won
    on. Scandal's hand scores are not zero-sum (S9: every player scores the
    cards it melds), so "maximise my own score" is not "beat the other
    player". It needs its own ``--warm`` file (its Q-values mean another
    thing). The trainer's ``relative_reward`` option does this since it
    exists; before it (commit ``a481cb1``, where the figures of
    ``docs/results.md`` were measured) the probe wraps the engines, and its
    evaluation rows' ``mean_a`` and ``mean_b`` are then zero-sum too.

Run (a few minutes each; ``nice`` on a shared machine)::

    python benchmarks/dmc_scandal_probe.py --variant preset --minutes 3
    python benchmarks/dmc_scandal_probe.py --variant margin_on --minutes 3

Each evaluation prints one JSON line (``--out FILE`` appends them there).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

RARE = 10  # an action id played fewer times than this in the replay counts as untried
HELD_OUT_SEED = 5_000_011  # heuristic games for the diagnostics; no run trains on this seed


class ZeroSumEngine:
    """A batched engine whose rewards are each seat's reward minus the mean of the others'."""

    def __init__(self, engine: Any) -> None:
        """Wrap ``engine`` (every other attribute passes through)."""
        self.inner = engine

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def step(self, actions: Any, active: Any = None) -> Any:
        """The engine's step with zero-sum rewards."""
        res = (
            self.inner.step(actions) if active is None else self.inner.step(actions, active=active)
        )
        r = np.asarray(res.rewards, dtype=np.float64)
        zs = r - (r.sum(axis=1, keepdims=True) - r) / max(r.shape[1] - 1, 1)
        return dataclasses.replace(res, rewards=zs.astype(np.float32))


class ZeroSumGame:
    """A trainer game (``train_game("scandal")``) whose engines pay zero-sum rewards."""

    def __init__(self, game: Any) -> None:
        """Wrap ``game``."""
        self.game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def make_engine(self, num_games: int, config: dict[str, Any], **kwargs: Any) -> Any:
        """The game's engine, wrapped."""
        return ZeroSumEngine(self.game.make_engine(num_games, config, **kwargs))

    def heuristic(self, engine: Any, **params: Any) -> Any:
        """The game's heuristic for the wrapped engine."""
        return self.game.heuristic(getattr(engine, "inner", engine), **params)

    def observe_as(self, engine: Any, player: int) -> Any:
        """The game's observation of ``player`` in the wrapped engine."""
        return self.game.observe_as(getattr(engine, "inner", engine), player)

    def baselines(self, names: Any, engine: Any, seed: int) -> dict[str, Any]:
        """The game's baselines for the wrapped engine."""
        return self.game.baselines(names, getattr(engine, "inner", engine), seed)


def use_zero_sum_rewards() -> None:
    """Every Scandal engine the trainer, its warm start and its evaluation build pays zero-sum.

    The reward of a seat becomes its hand score minus the mean of the other
    seats' (this process only): the quantity the evaluation scores, since a
    deal is won by the higher score and Scandal's scores are not zero-sum (S9).
    """
    import cardsuite.train.core.games as games
    import cardsuite.train.dmc.trainer as dmc

    original = games.train_game

    def train_game(name: str) -> Any:
        game = original(name)
        return ZeroSumGame(game) if game.name == "scandal" else game

    games.train_game = train_game  # imitation and the evaluator import it when called
    dmc.train_game = train_game  # type: ignore[attr-defined]


def held_out(config: dict[str, Any], games: int, steps: int) -> dict[str, np.ndarray]:
    """Heuristic states of ``HELD_OUT_SEED`` (no exploration), with the heuristic's labels."""
    from cardsuite.train.ppo.imitation import heuristic_dataset

    return heuristic_dataset(games, steps, 0.0, HELD_OUT_SEED, config, "scandal")


def diagnostics(
    net: Any, scale: torch.Tensor, data: dict[str, np.ndarray], taken: np.ndarray | None = None
) -> dict[str, float]:
    """``agree``, ``gap`` and ``untried`` (module doc) of the Q-network on held-out states.

    ``taken``: how often each action id was played by the learner in the replay.
    """
    from cardsuite.train.dmc.parts import MASKED

    with torch.no_grad():
        q = net(torch.from_numpy(data["obs"]) * scale)
    mask = torch.from_numpy(data["mask"]).bool()
    label = torch.from_numpy(data["label"])
    real = mask.sum(dim=1) > 1
    q_label = q.gather(1, label[:, None]).squeeze(1)
    others = q.masked_fill(~mask, MASKED).scatter(1, label[:, None], MASKED).max(dim=1).values
    greedy = q.masked_fill(~mask, MASKED).argmax(dim=1)
    out = {
        "agree": float((greedy == label)[real].float().mean()),
        "gap": float((others - q_label)[real].mean()),
        "q_label_mean": float(q_label[real].mean()),
    }
    if taken is not None:
        differ = (greedy != label) & real
        rare = torch.from_numpy(taken < RARE)[greedy]
        out["untried"] = float(rare[differ].float().mean()) if bool(differ.any()) else 0.0
        out["untried_when_agree"] = float(rare[~differ & real].float().mean())
    return out


def load_config(path: str, **overrides: Any) -> Any:
    """The DMC preset at ``path`` with ``overrides`` (None: keep the preset's value)."""
    given = {k: v for k, v in overrides.items() if v is not None}
    try:  # the shared training core
        from cardsuite.train.core.cli import preset
        from cardsuite.train.dmc.config import DMCConfig
    except ImportError:  # before it
        from cardsuite.train.dmc_args import load_args

        return load_args(path, **given)
    return DMCConfig.from_dict({**preset(path), **given})


def main(argv: list[str] | None = None) -> int:
    """Command line (module doc)."""
    from cardsuite.train.dmc.parts import fit_heuristic, margin_loss
    from cardsuite.train.dmc.trainer import DMCTrainer

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", choices=("preset", "margin_on", "zero_sum"), default="preset")
    ap.add_argument("--config", default="configs/train/dmc_scandal2.yaml")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--minutes", type=float, default=3.0, help="training budget (0: none)")
    ap.add_argument("--total-steps", type=int, default=0, help="learner decisions (0: preset's)")
    ap.add_argument("--eval-every", type=int, default=150_000)
    ap.add_argument("--eval-deals", type=int, default=200)
    ap.add_argument("--bc-games", type=int, default=256)
    ap.add_argument("--held-out-games", type=int, default=64)
    ap.add_argument(
        "--warm",
        default="",
        help="warm start weights: loaded if the file exists, "
        "else written after the warm start (every variant starts from the same net)",
    )
    ap.add_argument(
        "--final-deals",
        type=int,
        default=0,
        help="also evaluate the warm start and the final net on this many deals",
    )
    ap.add_argument(
        "--final-seed",
        type=int,
        default=2_000_003,
        help="deal seed of those evaluations (no training uses it)",
    )
    ap.add_argument("--eval-first", type=int, default=1, help="1: also evaluate the warm start")
    ap.add_argument("--out", default="")
    ns = ap.parse_args(argv)

    def emit(**row: Any) -> None:
        line = json.dumps(row, default=float)
        print(line, flush=True)
        if ns.out:
            with Path(ns.out).open("a") as fh:
                fh.write(line + "\n")

    run_dir = Path(tempfile.mkdtemp(prefix="dmc_probe_")) / "run"
    args = load_config(ns.config, seed=ns.seed, run_dir=str(run_dir), budget_minutes=ns.minutes,
                       total_steps=ns.total_steps or None)  # fmt: skip
    args = dataclasses.replace(args, eval_every=ns.eval_every, bc_games=ns.bc_games,
                               eval_deals=ns.eval_deals, eval_against="heuristic",
                               eval_first=bool(ns.eval_first), quiet=True)  # fmt: skip
    if hasattr(args, "relative_reward"):  # the trainer's own option (train/dmc/config.py)
        args = dataclasses.replace(args, relative_reward=ns.variant == "zero_sum")
    elif ns.variant == "zero_sum":  # a481cb1, before the option: the engines pay zero-sum
        use_zero_sum_rewards()
    config = {"num_players": args.num_players, "episode": "hand", **args.options}
    data = held_out(config, ns.held_out_games, 600)
    bc: dict[str, torch.Tensor] = {}

    class Probe(DMCTrainer):
        def warm_start(self) -> None:
            from safetensors.torch import load_file, save_file

            from cardsuite.train.ppo.imitation import heuristic_dataset

            a = self.args
            warm = Path(ns.warm) if ns.warm else None
            if warm is not None and warm.exists() and ns.variant != "margin_on":
                self.net.load_state_dict(load_file(str(warm)))
                emit(variant=ns.variant, seed=ns.seed, event="warm_start_loaded", path=str(warm))
                return
            rel = {"relative": True} if getattr(a, "relative_reward", False) else {}
            d = heuristic_dataset(a.bc_games, a.bc_steps, a.bc_explore, a.seed, self.config,
                                  self.game.name, **rel)  # fmt: skip
            if warm is not None and warm.exists():  # margin_on: the same net, its data kept
                self.net.load_state_dict(load_file(str(warm)))
                stats = {"loaded": 1.0}
            else:
                stats = fit_heuristic(self.net, d, self.scale, epochs=a.bc_epochs, lr=1e-3,
                                      margin=a.bc_margin, margin_coef=a.bc_margin_coef,
                                      batch=a.batch_size, seed=a.seed)  # fmt: skip
                if warm is not None:
                    save_file({k: v.contiguous() for k, v in self.net.state_dict().items()},
                              str(warm))  # fmt: skip
            emit(variant=ns.variant, seed=ns.seed, event="warm_start", **stats,
                 ret_mean=float(d["ret"].mean()), ret_std=float(d["ret"].std()))  # fmt: skip
            bc.update(obs=torch.from_numpy(d["obs"]) * self.scale,
                      mask=torch.from_numpy(d["mask"]).bool(),
                      label=torch.from_numpy(d["label"]))  # fmt: skip

        def update(self) -> dict[str, float]:
            if ns.variant != "margin_on" or not bc:
                return super().update()
            out: dict[str, float] = {}
            while self.credit >= 1.0 and self.replay.size:  # the preset's step, plus the margin
                self.credit -= 1.0
                from cardsuite.train.dmc.parts import q_loss

                obs, action, ret = self.replay.sample(self.args.batch_size)
                idx = torch.randint(bc["obs"].shape[0], (self.args.batch_size,),
                                    generator=self.gen)  # fmt: skip
                q = self.net(bc["obs"][idx])
                loss = q_loss(self.net, obs, action, ret) + self.args.bc_margin_coef * (
                    margin_loss(q, bc["mask"][idx], bc["label"][idx], self.args.bc_margin)
                )
                self.opt.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.args.max_grad_norm)
                self.opt.step()
                out["loss"] = float(loss.detach())
            return {"loss": out.get("loss", float("nan")), "mean_q": float("nan"),
                    "buffer": float(self.replay.size)}  # fmt: skip

        event = "eval"

        def final(self, event: str) -> None:
            """Evaluate on ``--final-deals`` deals of ``--final-seed`` (a seed no run uses)."""
            kept = self.args
            self.args = dataclasses.replace(kept, eval_deals=ns.final_deals,
                                            eval_seed=ns.final_seed)  # fmt: skip
            self.event = event
            try:
                self.evaluate()
            finally:
                self.args, self.event = kept, "eval"

        def train(self) -> dict[str, Any]:
            if ns.final_deals:
                self.final("final_warm_start")
            out = super().train()
            if ns.final_deals:
                self.final("final")
            return out

        def evaluate(self) -> list[dict[str, Any]]:
            rows = super().evaluate()
            ret = self.replay.ret[: self.replay.size]
            taken = np.bincount(self.replay.action[: self.replay.size].numpy(),
                                minlength=self.net.num_actions)  # fmt: skip
            for row in rows:
                emit(variant=ns.variant, seed=ns.seed, event=self.event, step=self.step,
                     eval_seed=self.args.eval_seed, deals=row["deals"],
                     seconds=time.perf_counter() - self.t0, beats=row["beats"],
                     beats_ci=row["beats_ci"], margin=row["margin"], margin_ci=row["margin_ci"],
                     mean_a=row["mean_a"], mean_b=row["mean_b"],
                     ret_std=float(ret.std()) if ret.numel() > 1 else None,
                     **diagnostics(self.net, self.scale, data,
                                   taken if self.replay.size else None))  # fmt: skip
            return rows

    Probe(args).train()
    return 0


if __name__ == "__main__":
    sys.exit(main())
