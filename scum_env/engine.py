"""The rules engine of one climbing-game table (Scum 4J, J1–J9; Scum Party's tables).

Pure Python and numpy. A game is a plain [`State`][scum_env.engine.State]
changed in place by [`apply`][scum_env.engine.apply]; forced events (deals,
forced trades, the end of a round or series) happen inside it, never as agent
actions, and randomness comes only from the state's seeded generator. Turn
order is role order: ``state.order[0]`` is the President (King) (J3, P3).
The state, series, legal moves, JSON round trip and preset checks live in
sibling modules and are re-exported here.
"""

from __future__ import annotations

import numpy as np

from cardsuite.errors import IllegalActionError, PresetError, StateError
from scum_env.masks import available, legal_actions, legal_mask, why_illegal
from scum_env.presets import card_lists, check_roles, short, whole_numbers
from scum_env.rules import ActionKind, Rules
from scum_env.serialize import from_dict, from_json, to_dict, to_json
from scum_env.series import (
    clear_round,
    continue_game,
    end_series,
    run_trades,
    start_series,
    transfer,
)
from scum_env.state import (
    ARRAY_FIELDS,
    OVER,
    PHASE_NAMES,
    PLAY,
    TRADE,
    Phase,
    State,
    new_stamp,
)

__all__ = [
    "OVER",
    "PHASE_NAMES",
    "PLAY",
    "TRADE",
    "Phase",
    "State",
    "StateError",
    "apply",
    "apply_unchecked",
    "available",
    "clone",
    "continue_game",
    "episode_rewards",
    "from_dict",
    "from_json",
    "legal_actions",
    "legal_mask",
    "new_game",
    "new_stamp",
    "roles_of",
    "start_series",
    "to_dict",
    "to_json",
    "why_illegal",
]


# --------------------------------------------------------------------------- setup
def new_game(
    rules: Rules,
    seed: int | None = None,
    *,
    roles: list[int] | None = None,
    hands: list[list[str]] | None = None,
    trade: bool = False,
    scores: list[int] | None = None,
) -> State:
    """A new game whose first series is dealt and ready to play.

    Args:
        rules: compiled table rules.
        seed: seeds the game's generator (role draw, every deal).
        roles: players in role order (President first); default a seeded draw (J3).
        hands: preset hands per player (card names), as dealt, before trades.
        trade: start with the trades (J5), as in a later series.
        scores: preset game totals per player.
    """
    n = rules.num_players
    k = rules.num_slots
    rng = np.random.default_rng(seed)
    state = State(
        rules=rules,
        rng=rng,
        hands=np.zeros((n, k), dtype=np.int16),
        ncards=[0] * n,
        order=list(range(n)),
        pos=list(range(n)),
        phase=PLAY,
        to_act=0,
        top_count=0,
        top_slot=-1,
        top_player=-1,
        top_cards=np.zeros(k, dtype=np.int16),
        passed=np.zeros(n, dtype=bool),
        acted=np.zeros(n, dtype=bool),
        passes=0,
        finish=[],
        scores=np.zeros(n, dtype=np.int64),
        series=0,
        played=np.zeros(k, dtype=np.int16),
        played_by=np.zeros((n, k), dtype=np.int16),
        given=np.zeros((n, k), dtype=np.int16),
        received=np.zeros((n, k), dtype=np.int16),
        trade_log=[],
        pending=[],
        give_left=0,
        last_points=np.zeros(n, dtype=np.int64),
        winner=-1,
        game_over=False,
    )
    if scores is not None:  # below the target: a total at the target ends the game (J8)
        state.scores[:] = whole_numbers("scores", scores, n, 0, rules.target - 1)
    order = check_roles(n, roles) if roles is not None else [int(p) for p in rng.permutation(n)]
    if hands is not None:
        hands = card_lists("hands", hands, n)
    if not isinstance(trade, bool):
        raise PresetError(f"preset trade must be True or False, got {short(trade)}")
    start_series(state, order, hands=hands, trade=trade)
    if state.phase == OVER:
        raise PresetError("preset hands leave a single player with cards once the trades are done")
    return state


# --------------------------------------------------------------------------- moves
def apply(state: State, action: int) -> None:
    """Apply a legal action of ``state.to_act``; IllegalActionError otherwise."""
    rules = state.rules
    if state.phase == OVER or not 0 <= action < rules.num_actions or not legal_mask(state)[action]:
        raise IllegalActionError(
            f"player_{state.to_act}: illegal action {action}: {why_illegal(state, action)}"
        )
    apply_unchecked(state, action)


def apply_unchecked(state: State, action: int) -> None:
    """Apply an action already known to be legal (the env checks the mask)."""
    player = state.to_act
    kind, c, slot = state.rules.decode(action)
    if state.phase == TRADE:
        step = state.pending[0]
        transfer(state, player, state.order[step.receiver], slot, forced=False)
        state.give_left -= 1
        if state.give_left == 0:
            state.pending.pop(0)
        run_trades(state)
        return
    state.acted[player] = True
    if kind == ActionKind.PASS:
        state.passed[player] = True
        state.passes += 1
        _advance(state, player)
        return
    _play(state, player, c, slot)


def _play(state: State, player: int, count: int, slot: int) -> None:
    rules = state.rules
    hand = state.hands[player]
    top = state.top_cards
    top[:] = 0
    if rules.colour_mode and rules.cards.colour[slot] >= 0:
        hand[slot] -= 1
        top[slot] = 1
        left = count - 1
        s = slot - int(rules.cards.colour[slot])  # lowest colour of this rank
        while left:
            take = min(left, int(hand[s]))
            hand[s] -= take
            top[s] += take
            left -= take
            s += 1
    else:
        hand[slot] -= count
        top[slot] = count
    state.played += top
    state.played_by[player] += top
    state.ncards[player] -= count
    state.top_count = count
    state.top_slot = slot
    state.top_player = player
    state.passes = 0
    if state.ncards[player] == 0:
        state.finish.append(player)
        if sum(1 for v in state.ncards if v > 0) == 1:
            end_series(state)
            return
    if rules.ends_round[slot]:
        _end_round(state)  # J7: this play cannot be beaten
        return
    _advance(state, player)


def _advance(state: State, player: int) -> None:
    """Pass the turn on, or end the round when nobody may still play (J6, J9)."""
    n = state.rules.num_players
    order, ncards, acted = state.order, state.ncards, state.acted
    p = state.pos[player]
    carousel = state.rules.carousel
    if carousel:  # J9: the round ends once every other holder passed since the top play
        others = sum(1 for q in range(n) if ncards[q] > 0 and q != state.top_player)
        if state.passes >= others:
            _end_round(state)
            return
    for step in range(1, n):  # the next holder in turn order; J6: one yet to have a chance
        q = order[(p + step) % n]
        if ncards[q] > 0 and (carousel or not acted[q]):
            state.to_act = q
            return
    _end_round(state)


def _end_round(state: State) -> None:
    """The highest play wins and leads; a winner who is out hands the lead on (J6, P6)."""
    winner = state.top_player
    if state.ncards[winner] > 0:
        leader = winner
    elif state.rules.lead_after_out == "next":
        n = state.rules.num_players
        p = state.pos[winner]
        leader = next(
            state.order[(p + k) % n] for k in range(1, n) if state.ncards[state.order[(p + k) % n]]
        )
    else:
        leader = next(q for q in state.order if state.ncards[q] > 0)
    clear_round(state)
    state.to_act = leader


# --------------------------------------------------------------------------- results
def episode_rewards(state: State) -> list[float]:
    """Rewards of a finished episode (series: J8 points; game: +1 winner, -1 others)."""
    n = state.rules.num_players
    if state.rules.episode == "game":
        return [1.0 if p == state.winner else -1.0 for p in range(n)]
    points = state.last_points.astype(float)
    if state.rules.reward == "centered":
        points = (points - (n + 1) / 2) / ((n - 1) / 2)
    return [float(v) for v in points]


def roles_of(state: State) -> list[str]:
    """Role name of every player (J3)."""
    return [state.rules.role_of(state.pos[p]) for p in range(state.num_players)]


# --------------------------------------------------------------------------- copies
def clone(state: State) -> State:
    """A deep copy sharing only the immutable rules."""
    rng = np.random.Generator(type(state.rng.bit_generator)())
    rng.bit_generator.state = state.rng.bit_generator.state
    copy = State.__new__(State)
    copy.__dict__.update(state.__dict__)
    for name in ARRAY_FIELDS:
        setattr(copy, name, getattr(state, name).copy())
    for name in ("ncards", "order", "pos", "finish", "trade_log", "pending"):
        setattr(copy, name, getattr(state, name)[:])
    copy.rng = rng
    return copy
