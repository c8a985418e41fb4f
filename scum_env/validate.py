"""Checks of a saved Scum table state, field by field and across fields.

[`scum_env.serialize.from_dict`][scum_env.serialize.from_dict] reads each field
with the typed readers here, then `check_state` checks that the fields agree
(the cards add up, the player to act holds cards, the top play, the pending
trade, the finish order). Every failure is a
[`StateError`][cardsuite.errors.StateError] naming the field.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.errors import StateError
from scum_env.presets import is_whole, short
from scum_env.rules import Rules, TradeStep
from scum_env.state import OVER, PLAY, TRADE, State

MAX_SERIES = 10**9


def fail(field: str, why: str) -> StateError:
    """The StateError of a field (raise it)."""
    return StateError(f"saved Scum state: field {field!r} {why}")


def whole(field: str, value: Any, low: int, high: int) -> int:
    """A whole number (not a bool, not a float) in ``low .. high``."""
    if not is_whole(value):
        raise fail(field, f"must be an integer, got {short(value)}")
    if not low <= value <= high:
        raise fail(field, f"must be from {low} to {high}, got {value}")
    return int(value)


def flag(field: str, value: Any) -> bool:
    """A JSON true/false."""
    if not isinstance(value, bool):
        raise fail(field, f"must be true or false, got {short(value)}")
    return value


def whole_list(field: str, value: Any, low: int, high: int, size: int | None = None) -> list[int]:
    """A list of whole numbers in ``low .. high`` (of ``size`` entries if given)."""
    if not isinstance(value, list):
        raise fail(field, f"must be a list, got {short(value)}")
    if size is not None and len(value) != size:
        raise fail(field, f"must hold {size} entries, got {len(value)}")
    return [whole(field, v, low, high) for v in value]


def grid(field: str, value: Any, shape: tuple[int, ...], low: int, high: int) -> np.ndarray:
    """Nested lists of the given shape holding whole numbers (or bools when ``high < 0``)."""
    booleans = high < 0
    flat: list[Any] = []

    def walk(node: Any, dims: tuple[int, ...]) -> None:
        if not dims:
            flat.append(flag(field, node) if booleans else whole(field, node, low, high))
            return
        if not isinstance(node, list) or len(node) != dims[0]:
            raise fail(field, f"must be nested lists of shape {list(shape)}")
        for item in node:
            walk(item, dims[1:])

    walk(value, shape)
    dtype = np.bool_ if booleans else np.int64
    return np.array(flat, dtype=dtype).reshape(shape)


def rng_from(value: Any) -> np.random.Generator:
    """The PCG64 generator of a saved ``bit_generator.state`` dict."""
    if not isinstance(value, dict) or value.get("bit_generator") != "PCG64":
        raise fail("rng", "must be the state dict of a PCG64 generator")
    inner = value.get("state")
    if not isinstance(inner, dict) or not all(
        is_whole(inner.get(key)) and 0 <= inner[key] < 2**128 for key in ("state", "inc")
    ):
        raise fail("rng", "must hold 128-bit 'state' and 'inc' integers")
    if not is_whole(value.get("has_uint32")) or not is_whole(value.get("uinteger")):
        raise fail("rng", "must hold integer 'has_uint32' and 'uinteger'")
    rng = np.random.Generator(np.random.PCG64())
    try:
        rng.bit_generator.state = value
    except (TypeError, ValueError, OverflowError) as err:
        raise fail("rng", f"is not a PCG64 state: {err}") from None
    return rng


def pending_steps(rules: Rules, value: Any) -> list[TradeStep]:
    """The trade steps still to do: what is left of the rules' trades (J5, P5)."""
    if not isinstance(value, list):
        raise fail("pending", f"must be a list, got {short(value)}")
    trades = list(rules.trades)
    left = trades[len(trades) - len(value) :] if len(value) <= len(trades) else None
    if left is None or [[t.kind, t.giver, t.receiver, t.count] for t in left] != value:
        raise fail("pending", "must be the last steps of this table's trades (J5, P5)")
    return left


def trade_log(rules: Rules, value: Any) -> list[tuple[int, int, int, bool]]:
    """``[giver, receiver, slot, forced]`` entries of cards traded this series."""
    n, k = rules.num_players, rules.num_slots
    if not isinstance(value, list) or len(value) > sum(t.count for t in rules.trades):
        raise fail("trade_log", "must be a list of at most this table's traded cards")
    out = []
    for entry in value:
        if not isinstance(entry, list) or len(entry) != 4:
            raise fail(
                "trade_log", f"entries are [giver, receiver, slot, forced], got {short(entry)}"
            )
        giver = whole("trade_log", entry[0], 0, n - 1)
        receiver = whole("trade_log", entry[1], 0, n - 1)
        out.append(
            (giver, receiver, whole("trade_log", entry[2], 0, k - 1), flag("trade_log", entry[3]))
        )
    return out


def check_state(state: State) -> None:
    """The fields of a loaded state agree with each other and with the rules."""
    _check_cards(state)
    _check_trades(state)
    _check_top(state)
    _check_turn(state)
    _check_scores(state)


def _check_cards(state: State) -> None:
    rules = state.rules
    if list(state.hands.sum(axis=1)) != state.ncards:
        raise fail("ncards", "must count the cards in each hand")
    if not np.array_equal(state.played_by.sum(axis=0), state.played):
        raise fail("played", "must be the sum of played_by")
    over = np.flatnonzero(state.hands.sum(axis=0) + state.played > rules.deck)
    if over.size:
        name = rules.cards.names[int(over[0])]
        raise fail("hands", f"with the played cards hold more {name} than the pack (J1, P1)")


def _check_trades(state: State) -> None:
    rules = state.rules
    n, k = rules.num_players, rules.num_slots
    given = np.zeros((n, k), dtype=np.int64)
    received = np.zeros((n, k), dtype=np.int64)
    for giver, receiver, slot, _forced in state.trade_log:
        given[giver, slot] += 1
        received[receiver, slot] += 1
    if not np.array_equal(given, state.given) or not np.array_equal(received, state.received):
        raise fail("given", "and 'received' must count the cards of trade_log")
    if state.phase == TRADE:
        if not state.pending or state.pending[0].kind != "choice":
            raise fail("phase", "is 'trade' but no give-back (J5) is pending")
        step = state.pending[0]
        if state.to_act != state.order[step.giver]:
            raise fail("to_act", "must be the player who gives back (J5)")
        if not 1 <= state.give_left <= min(step.count, state.ncards[state.to_act]):
            raise fail("give_left", "must be the give-backs left, at most the cards held")
        if state.finish or state.played.any():
            raise fail("finish", "and 'played' must be empty during the trades")
    elif state.pending or state.give_left:
        raise fail("phase", "must be 'trade' while trade steps are pending")


def _check_top(state: State) -> None:
    rules = state.rules
    if state.top_count == 0:
        if state.top_slot != -1 or state.top_player != -1 or state.top_cards.any():
            raise fail("top_count", "is 0 (a lead) but a top play is recorded")
        if state.passed.any() or state.acted.any() or state.passes:
            raise fail("passed", "and 'acted' must be clear before the lead (J6)")
        return
    if state.top_slot < 0 or state.top_player < 0:
        raise fail("top_slot", "and 'top_player' must name the top play")
    if int(state.top_cards.sum()) != state.top_count or state.top_cards[state.top_slot] < 1:
        raise fail("top_cards", "must hold top_count cards, the best at top_slot")
    same_rank = rules.cards.rank == rules.cards.rank[state.top_slot]
    above = np.arange(rules.num_slots) > state.top_slot
    if state.top_cards[~same_rank | above].any():
        raise fail("top_cards", "must be cards of one rank, none above top_slot")
    if np.any(state.top_cards > state.played_by[state.top_player]):
        raise fail("top_cards", "must be cards the top player played")
    if rules.ends_round[state.top_slot]:
        raise fail("top_slot", "holds a card that ends the round at once (J7)")
    if not state.acted[state.top_player] or (state.passed[state.top_player] and not rules.carousel):
        raise fail("top_player", "must have played in this round")
    if np.any(state.passed & ~state.acted):
        raise fail("passed", "players must also have acted")


def _check_turn(state: State) -> None:
    rules = state.rules
    n = rules.num_players
    out = [p for p in range(n) if state.ncards[p] == 0]
    holders = n - len(out)
    if len(set(state.finish)) != len(state.finish):
        raise fail("finish", "must list each player at most once")
    if state.phase == OVER:
        if sorted(state.finish) != list(range(n)) or holders != 1:
            raise fail("finish", "must list every player once the series is over (J8)")
        return
    if state.phase == PLAY:
        if sorted(state.finish) != out:
            raise fail("finish", "must list exactly the players without cards")
        if holders < 2:
            raise fail("ncards", "leave fewer than two players with cards: the series is over")
        if state.ncards[state.to_act] == 0:
            raise fail("to_act", f"player_{state.to_act} has no cards")
        if state.top_count and state.acted[state.to_act] and not rules.carousel:
            raise fail("to_act", "has had its chance this round (J6)")
    if state.passes > int(state.passed.sum()) and not rules.carousel:
        raise fail("passes", "must not exceed the players who passed")


def _check_scores(state: State) -> None:
    rules = state.rules
    n = rules.num_players
    last = sorted(int(v) for v in state.last_points)
    if last != [0] * n and last != list(range(1, n + 1)):
        raise fail("last_points", "must be all 0 or the J8 points 1..n")
    best = int(state.scores.max())
    if state.game_over != (best >= rules.target):
        raise fail("game_over", f"must say whether a total reached the target {rules.target}")
    if state.game_over:
        if state.phase != OVER or not 0 <= state.winner < n or state.scores[state.winner] != best:
            raise fail("winner", "must be a player with the best total once the game is over")
    elif state.winner != -1:
        raise fail("winner", "must be -1 while the game runs")
