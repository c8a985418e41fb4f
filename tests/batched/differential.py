"""Differential harness: the batched engine against the per-game engine (the truth).

The same deals (the per-game engine's seeded first deal, then the batched
engine's own deals of later series handed to the per-game engine as presets)
and the same uniformly random legal action sequences run through both; every
step must give identical observations, masks, players to act, rewards and
episode ends, for every game of the batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scum_env import engine as E
from scum_env.batched.engine import BatchedScum
from scum_env.config import ScumConfig
from scum_env.encoding import Encoder
from scum_env.rules import Rules, scum_rules


def names_of(rules: Rules, counts: np.ndarray) -> list[list[str]]:
    """Card-name lists per player from a ``[P, K]`` count array."""
    names = rules.cards.names
    return [[names[s] for s in range(len(row)) for _ in range(int(row[s]))] for row in counts]


def expected_rewards(game: E.State, episode: str) -> np.ndarray:
    """Per-game rewards of a finished episode, as float32."""
    n = game.rules.num_players
    if episode == "game":
        return np.array([1.0 if p == game.winner else -1.0 for p in range(n)], dtype=np.float32)
    return np.asarray(E.episode_rewards(game), dtype=np.float32)


def to_numpy(x: Any) -> np.ndarray:
    """An engine output as numpy."""
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


def run_differential(
    config: dict[str, Any], seeds: list[int], steps: int, backend: str = "numpy"
) -> dict[str, int]:
    """Play ``steps`` batched steps of ``len(seeds)`` games against the per-game engine.

    Game ``i`` starts from ``E.new_game(rules, seeds[i])``; odd seeds start
    with the trades (a later series) and preset scores. Returns counts of what
    was exercised (``episodes``, ``series_ends``, ``trades``) so the caller can
    check the run covered them.
    """
    episode = config.get("episode", "series")
    rules = scum_rules(ScumConfig.from_dict({**config, "episode": "series"}))
    enc = Encoder(rules)
    n = rules.num_players
    rng = np.random.default_rng(seeds[0] * 7919 + n)
    games = []
    for s in seeds:
        trade = s % 2 == 1
        scores = [int(v) for v in rng.integers(0, rules.target, n)] if trade else None
        games.append(E.new_game(rules, s, trade=trade, scores=scores))
    batch = BatchedScum(len(seeds), backend=backend, **config)
    dealt = np.stack([g.hands + g.given - g.received for g in games])
    obs, mask, to_act = batch.reset(
        seed=seeds[0],
        hands=dealt,
        roles=np.array([g.order for g in games]),
        trade=np.array([s % 2 == 1 for s in seeds]),
        scores=np.array([g.scores for g in games]),
    )
    out = np.zeros(enc.spec.size, dtype=np.float32)
    counts = {"episodes": 0, "series_ends": 0, "trades": 0}
    for t in range(steps):
        obs_n, mask_n, act_n = to_numpy(obs), to_numpy(mask), to_numpy(to_act)
        actions = np.zeros(len(games), dtype=np.int64)
        for i, g in enumerate(games):
            enc.encode(g, g.to_act, out)
            where = f"step {t}, game {i} (seed {seeds[i]}, {config})"
            assert act_n[i] == g.to_act, f"player to act differs at {where}"
            assert np.array_equal(mask_n[i], E.legal_mask(g)), f"mask differs at {where}"
            assert np.array_equal(obs_n[i], out), (
                f"observation differs at {where}: pieces "
                f"{[p.name for p in enc.spec.pieces if not np.array_equal(obs_n[i][enc.spec.slices[p.name]], out[enc.spec.slices[p.name]])]}"
            )
            legal = np.flatnonzero(mask_n[i])
            actions[i] = legal[rng.integers(len(legal))]
            counts["trades"] += int(g.phase == E.TRADE)
        res = batch.step(actions)
        done, rewards = to_numpy(res.done), to_numpy(res.rewards)
        for i, g in enumerate(games):
            E.apply_unchecked(g, int(actions[i]))
            where = f"step {t}, game {i} (seed {seeds[i]}, {config})"
            if g.phase != E.OVER:
                assert not done[i], f"batched game ended early at {where}"
                assert not rewards[i].any(), f"reward before the end at {where}"
                continue
            counts["series_ends"] += 1
            ends_episode = episode == "series" or g.game_over
            assert bool(done[i]) == ends_episode, f"episode end differs at {where}"
            if ends_episode:
                counts["episodes"] += 1
                assert np.array_equal(rewards[i], expected_rewards(g, episode)), (
                    f"rewards differ at {where}: {rewards[i]} vs {expected_rewards(g, episode)}"
                )
            view = batch.game_view(i)
            hands = names_of(rules, view["dealt"])
            if g.game_over:
                games[i] = E.new_game(rules, 0, roles=view["order"], hands=hands)
            else:
                E.start_series(g, g.finish, hands=hands, trade=True)
            assert view["order"] == games[i].order, f"seating after the series differs at {where}"
        obs, mask, to_act = res.obs, res.mask, res.to_act
    return counts
