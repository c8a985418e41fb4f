"""Engine states of real Scandal play, for the differential tests of the search's fast paths."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardsuite.agents.base import table_info
from cardsuite.agents.baselines.heuristic import HeuristicAgent
from cardsuite.games import get_game
from scandal_env import engine as E
from scandal_env.config import ScandalConfig
from scandal_env.masks import legal_mask
from scandal_env.state import State, clone

#: The batched engine's arrays a compiled rollout must leave as the lockstep loop does
#: (not the per-step outputs).
ROLLOUT_FIELDS = ("hands", "known", "counts", "placed_by", "meld_owner", "table_pts", "build",
                  "build_scandal", "pile_arr", "pile_pos", "pile_len", "stock_arr", "stock_len",
                  "stock_public", "cur", "phase", "duty", "forbidden", "turn", "scores",
                  "hand_end", "game_over")  # fmt: skip


def engine_arrays(eng: Any) -> dict[str, np.ndarray]:
    """Copies of ``eng``'s `ROLLOUT_FIELDS`, by name."""
    return {f: getattr(eng, f).copy() for f in ROLLOUT_FIELDS}


def compiled_module(name: str) -> Any:
    """Import the numba-backed module ``name``, skipping the calling test module when the
    ``fast`` extra (numba) is not installed."""
    module = pytest.importorskip(name)
    if not module.available():  # pragma: no cover - the fast extra is not installed
        pytest.skip("numba is not installed", allow_module_level=True)
    return module


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


def random_positions(
    num_players: int,
    seed: int,
    *,
    moves: int,
    every: int,
    max_turns: int,
    draw_stock: float = 0.0,
    keep_last: bool = False,
) -> list[State]:
    """States of random play over two hands, every ``every``-th of up to ``moves`` moves.

    With ``draw_stock``, the stock is drawn at that rate whenever it may be (so it
    runs out and the pile is turned over, S4); ``keep_last`` adds the final state.
    """
    cfg = ScandalConfig(num_players=num_players, episode="game", max_hands=2, max_turns=max_turns)
    state = E.new_game(cfg, seed=seed)
    rng = np.random.default_rng(seed)
    out: list[State] = []
    for i in range(moves):
        if state.done:
            break
        if i % every == 0:
            out.append(clone(state))
        mask = legal_mask(state)
        stock = state.rules.layout.DRAW_STOCK
        if draw_stock and mask[stock] and rng.random() < draw_stock:
            E.apply(state, stock)
        else:
            E.apply(state, int(rng.choice(np.flatnonzero(mask))))
    if keep_last:
        out.append(clone(state))
    return out
