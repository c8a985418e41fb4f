"""Warm start for batched PPO: the actor imitates the heuristic, the critic learns its values.

Pure PPO from scratch reaches about 38% of duplicate deals against the
heuristic after 1.2M decisions (``docs/training.md``). Starting from a copy
of the heuristic, PPO only has to learn where to deviate from it. The warm
start:

1. plays ``bc_games`` games of the game's batched engine for ``bc_steps`` steps with
   the vectorised heuristic in every seat, replacing its move by a random
   legal move with probability ``bc_explore`` (so the states cover the
   learner's mistakes too), and records every row's observation, mask, the
   heuristic's action (the label, also for explored rows) and the acting
   seat's reward to go until the episode's end (the critic's Monte-Carlo
   target; rows whose episode does not end within ``bc_steps`` are dropped);
2. trains the actor by cross-entropy on the masked logits and the critic by
   regression, for ``bc_epochs`` passes;
3. with ``bc_dagger`` rounds (DAgger, Ross et al. 2011), plays more games
   with the *trained copy* in every seat (the same exploration), labels its
   states with the heuristic's moves, adds them to the data and trains
   ``bc_dagger_epochs`` more passes over all of it. A copy errs more often on
   the states its own moves lead to than on the heuristic's (Scum Party: 4.0%
   of its real choices against 2.8%, ``docs/results.md``), and those are the
   states it meets when it plays.

The network stays a plain MLP: the agent needs no heuristic to play.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from cardsuite.batched.policies import RandomPolicy, call_policy
from cardsuite.errors import ConfigError
from cardsuite.train.ppo.network import ActorCritic

CHUNK = 65_536
"""Rows scored at once after training (bounds the memory of a large warm start)."""

Actor = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""A batch policy of the engine's layout: (observations, masks) -> one action per game."""


def heuristic_dataset(
    games: int, steps: int, explore: float, seed: int, config: dict[str, Any],
    game: str = "scum", *, relative: bool = False, actor: Actor | None = None,
) -> dict[str, np.ndarray]:  # fmt: skip
    """Observations, masks, heuristic labels and per-seat episode returns (numpy).

    ``game``: a game of `cardsuite.train.core.games`; ``config`` its engine options.
    ``relative``: returns of each seat's reward minus the other seats' mean
    (`cardsuite.train.dmc.parts.relative_rewards`). ``actor``: plays the moves
    (every seat; the labels stay the heuristic's), as DAgger's rounds do;
    ``None``: the heuristic plays.
    """
    from cardsuite.train.core.games import train_game

    spec = train_game(game)
    eng = spec.make_engine(games, config)
    heur = spec.heuristic(eng)
    rand = RandomPolicy(seed + 17)
    rows = np.arange(games)
    rng = np.random.default_rng(seed + 29)
    obs, mask, to_act = eng.reset(seed + 1_000_000_007)
    n, p = games, eng.num_players
    xs = np.zeros((steps, n, obs.shape[1]), dtype=np.float32)
    ms = np.zeros((steps, n, mask.shape[1]), dtype=bool)
    ys = np.zeros((steps, n), dtype=np.int64)
    seat = np.zeros((steps, n), dtype=np.int64)
    rew = np.zeros((steps, n, p), dtype=np.float32)  # rewards handed out by step t's move
    ended = np.zeros((steps, n), dtype=bool)  # the episode ended with step t's move
    for t in range(steps):
        label = np.asarray(call_policy(heur, obs, mask, rows, np.asarray(to_act)))
        xs[t], ms[t], ys[t], seat[t] = obs, mask.astype(bool), label, to_act
        explore_rows = rng.random(n) < explore
        move = label if actor is None else np.asarray(actor(obs, mask), dtype=np.int64)
        res = eng.step(np.where(explore_rows, rand(obs, mask), move))
        rew[t], ended[t] = np.asarray(res.rewards), np.asarray(res.done)
        obs, mask, to_act = res.obs, res.mask, res.to_act
    if relative:
        from cardsuite.train.dmc.parts import relative_rewards

        rew = relative_rewards(rew)
    # Reward to go of every seat until its episode's end; unknown (NaN) when
    # the episode did not end within the data.
    ret = np.full((steps, n), np.nan, dtype=np.float32)
    togo = np.zeros((n, p), dtype=np.float32)
    known = np.zeros(n, dtype=bool)
    for t in range(steps - 1, -1, -1):
        togo = rew[t] + np.where(ended[t][:, None], 0.0, togo)
        known = ended[t] | known
        ret[t] = np.where(known, togo[rows, seat[t]], np.nan)
    keep = ~np.isnan(ret).reshape(-1)
    if not keep.any():
        raise ConfigError(
            f"field 'bc_steps': no episode ended within {steps} engine steps of the warm start, "
            "so there is nothing to imitate; raise bc_steps (a Scum Party tournament takes "
            "about 200 steps per hand at 8 players)"
        )
    return {
        "obs": xs.reshape(-1, xs.shape[-1])[keep],
        "mask": ms.reshape(-1, ms.shape[-1])[keep],
        "label": ys.reshape(-1)[keep],
        "ret": ret.reshape(-1)[keep],
    }


def imitate(
    net: ActorCritic, data: dict[str, np.ndarray], scale: torch.Tensor, *, epochs: int,
    batch: int = 1024, lr: float = 1e-3, seed: int = 0,
) -> dict[str, float]:  # fmt: skip
    """Fit the actor to the labels and the critic to the returns; final train accuracy and loss.

    The rows are scaled a minibatch at a time and scored in chunks, so the
    memory beside ``data`` stays that of a chunk (a Party warm start with
    DAgger holds millions of rows).
    """
    dev = scale.device
    obs = torch.from_numpy(data["obs"]).to(dev)  # unscaled: shares the array's memory on CPU
    mask = torch.from_numpy(data["mask"]).to(dev)
    label = torch.from_numpy(data["label"]).to(dev)
    ret = torch.from_numpy(data["ret"]).to(dev)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    gen = torch.Generator()
    gen.manual_seed(seed)
    n = obs.shape[0]
    for _ in range(epochs):
        perm = torch.randperm(n, generator=gen).to(dev)
        for start in range(0, n, batch):
            idx = perm[start : start + batch]
            x = obs[idx] * scale
            logits = net.logits(x, mask[idx])
            ce = torch.nn.functional.cross_entropy(logits, label[idx])
            v = 0.5 * ((net.value(x) - ret[idx]) ** 2).mean()
            loss = ce + 0.5 * v
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    hit_parts, sq = [], 0.0
    with torch.no_grad():
        for start in range(0, n, CHUNK):
            x = obs[start : start + CHUNK] * scale
            hit_parts.append(net.logits(x, mask[start : start + CHUNK]).argmax(-1)
                             == label[start : start + CHUNK])  # fmt: skip
            sq += float(((net.value(x) - ret[start : start + CHUNK]) ** 2).sum())
        hit = torch.cat(hit_parts) if hit_parts else torch.zeros(0, dtype=torch.bool)
        acc = float(hit.float().mean())
        # Forced rows (one legal action) always agree: in Scum Party they are 45% of the rows,
        # so the real choices' agreement is the one that predicts strength (docs/results.md).
        real = mask.bool().sum(dim=-1) > 1
        acc_real = float(hit[real].float().mean()) if bool(real.any()) else 1.0
        v_loss = 0.5 * sq / max(n, 1)
    return {"bc_accuracy": acc, "bc_accuracy_real": acc_real, "bc_value_loss": v_loss,
            "bc_samples": float(n)}  # fmt: skip


def agreement(
    net: ActorCritic, data: dict[str, np.ndarray], scale: torch.Tensor
) -> dict[str, float]:
    """The greedy actor's agreement with the labels: all rows and real choices (2+ legal moves)."""
    parts = []
    with torch.no_grad():
        for start in range(0, len(data["label"]), CHUNK):
            obs = torch.from_numpy(data["obs"][start : start + CHUNK]).to(scale.device) * scale
            mask = torch.from_numpy(data["mask"][start : start + CHUNK]).to(scale.device)
            parts.append(net.logits(obs, mask).argmax(-1).cpu().numpy())
    moves = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    hit = moves == data["label"]
    real = data["mask"].sum(axis=1) > 1
    return {"all": float(hit.mean()) if hit.size else 1.0,
            "real": float(hit[real].mean()) if real.any() else 1.0}  # fmt: skip


def dagger(
    net: ActorCritic, data: dict[str, np.ndarray], scale: torch.Tensor, *, rounds: int,
    epochs: int, seed: int, collect: Callable[[int], dict[str, np.ndarray]],
    note: Callable[[str], None] | None = None,
) -> tuple[dict[str, np.ndarray], dict[str, float]]:  # fmt: skip
    """DAgger's rounds after `imitate`: the aggregated data and the last round's statistics.

    ``collect(r)``: round ``r``'s rows (1, 2, ...), played by the *current*
    ``net`` and labelled by the heuristic. Before the copy trains on them, its
    agreement on them (real choices) is recorded as ``bc_daggerR_own_real``:
    how well it copies the heuristic on the states it reaches itself.
    """
    stats: dict[str, float] = {}
    for r in range(1, rounds + 1):
        more = collect(r)
        own = agreement(net, more, scale)
        if note is not None:
            note(f"warm start, DAgger round {r}: the copy agrees with the heuristic on "
                 f"{own['real']:.2%} of the real choices of its own games")  # fmt: skip
        stats[f"bc_dagger{r}_own_real"] = own["real"]
        data = {k: np.concatenate([data[k], more[k]]) for k in data}
        stats |= imitate(net, data, scale, epochs=epochs, seed=seed + r)
    return data, stats


def greedy_actor(net: ActorCritic, scale: torch.Tensor) -> Actor:
    """The network's greedy move on observations of its own layout (numpy in, numpy out)."""

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            x = torch.from_numpy(np.asarray(obs, dtype=np.float32)).to(scale.device) * scale
            m = torch.from_numpy(np.asarray(mask, dtype=bool)).to(scale.device)
            return net.logits(x, m).argmax(-1).cpu().numpy()

    return act
