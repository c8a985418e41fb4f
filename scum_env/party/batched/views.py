"""Any player's observation of every batched Scum Party game (``BatchedParty.observe_as``).

The engine's own observation is that of each game's player to act; a critic
also needs the observation of a seat that is not to act (its value at the
end of a rollout). Each game's player is found among its tables' seats, and
the shared encoder writes that player's view into new buffers, so neither the
state nor the buffers [`step`][scum_env.party.batched.engine.BatchedParty.step]
returned change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardsuite.batched.backend import Array

if TYPE_CHECKING:
    from scum_env.party.batched.engine import BatchedParty


def observe_players(eng: BatchedParty, ids: Array) -> Array:
    """A new ``[N, obs_dim]`` float32: game ``g`` as player ``ids[g]`` sees it."""
    xp, lay = eng.xp, eng.lay
    n_games, tp = eng.num_games, lay.T * lay.P
    ids_at = eng.members.reshape(n_games, tp)  # pads hold 0: mask them out
    seated = (ids_at == ids[:, None]) & eng.real_seat.reshape(1, tp)
    where = xp.argmax(seated, 1)  # [N] flat (table, seat) of the player in each game
    table = where // lay.P
    me = where % lay.P
    row = eng.rows_t + table
    hand = xp.take_rows(eng.hands.reshape(-1, lay.K), row * lay.P + me)
    d = eng.obs_dim
    buffers = (xp.zeros((n_games, d), xp.int8), xp.zeros((n_games, d), xp.float32))
    return eng.encoder.observe(eng, row, me, ids, hand, table=table, buffers=buffers)
