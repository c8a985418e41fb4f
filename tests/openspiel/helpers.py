"""Drive an OpenSpiel state and one of our envs through the same deal and moves."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np


def cards(row: np.ndarray) -> Iterator[int]:
    """Slot ids of a count vector, lowest first."""
    return iter(int(s) for s in np.repeat(np.arange(row.size), row))


def play_both(
    env: Any,
    state: Any,
    chance: Callable[[Any], int],
    rng: np.random.Generator,
    *,
    check_obs: bool = True,
) -> int:
    """Play random legal moves in ``env`` and ``state``, checking they agree at every step.

    ``chance(state)`` gives the outcome of a chance node from the env's deal.
    Returns the number of player moves. Asserts: the same player to act, the
    same legal actions (OpenSpiel's list = the env's mask), the same
    observation vector for every player, and the same returns at the end.
    """
    totals = dict.fromkeys(env.possible_agents, 0.0)
    moves = 0

    def resolve_chance() -> None:
        while state.is_chance_node():  # before the env moves: it reads the env's deal
            outcome = chance(state)
            assert outcome in dict(state.chance_outcomes())
            state.apply_action(outcome)

    resolve_chance()
    while not state.is_terminal():
        agent = env.agent_selection
        player = env.possible_agents.index(agent)
        assert state.current_player() == player
        mask = env.observe(agent)["action_mask"]
        legal = [int(a) for a in np.flatnonzero(mask)]
        assert state.legal_actions() == legal
        if check_obs:
            for p, a in enumerate(env.possible_agents):
                assert np.array_equal(
                    np.asarray(state.observation_tensor(p), dtype=np.float32),
                    env.observe(a)["observation"],
                )
        action = legal[int(rng.integers(len(legal)))]
        state.apply_action(action)
        resolve_chance()
        env.step(action)
        for a in env.possible_agents:
            totals[a] += env.rewards[a]
        moves += 1
    assert all(env.terminations[a] or env.truncations[a] for a in env.possible_agents)
    assert state.returns() == [totals[a] for a in env.possible_agents]
    return moves
