"""Views of a batched Scum game: any player's observation, and one game for tests.

`observe_players` is [`observe_as`][scum_env.batched.engine.BatchedScum.observe_as]
(each game from a given player's seat); `game_view` reads one game by player
id, as numpy. Neither changes the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from cardsuite.batched.backend import Array
from cardsuite.batched.checks import check_players

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


def observe_players(eng: BatchedScum, player: Any) -> Array:
    """A new ``[N, obs_dim]``: each game as ``player`` (an id or ``[N]`` ids) sees it now."""
    xp = eng.xp
    ids = check_players(xp, player, eng.num_games, eng.P)
    saved = xp.copy(eng.actor)
    eng.actor[:] = xp.argmax(eng.order == ids[:, None], 1)
    hand = xp.take_rows(eng.hands.reshape(-1, eng.K), eng.flat_actor())
    view = xp.copy(eng.encoder.observe(eng, hand))
    give = eng.encoder.spec.slices["give_backs_left"].start
    view[:, give] = xp.where(eng.actor == saved, view[:, give], 0.0)  # the giver's alone
    eng.actor[:] = saved
    eng._observe()  # the encoder writes into the shared buffer: rebuild it in place
    return view
