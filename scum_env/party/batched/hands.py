"""Between hands of a batched Scum Party: ladder (P7), scoring (P8), deals (P1, P4), trades (P5).

Functions of [`BatchedParty`][scum_env.party.batched.engine.BatchedParty] on
the games ``g`` an event concerns, looping only over tables and trade moves.
The ladder is one static permutation of the concatenated finish orders.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from cardsuite.batched.backend import Array
from cardsuite.batched.checks import preset_ints
from cardsuite.batched.deal import TAG_DEAL, permutations
from cardsuite.errors import PresetError
from scum_env.party.encoding import score_scale

if TYPE_CHECKING:
    from scum_env.party.batched.engine import BatchedParty

LADDER_CHUNK = 4096  # games per [chunk, n, n] comparison when ranking totals
TABLE_STREAMS = 16  # deal counter = deal number * 16 + table (at most 10 tables)


# ------------------------------------------------------------ hand end
def end_hand(eng: BatchedParty, g: Array) -> None:
    """Every table of games ``g`` finished: ladder, score, next hand or the end (P7, P8)."""
    xp, lay = eng.xp, eng.lay
    t_count, p_max = lay.T, lay.P
    m = g.shape[0]
    rows = (g[:, None] * t_count + eng.t_ar[None, :]).reshape(-1)
    fin = xp.astype(eng.finish[rows], xp.int64)  # ranks 1..size, pads 0
    buf = xp.zeros((m * t_count, p_max + 1), xp.int64)
    buf[xp.arange(m * t_count)[:, None], fin] = eng.pos_ar[None, :]
    ids = xp.take_along(eng.members[rows], buf[:, 1:], 1)  # player ids in finish order
    finish_order = ids.reshape(m, t_count * p_max)[:, eng.slot_of]
    seating = finish_order[:, eng.ladder_perm]  # P7
    gg = g[:, None]
    eng.scores[gg, seating] += eng.hand_points[None, :]  # P8, by the seat after the ladder
    if eng.config.reward == "points":
        eng.rewards[gg, seating] = xp.astype(eng.hand_points, xp.float32)[None, :]
    eng.hand[g] += 1
    eng.current[g] = 0
    seat(eng, g, seating)
    update_ladder(eng, g)
    ended = eng.hand[g] >= eng.config.num_hands
    over = g[ended]
    if over.shape[0]:
        finish_tournament(eng, over)
    going = g[~ended]
    if going.shape[0]:
        start_hand(eng, going, xp.full(going.shape, True, xp.bool))


def finish_tournament(eng: BatchedParty, g: Array) -> None:
    """The last hand of games ``g`` was scored: the episode ends (P8 rewards)."""
    xp = eng.xp
    eng.over[g] = True
    eng.done[g] = True
    reward = eng.config.reward
    scores = eng.scores[g]
    if reward == "final":
        eng.rewards[g] = xp.astype(scores, xp.float32)
    elif reward == "rank":
        below = xp.sum(scores[:, None, :] < scores[:, :, None], 2)
        above = xp.sum(scores[:, None, :] > scores[:, :, None], 2)
        n1 = float(eng.lay.n - 1)
        eng.rewards[g] = xp.astype(xp.astype(below - above, xp.float64) / n1, xp.float32)


def restart(eng: BatchedParty, g: Array) -> None:
    """A new tournament in finished games ``g``, as ``scum_party_v0.reset()`` starts one."""
    xp = eng.xp
    new_tournament(eng, g, eng.draw_seating(g), xp.full(g.shape, True, xp.bool), None)


# ------------------------------------------------------------ new tournament, new hand
def new_tournament(
    eng: BatchedParty, g: Array, seats: Array, trade: Array, preset: np.ndarray | None
) -> None:
    """Scores 0, hand 0, seats ``seats``, then the first hand of games ``g``."""
    eng.clear(g, "scores", "hand", "over", "current")
    seat(eng, g, seats)
    update_ladder(eng, g)
    start_hand(eng, g, trade, preset)


def seat(eng: BatchedParty, g: Array, seating: Array) -> None:
    """Seat games ``g`` from a concatenated seating ``[M, n]`` (tables top first, King first)."""
    lay = eng.lay
    members = eng.members.reshape(eng.num_games, lay.T * lay.P)
    members[g[:, None], eng.slot_of[None, :]] = seating


def start_hand(eng: BatchedParty, g: Array, trade: Array, preset: np.ndarray | None = None) -> None:
    """Deal every table of games ``g`` (or take preset hands) and run the trades (P4, P5)."""
    xp, lay = eng.xp, eng.lay
    t_count, p_max, k = lay.T, lay.P, lay.K
    m = g.shape[0]
    local = xp.arange(m)
    seed = 0 if eng.seed is None else eng.seed
    for t in range(t_count):
        r = g * t_count + t
        if preset is None:
            slots = xp.asarray(lay.slot_lists[t], xp.int64)
            seats = xp.asarray(lay.deal_seats[t], xp.int64)
            counter = eng.deals[g] * TABLE_STREAMS + t
            perm = permutations(xp, seed, TAG_DEAL, g + eng.game_offset, counter, slots.shape[0])
            idx = ((local[:, None] * p_max + seats[None, :]) * k + slots[perm]).reshape(-1)
            hands = xp.bincount(idx, m * p_max * k).reshape(m, p_max, k)
        else:
            by_player = xp.asarray(preset, xp.int64)  # [M, n, K]
            mem = eng.members[r]
            hands = by_player[local[:, None], mem]
            hands = xp.where(eng.real_seat[t][None, :, None], hands, 0)
        eng.hands[r] = xp.astype(hands, xp.int8)
    rows = (g[:, None] * t_count + eng.t_ar[None, :]).reshape(-1)
    eng.deals[g] += 1
    eng.clear(rows, "finish", "finish_rank", "nfin", "played", "given", "received", "tover")
    eng.actor[rows] = 0  # the King leads (P6)
    eng.clear_round(rows)
    traded = (trade[:, None] & (eng.t_ar[None, :] >= 0)).reshape(-1)
    forced_trades(eng, rows[traded])
    eng.ncards[rows] = xp.astype(xp.sum(eng.hands[rows], 2), xp.int16)


def forced_trades(eng: BatchedParty, rows: Array) -> None:
    """The forced trades of P5 at table rows ``rows``, one card at a time."""
    xp, lay = eng.xp, eng.lay
    if rows.shape[0] == 0:
        return
    p_max, k = lay.P, lay.K
    t = rows % lay.T
    hands2 = eng.hands.reshape(-1, k)
    given2 = eng.given.reshape(-1, k)
    received2 = eng.received.reshape(-1, k)
    high = eng.slot_ar + 1
    low = k - eng.slot_ar
    for kind, giver, receiver in lay.trade_moves:
        fg = rows * p_max + xp.asarray(giver, xp.int64)[t]
        fr = rows * p_max + xp.asarray(receiver, xp.int64)[t]
        hand = xp.take_rows(hands2, fg)
        w = xp.where(hand > 0, (high if kind == "high" else low)[None, :], 0)
        slot = xp.argmax(w, 1)
        ok = xp.nonzero(xp.amax(w, 1) > 0)
        fg, fr, slot = fg[ok], fr[ok], slot[ok]
        hands2[fg, slot] -= 1
        hands2[fr, slot] += 1
        given2[fg, slot] += 1
        received2[fr, slot] += 1


# ------------------------------------------------------------ the ladder seen by observers
def update_ladder(eng: BatchedParty, g: Array) -> None:
    """Scaled totals, standings and leader gaps of games ``g``, as the per-game encoder."""
    xp, lay = eng.xp, eng.lay
    f64 = xp.float64
    inv = 1.0 / score_scale(eng.config)
    n1 = float(max(lay.n - 1, 1))
    for start in range(0, g.shape[0], LADDER_CHUNK):
        part = g[start : start + LADDER_CHUNK]
        sc = eng.scores[part]
        scaled = xp.astype(sc, f64) * inv
        scaled = xp.where(scaled > 1.0, 1.0, xp.where(scaled < -1.0, -1.0, scaled))
        higher = xp.sum(sc[:, None, :] > sc[:, :, None], 2)
        gap = xp.astype(xp.amax(sc, 1)[:, None] - sc, f64) * inv
        gap = xp.where(gap > 2.0, 2.0, gap)
        eng.ladder[part, :, 0] = xp.astype(scaled, xp.float32)
        eng.ladder[part, :, 1] = xp.astype(xp.astype(higher, f64) / n1, xp.float32)
        eng.ladder[part, :, 2] = xp.astype(gap, xp.float32)
    update_seat_scores(eng, g)


def update_seat_scores(eng: BatchedParty, g: Array) -> None:
    xp, lay = eng.xp, eng.lay
    m = g.shape[0]
    rows = (g[:, None] * lay.T + eng.t_ar[None, :]).reshape(-1)
    mem = eng.members[rows].reshape(m, lay.T * lay.P)
    vals = xp.take_along(eng.ladder[g, :, 0], mem, 1).reshape(m, lay.T, lay.P)
    vals = xp.where(eng.real_seat[None, :, :], vals, 0.0)
    eng.seat_score[rows] = vals.reshape(m * lay.T, lay.P)


# ------------------------------------------------------------ presets
def check_hands(eng: BatchedParty, hands: Any) -> np.ndarray:
    """Preset first hands ``[N, n, 14]``: card counts, at least one card each."""
    arr = preset_ints("hands", hands, (eng.num_games, eng.lay.n, eng.lay.K), "card counts")
    if arr.min() < 0 or np.any(arr.sum(axis=2) == 0):
        raise PresetError("every preset hand must hold at least one card, no negative counts")
    return arr


def check_packs(eng: BatchedParty, preset: np.ndarray, seats: np.ndarray) -> None:
    """Each table's preset hands fit its pack (P1)."""
    lay = eng.lay
    for t, size in enumerate(lay.sizes):
        at = seats[:, lay.offsets[t] : lay.offsets[t] + size]
        total = np.take_along_axis(preset, at[:, :, None], 1).sum(axis=1)
        deck = lay.slot_lists[t]
        pack = np.bincount(deck, minlength=lay.K)
        if np.any(total > pack[None, :]):
            raise PresetError(
                f"preset hands at table {t} hold more cards of some rank than its "
                f"{len(deck) // 54}-deck pack (P1)"
            )
