"""How a game's batched engine rolls out and scores search leaves: a `SearchKind`'s ``leaves``.

What differs between games is named here once per game, and reached through
the game's ``search`` part, so the batched searches never pick a game by its
name (`LeafEngine`: the bridge that loads per-game states into engine rows,
the rollout's engine options, the score of the rows, the defaults of
``ismcts-batched``, the compiled kernels and a critic's scale). A game without
``leaves`` (Scum Party: the batched Scum engine does not play Party rules) is
rolled out by the reference.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


def host(x: Any) -> np.ndarray:
    """A numpy view of an engine array (a torch tensor is copied to the host)."""
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


@dataclass(frozen=True)
class LeafEngine:
    """One game's leaf rollouts on its batched engine.

    Attributes:
        load: ``"module:attribute"`` of ``load_states(engine, states) -> (obs, mask, to_act)``.
        options: engine options of a rollout, as ``(key, value)`` pairs (Scum: one
            series, J8 points collected; Scandal: one hand).
        score: ``score(engine, m, points) -> [m, P]`` rewards in [0, 1] of rows
            ``0..m-1``, as the reference's ``SearchGame.values``.
        collects: whether ``points`` (the step rewards summed per row) are needed.
        defaults: ``ismcts-batched``'s default parameters in this game, as
            ``(name, value)`` pairs; a spec's own win.
        compiled: ``"module:attribute"`` of ``compiled(engine, take_cost,
            deep_margin) -> run(states, cutoff, loaded=False)`` (or None where
            it cannot run): heuristic rollouts row by row, the same moves and
            values as the lockstep loop; ``""``: none.
        compiled_policy: the same for rollouts by a learned MLP,
            ``compiled_policy(engine, snapshot, scale) -> run``; ``""``: none.
        value_score: ``value_score(engine, values [m, P]) -> [m, P]``: a learned
            critic's values of the players (the env's reward units) as ``score``
            rewards (a guided search's ``leaf=value``), or None.
    """

    load: str
    options: tuple[tuple[str, Any], ...]
    score: Callable[[Any, int, np.ndarray], np.ndarray]
    collects: bool = False
    defaults: tuple[tuple[str, Any], ...] = ()
    compiled: str = ""
    compiled_policy: str = ""
    value_score: Callable[[Any, np.ndarray], np.ndarray] | None = None


def scum_score(engine: Any, m: int, points: np.ndarray) -> np.ndarray:
    """``(n - k) / (n - 1)`` for the k-th out; a row cut off ranks by cards left (ties by id)."""
    from scum_env.batched.engine import OVER

    n = int(engine.num_players)
    over = host(engine.phase)[:m] == OVER
    ncards_pos = host(engine.ncards)[:m].astype(np.int64)
    order = host(engine.order)[:m]
    out = np.empty((m, n))
    for i in range(m):
        if over[i]:
            out[i] = (points[i] - 1.0) / (n - 1)
        else:
            nc = np.empty(n, np.int64)
            nc[order[i]] = ncards_pos[i]
            rank = np.argsort(nc, kind="stable")
            out[i, rank] = (n - 1 - np.arange(n)) / (n - 1)
    return out


def scandal_score(engine: Any, m: int, points: np.ndarray) -> np.ndarray:
    """The hand scored as if it ended now (S9), ``0.5 + (own - mean of others) / 400`` clipped."""
    value = np.asarray(engine.rules.deck.value, dtype=np.int64)
    hands = host(engine.hands)[:m].astype(np.int64)
    left = (hands * value[None, None, :]).sum(axis=2)
    return relative_score((host(engine.table_pts)[:m] - left).astype(float))


def relative_score(scores: np.ndarray) -> np.ndarray:
    """``0.5 + (own - mean of others) / 400`` clipped to [0, 1], per row of ``[m, P]`` points."""
    n = scores.shape[1]
    others = (scores.sum(axis=1, keepdims=True) - scores) / (n - 1)
    result: np.ndarray = np.clip(0.5 + (scores - others) / 400.0, 0.0, 1.0)
    return result


def scandal_value_score(engine: Any, values: np.ndarray) -> np.ndarray:
    """`scandal_score` of the hand scores a critic expects: its values (each hand's
    net score / ``reward_scale``, S9) times ``reward_scale``."""
    return relative_score(np.asarray(values, float) * float(engine.config.reward_scale))


#: Scum: one series per rollout, J8 points collected from the step rewards.
scum_leaves = LeafEngine(
    "scum_env.batched.bridge:load_states",
    (("episode", "series"), ("reward", "points")),
    scum_score,
    collects=True,
)
#: Scandal: one hand per rollout, scored from the table at its end or cutoff;
#: ``ismcts-batched`` runs two waves of 50 leaves (half the sequential steps of four
#: waves of 25, as strong on the duplicate deals measured in docs/search.md).
scandal_leaves = LeafEngine(
    "scandal_env.batched.bridge:load_states",
    (("episode", "hand"),),
    scandal_score,
    defaults=(("batch", 50),),
    compiled="cardsuite.agents.search.kernels.scandal_heuristic:compiled_rollouts",
    compiled_policy="cardsuite.agents.search.kernels.scandal_policy:compiled_policy_rollouts",
    value_score=scandal_value_score,
)
