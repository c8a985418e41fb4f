"""How a game's batched engine rolls out and scores search leaves: a `SearchKind`'s ``leaves``.

The batched searches (``ismcts-batched``, ``search:``) write the per-game
leaf states of a wave into the rows of the game's batched engine (its
record's ``batched`` part), play them out together and score them as the
reference's [`SearchGame.values`][cardsuite.agents.search.reference.SearchGame] does.
What differs between games is named here, once per game, and reached through
the game's ``search`` part (``SearchKind.leaves``, `cardsuite.agents.parts`), so the searches never
pick a game by its name:

* ``load``: the bridge that writes per-game states into engine rows
  (``"module:attribute"``, imported when a search is built);
* ``options``: the engine options of a rollout (a Scum rollout ends with the
  series and collects J8 points; a Scandal rollout ends with the hand);
* ``score``: per-player rewards in [0, 1] of the rows after the rollout;
* ``collects``: whether ``score`` needs the engine's step rewards summed;
* ``defaults``: ``ismcts-batched``'s default parameters in this game (Scandal:
  two waves of 50; docs/search.md, "Speed");
* ``compiled``: where the game has them, compiled heuristic rollouts
  (``"module:attribute"`` of ``compiled(engine, take_cost, deep_margin) ->
  run(states, cutoff, loaded=False)`` or None where they cannot run; ``loaded``:
  the states are already in rows ``0 ..`` from ``load``): the same moves and
  values as the lockstep loop, each row played on its own (Scandal:
  ``cardsuite.agents.search.kernels.scandal_heuristic``, with numba);
* ``value_score``: where the game has one, the map from a learned critic's
  values of the players (``[m, P]``, the env's reward units) to the rewards
  ``score`` gives, so that a guided search's ``leaf=value`` scores a leaf by
  its wrapped agent's critic on the same scale (Scandal: `scandal_value_score`);
* ``compiled_policy``: where the game has them, compiled rollouts by a
  learned policy (``compiled_policy(engine, snapshot, scale) -> run`` or None,
  ``run`` as above; ``snapshot``: the network's `Snapshot`, ``scale``: the
  table's observation scale): the guided search's ``rollout=policy`` moves,
  each row on its own (Scandal: ``cardsuite.agents.search.kernels.scandal_policy``).

A game whose ``SearchKind`` has no ``leaves`` (Scum Party: the batched Scum
engine does not play Party rules) is rolled out by the reference.
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
    """One game's leaf rollouts on its batched engine (see the module doc).

    Attributes:
        load: ``"module:attribute"`` of ``load_states(engine, states) -> (obs, mask, to_act)``.
        options: engine options of a rollout, as ``(key, value)`` pairs.
        score: ``score(engine, m, points) -> [m, P]`` rewards in [0, 1] of rows ``0..m-1``.
        collects: whether ``points`` (the step rewards summed per row) are needed.
        defaults: default parameters of ``ismcts-batched`` in this game, as
            ``(name, value)`` pairs (``batch``, ``cutoff``); a spec's own win.
        compiled: ``"module:attribute"`` of the game's compiled heuristic
            rollouts, or ``""`` (see the module doc).
        compiled_policy: ``"module:attribute"`` of the game's compiled rollouts
            by a learned MLP, or ``""`` (see the module doc).
        value_score: ``value_score(engine, values [m, P]) -> [m, P]`` rewards in
            [0, 1] from a critic's values, or None (see the module doc).
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
