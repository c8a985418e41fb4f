"""Views of a batched Scum game for tests, debugging and rendering.

`game_view` reads one game of a :class:`~scum_env.batched.engine.BatchedScum`
by player id, as numpy, without changing it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from scum_env.batched.backend import Array

if TYPE_CHECKING:
    from scum_env.batched.engine import BatchedScum


def game_view(eng: BatchedScum, g: int) -> dict[str, Any]:
    """Game ``g`` by player id, as numpy (`BatchedScum.game_view`)."""
    xp = eng.xp
    order = xp.to_numpy(eng.order[g])
    inv = np.argsort(order)

    def by_player(x: Array) -> np.ndarray:
        return np.asarray(xp.to_numpy(x[g]))[inv]

    hands, given, received = (
        by_player(eng.hands),
        by_player(eng.given),
        by_player(eng.received),
    )
    fin = xp.to_numpy(eng.finish[g])
    out_pos = [int(j) for j in np.argsort(fin, kind="stable") if fin[j] > 0]
    return {
        "hands": hands.astype(np.int16),
        "given": given.astype(np.int16),
        "received": received.astype(np.int16),
        "dealt": (hands.astype(np.int16) + given - received),
        "order": [int(v) for v in order],
        "scores": by_player(eng.scores).astype(np.int64),
        "finish": [int(order[j]) for j in out_pos],
        "phase": int(xp.to_numpy(eng.phase[g])),
        "to_act": int(order[int(xp.to_numpy(eng.actor[g]))]),
        "series": int(xp.to_numpy(eng.series[g])),
    }
