"""The series of a batched Scum game: seating, deals, trades, restarts and scoring (J3–J5, J8).

Rare events of [`BatchedScum`][scum_env.batched.engine.BatchedScum], each on
the subset ``r`` of games it concerns: forced trades run at once, a chosen
give-back waits for the giver's action (phase ``TRADE``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from cardsuite.batched.backend import Array
from cardsuite.batched.deal import TAG_DEAL, TAG_ROLES, permutations
from scum_env.state import Phase

if TYPE_CHECKING:
    from scum_env.batched.engine import BatchedScum

BIG = 1 << 20
TRADE, PLAY, OVER = int(Phase.TRADE), int(Phase.PLAY), int(Phase.OVER)


def draw_roles(eng: BatchedScum, r: Array) -> Array:
    """A seeded random seating ``[R, P]`` (player ids in role order) for games ``r`` (J3)."""
    games = r + eng.game_offset
    return permutations(eng.xp, deal_seed(eng), TAG_ROLES, games, eng.deals[r], eng.P)


def deal_seed(eng: BatchedScum) -> int:
    """The seed the deal and role streams are keyed by (0 before the first reset)."""
    return 0 if eng.seed is None else eng.seed


def deal(eng: BatchedScum, r: Array) -> Array:
    """Seeded hands ``[R, P, K]`` by position for games ``r`` (J4)."""
    xp = eng.xp
    n, k, d = eng.P, eng.K, eng.rules.deck_size
    perm = permutations(xp, deal_seed(eng), TAG_DEAL, r + eng.game_offset, eng.deals[r], d)
    cards = eng.slot_list[perm]
    m = r.shape[0]
    local = xp.arange(m)
    idx = ((local[:, None] * n + eng.deal_seat[None, :]) * k + cards).reshape(-1)
    return xp.bincount(idx, m * n * k).reshape(m, n, k)


def start_series(
    eng: BatchedScum, r: Array, trade: Array, preset: np.ndarray | None = None
) -> None:
    """Deal (or take preset hands), clear the series and run the forced trades."""
    xp = eng.xp
    if preset is None:
        hands = deal(eng, r)
    else:
        by_player = xp.asarray(preset, xp.int64)
        hands = by_player[eng.rows[:, None], eng.order]
    eng.hands[r] = xp.astype(hands, xp.int8)
    eng.ncards[r] = xp.astype(xp.sum(hands, 2), xp.int16)
    eng.deals[r] += 1
    eng.series[r] += 1
    eng.clear(r, "finish", "nfin", "played", "given", "received", "give_left", "game_over")
    eng.winner_pos[r] = -1
    eng._clear_round(r)
    eng.tstep[r] = xp.where(trade, 0, len(eng.steps))
    run_trades(eng, r)


def restart(eng: BatchedScum, r: Array) -> None:
    """Restart finished games ``r`` as ``scum_v0.reset()`` would (module doc)."""
    xp = eng.xp
    over = eng.game_over[r]
    fresh = r[over]
    cont = r[~over]
    if fresh.shape[0]:
        eng.order[fresh] = draw_roles(eng, fresh)
        eng.scores[fresh] = 0
        start_series(eng, fresh, xp.zeros(fresh.shape, xp.bool))
    if cont.shape[0]:
        seat_by_finish(eng, cont)
        start_series(eng, cont, xp.full(cont.shape, True, xp.bool))


def seat_by_finish(eng: BatchedScum, r: Array) -> None:
    """New role positions from the finish order of the last series (J3)."""
    new_pos = eng.xp.astype(eng.finish[r], eng.xp.int64) - 1
    rr = r[:, None]
    order, scores = eng.order[r], eng.scores[r]
    eng.order[rr, new_pos] = order
    eng.scores[rr, new_pos] = scores


def end_series(eng: BatchedScum, r: Array) -> None:
    """Score the series (J8); end the episode or deal the next series."""
    xp = eng.xp
    n = eng.P
    last = xp.argmax(eng.ncards[r] > 0, 1)
    eng.finish[r, last] = n
    finish = xp.astype(eng.finish[r], xp.int64)
    points = n + 1 - finish
    scores = eng.scores[r] + points
    eng.scores[r] = scores
    best = xp.amax(scores, 1)
    over = best >= eng.rules.target
    eng.game_over[r] = over
    tied = xp.where(scores == best[:, None], finish, BIG)
    eng.winner_pos[r] = xp.where(over, xp.argmin(tied, 1), -1)
    eng._clear_round(r)
    if eng.rules.episode == "series":
        reward = xp.astype(points, xp.float32)
        if eng.rules.reward == "centered":
            reward = xp.astype(xp.asarray(centered_table(eng), xp.float32)[points], xp.float32)
        finish_episode(eng, r, reward)
        return
    won = eng.pos_ar[None, :] == eng.winner_pos[r][:, None]
    finish_episode(eng, r[over], xp.astype(xp.where(won, 1, -1), xp.float32)[over])
    going = r[~over]
    if going.shape[0]:
        seat_by_finish(eng, going)
        start_series(eng, going, xp.full(going.shape, True, xp.bool))


def centered_table(eng: BatchedScum) -> np.ndarray:
    """J8 points ``0 .. P+1`` mapped to ``reward="centered"`` values in [-1, 1]."""
    n = eng.P
    pts = np.arange(n + 2, dtype=np.float64)
    return ((pts - (n + 1) / 2) / ((n - 1) / 2)).astype(np.float32)


def finish_episode(eng: BatchedScum, r: Array, reward_by_pos: Array) -> None:
    """End the episodes of games ``r`` with rewards by role position."""
    eng.phase[r] = OVER
    eng.done[r] = True
    eng.rewards[r[:, None], eng.order[r]] = reward_by_pos


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
