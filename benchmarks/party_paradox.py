"""Why does a near-copy of the Scum Party heuristic lose to it? (issue: the imitation paradox)

The imitation warm start of ``configs/train/ppo_party8.yaml`` reproduces about
98% of the heuristic's moves on its own training data, yet wins only about 35%
of duplicate deals against it. This script measures, on the batched engine
and on deals of evaluation seeds that no training uses, everything needed to
explain that:

``null``
    The heuristic against itself, and the heuristic wrapped as a learned
    agent (it reads only the scaled observation vector and the mask that a
    learned agent gets, through the greedy learner of the trainer's duplicate
    evaluator and through ``PPOAgent`` in the arena's duplicate tournament).
    Both must give exactly 50% (every deal a tie). Also the null of the
    one-seat layout (one agent against seven heuristics, every deal in all 8
    seat rotations).
``noise``
    The heuristic with a share ``eps`` of its *real* choices (two or more
    legal actions) replaced by a random other legal action: how fast does a
    near-copy lose? The calibration curve for any agreement figure.
``imitation``
    Trains the warm start exactly as the trainer does
    (``heuristic_dataset`` + ``imitate``, same sizes), reports its agreement
    on its training data (all rows and real choices only) and on the states
    it reaches itself, its score, and the counterfactuals by decision kind:
    *fix C* (the agent, with the heuristic's move wherever the decision is of
    kind C) and *only C* (the heuristic, with the agent's move only on kind C).
``agent``
    The same disagreement and counterfactual table for a saved agent
    (``pretrained:party8``, ``ppo:RUN/agent``). ``--runs one_seat`` adds
    the agent in the trainers' league layout instead of the duplicate match's
    four seats against four: one seat against seven heuristics, every deal
    in all 8 seat rotations (``--deals`` deals).
``hands``
    How long a hand lasts at each party size (``--sizes``), the heuristic in
    every seat: engine steps per hand and one seat's decisions per hand.
    In a PPO rollout of fewer steps than a hand most decisions do not see
    their hand's points, so their returns are mostly the critic's guess
    (``configs/train/ppo_party20.yaml``, ``ppo_party50.yaml``).

Decision kinds partition the real choices: ``last_cards`` (4 cards or fewer
in hand), else ``lead`` or ``follow`` (the table's phase). Forced decisions
(one legal action) cannot differ and are counted apart.

Run (CPU, a few minutes; use ``nice`` on a shared machine)::

    python benchmarks/party_paradox.py null --deals 400
    python benchmarks/party_paradox.py noise --deals 400
    python benchmarks/party_paradox.py imitation --train-seed 0 --deals 400
    python benchmarks/party_paradox.py agent --agent pretrained:party8 --deals 400
    python benchmarks/party_paradox.py hands --sizes 8 20 50 --deals 64 --steps 4000

Every line printed is one JSON object (``--out FILE`` appends them there too).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

EVAL_SEEDS = (1_000_003, 2_000_003)  # the trainer's eval_seed and one more; no training uses them
KINDS = ("lead", "follow", "last_cards")
LAST_CARDS = 4


# --------------------------------------------------------------------- helpers
def evaluation() -> Any:
    """The trainers' duplicate evaluator module (``duplicate_match``, ``_play``)."""
    try:  # the shared training core
        import cardsuite.train.core.evaluate as ev
    except ImportError:  # before it
        import cardsuite.train.duplicate as ev
    return ev


def scaling() -> tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]]:
    """``obs_scale`` and ``masked_logits`` of the trainers' network code."""
    try:
        from cardsuite.agents.learned.netspec import masked_logits, obs_scale
    except ImportError:
        from cardsuite.train.opponents import masked_logits, obs_scale
    return obs_scale, masked_logits


def greedy_policy(logits: Callable[[np.ndarray], np.ndarray], scale: np.ndarray) -> Any:
    """The evaluator's own greedy learner (``GreedyPolicy``, or ``GreedyActor`` before it).

    ``logits`` maps *scaled* observations ``[B, D]`` to logits ``[B, A]``, as a
    trained actor does; the evaluator scales, masks and takes the argmax.
    """
    ev = evaluation()
    if hasattr(ev, "GreedyPolicy"):

        class Net:
            def logits(self, scaled: np.ndarray) -> np.ndarray:
                return logits(scaled)

        return ev.GreedyPolicy(Net(), scale)
    import torch

    class Module(torch.nn.Module):
        def forward(self, scaled: torch.Tensor) -> torch.Tensor:
            return torch.from_numpy(np.asarray(logits(scaled.numpy()), dtype=np.float32))

    return ev.GreedyActor(Module(), torch.from_numpy(scale))


def party(players: int = 8, **options: Any) -> tuple[Any, dict[str, Any], Any, Any]:
    """The Party train game, its engine config, a 1-game engine and the batched heuristic.

    ``options``: rule options (the trainer's presets use none: 5 hands per tournament).
    """
    from cardsuite.train.core.games import train_game

    spec = train_game("scum_party")
    cfg = spec.config(players, options)
    eng = spec.make_engine(1, cfg)
    return spec, cfg, eng, spec.heuristic(eng)


def kinds_of(spec: Any, obs: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
    """Boolean rows per decision kind (module doc) plus ``real`` and ``forced``."""
    real = mask.astype(bool).sum(axis=1) > 1
    phase = obs[:, spec.slices["phase"]].argmax(axis=1)
    few = obs[:, spec.slices["hand"]].sum(axis=1) <= LAST_CARDS
    return {
        "forced": ~real,
        "real": real,
        "last_cards": real & few,
        "lead": real & ~few & (phase == 0),
        "follow": real & ~few & (phase == 1),
    }


class Mixed:
    """A batch policy playing ``base`` except on decision kinds ``swap``, where ``other`` plays.

    Counts, per kind, the decisions it saw and those where ``agent`` and
    ``heuristic`` (always both computed) differ; and, of the decisions where
    it may pass or play (action 0 is the pass), how often each would pass.
    """

    def __init__(
        self, spec: Any, agent: Callable[..., Any], heuristic: Callable[..., Any], *,
        base: str = "agent", swap: tuple[str, ...] = (),
    ) -> None:  # fmt: skip
        """``base``: ``agent`` or ``heuristic``; the other one plays the ``swap`` kinds."""
        self.spec, self.agent, self.heuristic = spec, agent, heuristic
        self.base, self.swap = base, swap
        self.seen: dict[str, int] = {}
        self.differ: dict[str, int] = {}
        self.could_play = 0
        self.passed = {"agent": 0, "heuristic": 0}

    def __call__(self, obs: Any, mask: Any) -> np.ndarray:
        """One action per row."""
        obs, mask = np.asarray(obs), np.asarray(mask)
        a_agent = np.asarray(self.agent(obs, mask))
        a_heur = np.asarray(self.heuristic(obs, mask))
        kinds = kinds_of(self.spec, obs, mask)
        diff = a_agent != a_heur
        choice = mask[:, 0].astype(bool) & (mask[:, 1:].sum(axis=1) > 0)
        self.could_play += int(choice.sum())
        self.passed["agent"] += int((choice & (a_agent == 0)).sum())
        self.passed["heuristic"] += int((choice & (a_heur == 0)).sum())
        for k, rows in kinds.items():
            self.seen[k] = self.seen.get(k, 0) + int(rows.sum())
            self.differ[k] = self.differ.get(k, 0) + int((rows & diff).sum())
        swap = np.zeros(len(a_agent), dtype=bool)
        for k in self.swap:
            swap |= kinds[k]
        base, other = (a_agent, a_heur) if self.base == "agent" else (a_heur, a_agent)
        return np.where(swap, other, base)

    def disagreement(self) -> dict[str, float]:
        """Share of decisions per kind where the agent's move is not the heuristic's."""
        return {k: self.differ[k] / max(self.seen[k], 1) for k in self.seen}

    def passes(self) -> dict[str, float]:
        """Of the decisions where a pass and a play were both legal: how many, and the
        share where the agent, and the heuristic, would pass."""
        n = max(self.could_play, 1)
        return {"decisions": self.could_play, "agent": self.passed["agent"] / n,
                "heuristic": self.passed["heuristic"] / n}  # fmt: skip


class Noisy:
    """The heuristic, with a share ``eps`` of its real choices replaced by another legal move."""

    def __init__(self, heuristic: Callable[..., Any], eps: float, seed: int) -> None:
        """Deviate with probability ``eps`` per real choice (seeded)."""
        self.heuristic, self.eps = heuristic, eps
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: Any, mask: Any) -> np.ndarray:
        """One action per row."""
        actions = np.asarray(self.heuristic(obs, mask)).copy()
        legal = np.asarray(mask).astype(bool)
        flip = (legal.sum(axis=1) > 1) & (self.rng.random(len(actions)) < self.eps)
        for i in np.flatnonzero(flip):
            others = np.flatnonzero(legal[i])
            actions[i] = self.rng.choice(others[others != actions[i]])
        return actions


class HeuristicAsLearned:
    """The heuristic as the trainer's greedy learner: a "network" over the *scaled* observation.

    Its logits undo the scaling (it sees exactly what a learned actor sees)
    and put a large value on the heuristic's choice; the evaluator's greedy
    policy masks them and takes the argmax as it does for a trained actor.
    The mask, which a network never sees, is only used to ask the heuristic.
    """

    def __init__(self, heuristic: Callable[..., Any], scale: np.ndarray) -> None:
        """Wrap ``heuristic`` for observations scaled by ``scale``."""
        self.heuristic, self.scale = heuristic, np.asarray(scale, dtype=np.float32)
        self.mask: np.ndarray | None = None
        self.policy = greedy_policy(self.logits, self.scale)

    def logits(self, scaled: np.ndarray) -> np.ndarray:
        """A logit of 100 on the heuristic's action, 0 elsewhere."""
        assert self.mask is not None
        choice = np.asarray(self.heuristic(scaled / self.scale, self.mask))
        out = np.zeros(self.mask.shape, dtype=np.float32)
        out[np.arange(len(choice)), choice] = 100.0
        return out

    def __call__(self, obs: Any, mask: Any) -> np.ndarray:
        """One action per row, through the evaluator's greedy policy."""
        self.mask = np.asarray(mask)
        return np.asarray(self.policy(obs, mask))


def heuristic_as_ppo_agent() -> Any:
    """The heuristic inside ``PPOAgent`` (the arena's learned-agent wrapper), observation only.

    It keeps ``pretrained:party8``'s metadata, so ``reset`` makes the same
    table checks and the same observation scaling; ``logits`` gets the scaled
    observation as the network would and returns a large logit on the
    heuristic's choice for the unscaled one.
    """
    from cardsuite.agents.baselines.heuristic import make_policy
    from cardsuite.agents.learned.policy import PPOAgent
    from cardsuite.agents.learned.pretrained import agent_dir

    base = PPOAgent.load(agent_dir("party8"))

    class HeuristicPPO(PPOAgent):
        def reset(self, table: Any, seed: int | None = None) -> None:
            super().reset(table, seed)
            self._policy = make_policy(table)

        def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Any) -> int:
            self._mask = action_mask
            return super().act(observation, action_mask, info)

        def logits(self, scaled_obs: np.ndarray) -> np.ndarray:
            assert self._scale is not None
            out = np.zeros(len(self._mask), dtype=np.float32)
            out[self._policy.act(scaled_obs / self._scale, self._mask)] = 100.0
            return out

    agent = HeuristicPPO(base._arrays, base.meta, name="heuristic-as-ppo")
    return agent


def one_seat_match(
    policy: Callable[..., Any], heuristic: Callable[..., Any], *, deals: int, seed: int,
    cfg: dict[str, Any],
) -> dict[str, float]:  # fmt: skip
    """One agent seat against ``n - 1`` heuristic seats, every deal in all ``n`` seat rotations.

    The agent beats the field on a deal when its mean episode reward over the
    ``n`` rotations beats the heuristic seats' mean (ties: half).
    """
    from cardsuite.train.core.games import train_game

    _play = evaluation()._play

    spec = train_game("scum_party")
    n = spec.make_engine(1, cfg, autoreset=False).num_players
    mine = np.zeros(deals)
    field = np.zeros(deals)
    for r in range(n):
        eng = spec.make_engine(deals, cfg, autoreset=False)
        agent = np.ones((deals, n), dtype=np.int64)
        agent[:, r] = 0
        total = _play(eng, seed, agent, (policy, heuristic), r * deals)
        mine += total[:, r] / n
        field += (total.sum(axis=1) - total[:, r]) / (n * (n - 1))
    diff = np.round(mine - field, 9)  # the field's mean is a float division: exact ties stay ties
    return summary((diff > 0) + 0.5 * (diff == 0), diff)


def summary(won: np.ndarray, diff: np.ndarray) -> dict[str, float]:
    """Share of deals won (ties half) and mean margin, each with a 95% half-width.

    The share's interval is `share_interval`'s (Wilson, or Student t with ties)
    and ``beats_ci`` its wider side; the margin's is Student t (`mean_ci`).
    """
    from cardsuite.agents.arena.stats import mean_ci, share_interval

    n = len(won)
    beats, low, high = share_interval(won)
    margin, margin_half = mean_ci(diff)
    return {
        "deals": n,
        "beats": beats,
        "beats_ci": max(beats - low, high - beats),
        "ties": float((diff == 0).mean()),
        "margin": margin,
        "margin_ci": 0.0 if margin_half is None else margin_half,
    }


def duel(policy: Callable[..., Any], heuristic: Callable[..., Any], *, deals: int, seed: int,
         cfg: dict[str, Any]) -> dict[str, float]:  # fmt: skip
    """The trainer's duplicate evaluation (``duplicate_match``, ``A B A B`` seats, 2 rotations)."""
    r = evaluation().duplicate_match(
        policy, heuristic, deals=deals, seed=seed, game="scum_party", **cfg
    )
    out = r.to_dict()
    out["deals"] = int(out["deals"])
    return out


def count_features(heuristic: Any, spec: Any, players: int) -> Any:
    """Card-counting inputs of raw observations (``--features counts``).

    The diagnosis found the copy's costly errors in the last cards, where the
    heuristic counts exactly which higher cards are still out. These inputs
    give a network that count (`cardsuite.agents.learned.features.CountInputs`,
    what ``cardsuite ppo --features counts`` trains with). This script adds
    them to the raw observation, so they are built with unit scales.
    """
    from cardsuite.agents.learned.features import count_inputs

    return count_inputs(heuristic, spec, players, np.ones(spec.size, dtype=np.float32))


# --------------------------------------------------------------------- parts
def part_null(args: argparse.Namespace, emit: Callable[..., None]) -> None:
    """Heuristic against itself in both evaluation paths; the one-seat layout."""
    from cardsuite.agents.arena.tournament import run_tournament

    obs_scale, _ = scaling()
    _spec, cfg, eng, heur = party(args.players)
    wrapped = HeuristicAsLearned(heur, obs_scale(eng.obs_spec))
    for seed in args.eval_seeds:
        emit(part="null", path="trainer", agent="heuristic", seed=seed,
             **duel(heur, heur, deals=args.deals, seed=seed, cfg=cfg))  # fmt: skip
        emit(part="null", path="trainer", agent="heuristic-as-actor", seed=seed,
             **duel(wrapped, heur, deals=args.deals, seed=seed, cfg=cfg))  # fmt: skip
        if args.one_seat_deals:
            emit(part="null", path="trainer-one-seat", agent="heuristic-as-actor", seed=seed,
                 **one_seat_match(wrapped, heur, deals=args.one_seat_deals, seed=seed,
                                  cfg=cfg))  # fmt: skip
    if args.players != 8 or not args.arena_deals:  # the wrapper borrows party8's metadata
        return
    res = run_tournament("scum_party", [heuristic_as_ppo_agent(), "heuristic"],
                         games=args.arena_deals, players=args.players, duplicate=True,
                         seed=0)  # fmt: skip
    emit(part="null", path="arena", agent="heuristic-as-ppo", seed=0, deals=args.arena_deals,
         h2h=res.head_to_head[0][1], table=res.format_table())  # fmt: skip


def part_noise(args: argparse.Namespace, emit: Callable[..., None]) -> None:
    """The calibration curve: share of deals won against the share of random real choices."""
    _spec, cfg, _eng, heur = party(args.players)
    for eps in args.eps:
        for seed in args.eval_seeds:
            emit(part="noise", eps=eps, seed=seed,
                 **duel(Noisy(heur, eps, seed), heur, deals=args.deals, seed=seed, cfg=cfg))  # fmt: skip


def counterfactuals(
    name: str, agent: Callable[..., Any], args: argparse.Namespace, emit: Callable[..., None],
    **extra: Any,
) -> None:  # fmt: skip
    """Score, disagreement and the fix-C / only-C counterfactuals of ``agent``."""
    _spec, cfg, eng, heur = party(args.players)
    runs: list[tuple[str, str, tuple[str, ...]]] = [("as is", "agent", ())]
    runs += [(f"fix {k}", "agent", (k,)) for k in KINDS]
    runs += [(f"only {k}", "heuristic", (k,)) for k in KINDS]
    for label, base, swap in runs:
        if args.runs and label.replace(" ", "_") not in args.runs:
            continue
        for seed in args.eval_seeds:
            mix = Mixed(eng.obs_spec, agent, heur, base=base, swap=swap)
            res = duel(mix, heur, deals=args.deals, seed=seed, cfg=cfg)
            emit(part=name, run=label, seed=seed, **extra, **res,
                 disagreement=mix.disagreement(), decisions=mix.seen, passes=mix.passes())  # fmt: skip
    if args.runs and "one_seat" in args.runs:  # the trainers' league layout (ONE_SEAT)
        for seed in args.eval_seeds:
            res = one_seat_match(agent, heur, deals=args.deals, seed=seed, cfg=cfg)
            emit(part=name, run="one seat", seed=seed, **extra, **res)


def part_imitation(args: argparse.Namespace, emit: Callable[..., None]) -> None:
    """Train the trainer's warm start, then measure it (module doc)."""
    import torch
    from safetensors.torch import load_file, save_file

    from cardsuite.train.ppo.imitation import dagger, greedy_actor, heuristic_dataset, imitate
    from cardsuite.train.ppo.network import ActorCritic
    from cardsuite.train.ppo.trainer import DAGGER_SEED

    obs_scale, masked_logits = scaling()
    torch.set_num_threads(1)
    _spec, cfg, eng, heur = party(args.players)
    feats = count_features(heur, eng.obs_spec, args.players) if args.features else None

    def net_obs(obs: np.ndarray) -> np.ndarray:
        """The network's input: the observation, plus the count features if asked."""
        return obs if feats is None else np.concatenate([obs, feats(obs)], axis=1)

    def dataset(seed: int, actor: Any = None) -> dict[str, np.ndarray]:
        d = heuristic_dataset(args.bc_games, args.bc_steps, args.bc_explore, seed, cfg,
                              "scum_party", actor=actor)  # fmt: skip
        d["obs"] = net_obs(d["obs"])
        return d

    t0 = time.perf_counter()
    data = dataset(args.train_seed)
    scale_np = obs_scale(eng.obs_spec)
    if feats is not None:
        scale_np = np.concatenate([scale_np, np.ones(feats.size, dtype=scale_np.dtype)])
    scale = torch.from_numpy(scale_np)
    torch.manual_seed(args.train_seed)
    net = ActorCritic(data["obs"].shape[1], data["mask"].shape[1], hidden=args.hidden,
                      layers=args.layers)  # fmt: skip
    if args.net and Path(args.net).exists():  # the same warm start, measured again
        net.load_state_dict(load_file(args.net))
        stats = {"bc_accuracy": float("nan")}
    else:
        stats = imitate(net, data, scale, epochs=args.bc_epochs, seed=args.train_seed)
        if args.bc_dagger:  # the trainer's DAgger rounds (PPOConfig.bc_dagger)
            data, more = dagger(
                net, data, scale, rounds=args.bc_dagger, epochs=args.bc_dagger_epochs,
                seed=args.train_seed,
                collect=lambda r: dataset(
                    args.train_seed + DAGGER_SEED * r,
                    actor=lambda o, m: greedy_actor(net, scale)(net_obs(o), m)),
            )  # fmt: skip
            stats |= more
        if args.net:
            save_file({k: v.contiguous() for k, v in net.state_dict().items()}, args.net)
    with torch.no_grad():
        pred = net.logits(torch.from_numpy(data["obs"]) * scale, torch.from_numpy(data["mask"]))
    ok = pred.argmax(-1).numpy() == data["label"]
    real = data["mask"].sum(axis=1) > 1
    emit(part="imitation-train", train_seed=args.train_seed, bc_games=args.bc_games,
         bc_steps=args.bc_steps, bc_epochs=args.bc_epochs, samples=len(ok),
         accuracy_all=float(ok.mean()), accuracy_real=float(ok[real].mean()),
         forced_share=float((~real).mean()), seconds=time.perf_counter() - t0,
         bc_dagger=args.bc_dagger, features=args.features,
         **{k: v for k, v in stats.items() if k.startswith("bc_")})  # fmt: skip

    def actor_logits(scaled: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return net.actor(torch.from_numpy(np.asarray(scaled, dtype=np.float32))).numpy()

    if feats is None:  # the evaluator's own greedy learner, as the trainer evaluates
        policy = greedy_policy(actor_logits, scale.numpy())
    else:

        def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
            x = net_obs(np.asarray(obs, dtype=np.float32)) * scale_np
            return np.argmax(masked_logits(actor_logits(x), np.asarray(mask)), axis=1)

    counterfactuals("imitation", policy, args, emit, train_seed=args.train_seed,
                    features=args.features)  # fmt: skip


def part_agent(args: argparse.Namespace, emit: Callable[..., None]) -> None:
    """The counterfactual table of a saved agent (greedy, numpy forward pass).

    The agent is seated at the table first (``reset``), which checks the
    table against its network; a size-generic agent (``pretrained:party20``)
    also learns there which table it pads from, so it plays any ``--players``.
    """
    from cardsuite.agents.base import TableInfo
    from cardsuite.agents.registry import make_agent
    from cardsuite.games import get_game

    obs_scale, masked_logits = scaling()
    _spec, cfg, eng, _heur = party(args.players)
    agent = make_agent(args.agent, "scum_party")
    record = get_game("scum_party")
    table = TableInfo("scum_party", record.config_class().from_dict(cfg), "player_0",
                      eng.num_actions, eng.obs_spec, record.make(**cfg).describe_action)  # fmt: skip
    agent.reset(table)
    scale = obs_scale(eng.obs_spec)

    def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.argmax(masked_logits(agent.logits(obs * scale), mask), axis=1)

    counterfactuals("agent", policy, args, emit, spec=args.agent)


def hand_length(players: int, *, games: int, steps: int, seed: int) -> dict[str, float]:
    """``games`` parties of ``players`` played by the heuristic for ``steps`` engine steps
    (a finished tournament deals the next): the hands that ended and their mean length."""
    spec, cfg, _eng, _ = party(players)
    eng = spec.make_engine(games, cfg)
    heuristic = spec.heuristic(eng)
    obs, mask, _to_act = eng.reset(seed)
    dealt = np.array(eng.deals, dtype=np.int64)  # the engine's deal counter per game
    for _ in range(steps):
        res = eng.step(np.asarray(heuristic(obs, mask), dtype=np.int64))
        obs, mask = res.obs, res.mask
    hands = int((np.array(eng.deals, dtype=np.int64) - dealt).sum())  # each deal ends a hand
    per_hand = games * steps / max(hands, 1)
    return {"players": players, "games": games, "steps": steps, "hands": hands,
            "steps_per_hand": per_hand, "seat_decisions_per_hand": per_hand / players}  # fmt: skip


def part_hands(args: argparse.Namespace, emit: Callable[..., None]) -> None:
    """Steps per hand at each size (module doc)."""
    for players in args.sizes:
        emit(part="hands", **hand_length(players, games=args.deals, steps=args.steps,
                                         seed=args.eval_seeds[0]))  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Command line (module doc)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("part", choices=("null", "noise", "imitation", "agent", "hands"))
    ap.add_argument("--players", type=int, default=8)
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--arena-deals", type=int, default=50, help="null: arena deals (8 players)")
    ap.add_argument(
        "--one-seat-deals",
        type=int,
        default=3,
        help="null: deals of the one-seat layout (n rotations each)",
    )
    ap.add_argument("--eval-seeds", type=int, nargs="+", default=list(EVAL_SEEDS))
    ap.add_argument("--eps", type=float, nargs="+", default=[0.005, 0.01, 0.02, 0.05])
    ap.add_argument("--train-seed", type=int, default=0)
    ap.add_argument("--bc-games", type=int, default=256)
    ap.add_argument("--bc-steps", type=int, default=1500)
    ap.add_argument("--bc-epochs", type=int, default=20)
    ap.add_argument("--bc-explore", type=float, default=0.15)
    ap.add_argument("--bc-dagger", type=int, default=0, help="imitation: DAgger rounds")
    ap.add_argument("--bc-dagger-epochs", type=int, default=4)
    ap.add_argument(
        "--features",
        choices=("", "counts"),
        default="",
        help="imitation: extra inputs (counts: count_features)",
    )
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--agent", default="pretrained:party8")
    ap.add_argument(
        "--runs",
        nargs="*",
        default=[],
        help="only these counterfactuals "
        "(as_is, fix_lead, fix_follow, fix_last_cards, only_lead, ...); default all; "
        "one_seat (only when named): one seat against seven heuristics",
    )
    ap.add_argument(
        "--net",
        default="",
        help="imitation weights (safetensors): loaded if the "
        "file exists, else written after training",
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=[8, 20, 50], help="hands: sizes")
    ap.add_argument("--steps", type=int, default=4000, help="hands: engine steps per size")
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)

    def emit(**row: Any) -> None:
        line = json.dumps(row, default=float)
        print(line, flush=True)
        if args.out:
            with Path(args.out).open("a") as fh:
                fh.write(line + "\n")

    {"null": part_null, "noise": part_noise, "imitation": part_imitation,
     "agent": part_agent, "hands": part_hands}[args.part](args, emit)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
