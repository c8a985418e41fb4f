"""Engine states of real Scandal play, for the differential tests of the search's fast paths."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.agents.base import table_info
from cardsuite.agents.heuristic import HeuristicAgent
from cardsuite.games import get_game
from scandal_env.state import State, clone


def heuristic_positions(
    num_players: int,
    count: int,
    seed: int,
    *,
    explore: float,
    keep: float = 1.0,
    seed_stride: int = 100,
    **options: Any,
) -> list[State]:
    """``count`` states of the heuristic's play, with a random legal move at rate ``explore``.

    Each state reached is kept with probability ``keep`` (1: every one, and no
    draw for it); deal ``d`` of the run is ``env.reset(seed=seed * seed_stride + d)``.
    """
    rng = np.random.default_rng(seed)
    out: list[State] = []
    deal = 0
    while len(out) < count:
        env = get_game("scandal").make(num_players=num_players, **options)
        env.reset(seed=seed * seed_stride + deal)
        deal += 1
        agents = {}
        for name in env.possible_agents:
            agents[name] = HeuristicAgent("scandal")
            agents[name].reset(table_info(env, "scandal", name), seed=deal)
        for name in env.agent_iter():
            obs, _r, term, trunc, _info = env.last()
            if term or trunc or len(out) == count:
                break
            if keep >= 1.0 or rng.random() < keep:
                out.append(clone(env.unwrapped.game))
            mask = obs["action_mask"]
            if rng.random() < explore:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action = agents[name].act(obs["observation"], mask, {})
            env.step(action)
    return out[:count]
