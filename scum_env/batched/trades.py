"""The forced trades and give-backs of a batched Scum series (J5).

Functions of [`BatchedScum`][scum_env.batched.engine.BatchedScum], run on the games
``r`` whose series starts with trades or whose player gave a card back: the
forced moves of the config's trade steps run at once, a chosen give-back
waits for the giver's action (phase ``TRADE``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cardsuite.batched.backend import Array
from scum_env.phase import Phase

if TYPE_CHECKING:
    from scum_env.batched.engine import BatchedScum

TRADE, PLAY = int(Phase.TRADE), int(Phase.PLAY)


def run_trades(eng: BatchedScum, r: Array) -> None:
    """Do forced trade steps of games ``r`` until a give-back is due (J5)."""
    xp = eng.xp
    n = eng.P
    for i, step in enumerate(eng.steps):
        at = r[eng.tstep[r] == i]
        if at.shape[0] == 0:
            continue
        giver, receiver = step.giver % n, step.receiver % n
        if step.kind == "choice":
            left = eng.give_left[at]
            held = xp.astype(eng.ncards[at, giver], xp.int64)
            left = xp.where(left == 0, xp.minimum(held, step.count), left)
            eng.give_left[at] = left
            eng.tstep[at[left == 0]] += 1
            wait = at[left > 0]
            eng.phase[wait] = TRADE
            eng.actor[wait] = giver
            continue
        weight = eng.slot_ar + 1 if step.kind == "high" else eng.K - eng.slot_ar
        for _ in range(step.count):
            w = xp.where(eng.hands[at, giver] > 0, weight[None, :], 0)
            slot = xp.argmax(w, 1)
            ok = at[xp.amax(w, 1) > 0]
            transfer(eng, ok, giver, receiver, slot[xp.amax(w, 1) > 0])
        eng.tstep[at] += 1
    ready = r[eng.tstep[r] == len(eng.steps)]
    eng.phase[ready] = PLAY
    eng.actor[ready] = 0  # the President leads the first round (J6)


def transfer(eng: BatchedScum, r: Array, giver: Any, receiver: Any, slot: Array) -> None:
    """Move one card of ``slot`` from ``giver`` to ``receiver`` (positions) in games ``r``."""
    eng.hands[r, giver, slot] -= 1
    eng.hands[r, receiver, slot] += 1
    eng.ncards[r, giver] -= 1
    eng.ncards[r, receiver] += 1
    eng.given[r, giver, slot] += 1
    eng.received[r, receiver, slot] += 1


def give_back(eng: BatchedScum, r: Array, a: Array) -> None:
    """One chosen give-back card of games ``r`` (J5)."""
    slot = a[r] - eng.rules.give_base
    receiver = eng.recv_of_step[eng.tstep[r]]
    transfer(eng, r, eng.actor[r], receiver, slot)
    eng.give_left[r] -= 1
    eng.tstep[r[eng.give_left[r] == 0]] += 1
    run_trades(eng, r)
