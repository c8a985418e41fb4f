"""The data of every warm start: the heuristic's games, at every table of a run.

`heuristic_dataset` plays the vectorised heuristic in every seat (a random legal move
with probability ``explore``) and records each row's observation, mask, the heuristic's
move and the acting seat's reward to go; `warm_start_data` gathers it at every table in
the network's layout. Batched PPO imitates it, Deep Monte-Carlo fits its Q-values to it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from cardsuite.batched.policies import RandomPolicy, call_policy
from cardsuite.errors import ConfigError
from cardsuite.train.core.games import train_game
from cardsuite.train.core.tables import GameTable

Actor = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""A batch policy of the engine's layout: (observations, masks) -> one action per game."""


def heuristic_dataset(
    games: int, steps: int, explore: float, seed: int, config: dict[str, Any],
    game: str = "scum", *, relative: bool = False, actor: Actor | None = None,
) -> dict[str, np.ndarray]:  # fmt: skip
    """Observations, masks, heuristic labels and per-seat returns of ``games`` games of
    ``game`` (engine options ``config``) for ``steps`` steps; ``relative``: returns of
    `relative_rewards`; ``actor`` plays instead of the heuristic (DAgger's rounds)."""
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


def relative_rewards(rewards: np.ndarray) -> np.ndarray:
    """``[N, P]`` rewards minus, per seat, the mean of the other seats' (zero-sum per game),
    what a duplicate deal is won on. Scandal's hand scores are not (S9), and a learner of
    its own score feeds the other player (``docs/archive.md``)."""
    r = np.asarray(rewards, dtype=np.float64)
    p = r.shape[-1]
    return (r - (r.sum(axis=-1, keepdims=True) - r) / max(p - 1, 1)).astype(np.float32)


def warm_start_data(
    tables: Sequence[GameTable], game: str, args: Any, *, relative: bool = False,
    seed: int | None = None, actor_for: Callable[[Any], Actor] | None = None,
) -> dict[str, np.ndarray]:  # fmt: skip
    """The heuristic's games at every table (`heuristic_dataset`) in the network's layout,
    concatenated: ``bc_games`` games of ``bc_steps`` steps at the smallest table, fewer
    games and more steps at larger ones (by the ratio of player counts). ``seed``: the
    games' seed (default ``args.seed``); ``actor_for``: each table's mover (DAgger)."""
    parts = []
    low = min(t.players for t in tables)
    for t in tables:
        games = max(1, round(args.bc_games * low / t.players))
        steps = round(args.bc_steps * t.players / low)
        part = heuristic_dataset(games, steps, args.bc_explore,
                                 args.seed if seed is None else seed, t.config, game,
                                 relative=relative,
                                 actor=None if actor_for is None else actor_for(t))  # fmt: skip
        part["obs"], part["mask"] = t.net_obs(part["obs"]), t.net_mask(part["mask"])
        parts.append(part)
    return {k: np.concatenate([part[k] for part in parts]) for k in parts[0]}
