"""The multi-table Scum Party game (P1–P8), over the shared table engine.

A [`Party`][scum_env.party.engine.Party] holds one [`scum_env.engine.State`][scum_env.engine.State]
per table, with *local* player indices; ``members[t][i]`` is the global id of
local index ``i`` at table ``t`` (local index = seat at the deal, King first).
The top table acts first in a hand; after every decision the turn goes to the
next table below (wrapping) whose hand is in progress. When every table has
finished, the ladder (P7) reseats everyone, the hand is scored (P8) from the
new seats and, unless the tournament is over, every table is dealt its next
hand with the forced trades (P4, P5).
"""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from cardsuite.errors import IllegalActionError, PresetError
from scum_env import engine as E
from scum_env.knowledge import resample_hidden
from scum_env.party.config import PartyConfig
from scum_env.party.serialize import from_dict, from_json, to_dict, to_json
from scum_env.party.state import Party, State, action_rules, seat, table_rules
from scum_env.party.tables import hand_points, ladder
from scum_env.presets import MAX_TOTAL, card_lists, check_roles, short, whole_numbers
from scum_env.state import OVER, Phase

__all__ = [
    "Party",
    "Phase",
    "State",
    "action_rules",
    "apply",
    "apply_unchecked",
    "clone",
    "determinize",
    "from_dict",
    "from_json",
    "legal_mask",
    "new_party",
    "num_actions",
    "standings",
    "table_rules",
    "to_dict",
    "to_json",
    "why_illegal",
]


# --------------------------------------------------------------------------- setup
def new_party(
    config: PartyConfig,
    seed: int | None = None,
    *,
    seating: list[Any] | None = None,
    hands: list[list[str]] | None = None,
    trade: bool = True,
    scores: list[int] | None = None,
) -> Party:
    """A new tournament with its first hand dealt at every table.

    Args:
        config: the party config.
        seed: seeds the seat draw and every deal.
        seating: initial seats, King first: one list per table (top first),
            or one flat list cut by the table sizes; default a seeded draw (P3).
        hands: preset first hands per global player (card names), before trades.
        trade: do the forced trades in the first hand (P5); ``False`` for scripts.
        scores: preset tournament totals per player.
    """
    n = config.num_players
    sizes = config.sizes
    rng = np.random.default_rng(seed)
    if seating is None:
        seats = _cut([int(p) for p in rng.permutation(n)], sizes)
    else:
        seats = _check_seating(seating, sizes, n)
    if hands is not None:
        hands = card_lists("hands", hands, n)
    if not isinstance(trade, bool):
        raise PresetError(f"preset trade must be True or False, got {short(trade)}")
    totals = np.zeros(n, dtype=np.int64)
    if scores is not None:  # P8 totals may be negative
        totals[:] = whole_numbers("scores", scores, n, -MAX_TOTAL, MAX_TOTAL)
    table_seeds = rng.integers(0, 2**63 - 1, size=len(sizes))
    tables = []
    for t, members in enumerate(seats):
        local_hands = None if hands is None else [list(hands[p]) for p in members]
        try:
            st = E.new_game(
                table_rules(len(members)),
                int(table_seeds[t]),
                roles=list(range(len(members))),
                hands=local_hands,
                trade=trade,
            )
        except PresetError as err:
            raise PresetError(f"table {t}: {_global_names(str(err), members)}") from None
        tables.append(st)
    party = Party(
        config=config,
        tables=tables,
        current=0,
        hand=0,
        scores=totals,
        last_points=np.zeros(n, dtype=np.int64),
        last_finish=[],
        over=False,
    )
    seat(party, seats)
    return party


def _global_names(message: str, members: list[int]) -> str:
    """Rewrite the engine's local ``player_{i}`` names in a message to global ids."""

    def name(match: re.Match[str]) -> str:
        local = int(match.group(1))
        return f"player_{members[local]}" if local < len(members) else match.group(0)

    return re.sub(r"player_(\d+)", name, message)


def _cut(players: list[int], sizes: tuple[int, ...]) -> list[list[int]]:
    rest = iter(players)
    return [list(itertools.islice(rest, size)) for size in sizes]


def _check_seating(seating: Any, sizes: tuple[int, ...], n: int) -> list[list[int]]:
    if isinstance(seating, str | bytes) or not isinstance(seating, Sequence) or not seating:
        raise PresetError(f"preset seating must be a list of player indices, got {short(seating)}")
    if all(isinstance(x, Sequence) and not isinstance(x, str | bytes) for x in seating):
        if [len(s) for s in seating] != list(sizes):
            raise PresetError(
                f"preset seating has tables of {[len(s) for s in seating]} players, "
                f"the config's tables seat {list(sizes)}"
            )
        flat = [p for table in seating for p in table]
    else:
        flat = list(seating)
    check_roles(n, flat, field="seating", top="King")  # whole numbers, each player once
    return _cut([int(p) for p in flat], sizes)


# --------------------------------------------------------------------------- moves
def num_actions(config: PartyConfig) -> int:
    """Size of the fixed action table (largest table's decks)."""
    return action_rules(config).num_actions


def legal_mask(party: Party) -> np.ndarray:
    """The int8 mask over the env's action table for the player to act."""
    mask = np.zeros(num_actions(party.config), dtype=np.int8)
    if party.over:
        return mask
    table = E.legal_mask(party.tables[party.current])
    mask[: table.size] = table
    return mask


def why_illegal(party: Party, action: int) -> str | None:
    """Why ``action`` is illegal now, in words; ``None`` if it is legal."""
    total = num_actions(party.config)
    if not 0 <= action < total:
        return f"action ids run from 0 to {total - 1}"
    if party.over:
        return "the tournament is over"
    st = party.tables[party.current]
    if action >= st.rules.num_actions:
        what = action_rules(party.config).describe_action(action)
        return (
            f"{what}: table {party.current} plays with {st.rules.num_decks} decks, "
            f"at most {st.rules.max_count} cards of one rank (P1)"
        )
    why = E.why_illegal(st, action)
    return None if why is None else _global_names(why, party.members[party.current])


def apply(party: Party, action: int) -> np.ndarray | None:
    """Apply a legal action of the player to act; IllegalActionError otherwise."""
    why = why_illegal(party, action)
    if why is not None:
        raise IllegalActionError(f"player_{party.to_act}: illegal action {action}: {why}")
    return apply_unchecked(party, action)


def apply_unchecked(party: Party, action: int) -> np.ndarray | None:
    """Apply an action known to be legal; the hand's P8 points if it scored a hand."""
    t = party.current
    st = party.tables[t]
    E.apply_unchecked(st, action)
    if st.phase == OVER and all(x.phase == OVER for x in party.tables):
        return _end_hand(party)
    party.current = _next_table(party, t)
    return None


def _next_table(party: Party, t: int) -> int:
    """The next table after ``t`` (wrapping) whose hand is still in progress."""
    tables = party.tables
    count = len(tables)
    for step in range(1, count + 1):
        u = (t + step) % count
        if tables[u].phase != OVER:
            return u
    return t


def _end_hand(party: Party) -> np.ndarray:
    """Ladder (P7), score (P8) and deal the next hand unless the tournament is over."""
    finish = [[m[q] for q in st.finish] for m, st in zip(party.members, party.tables, strict=True)]
    seating = ladder(finish)
    points = hand_points(seating, party.num_players)
    party.scores += points
    party.last_points = points
    party.last_finish = finish
    party.hand += 1
    party.current = 0
    if party.hand >= party.config.num_hands:
        # The tables keep the last hand's seats (as played); Party.seat_of gives the final ones.
        party.over = True
        return points
    seat(party, seating)
    for st in party.tables:
        E.start_series(st, list(range(st.num_players)), trade=True)  # P4, P5
    return points


def standings(party: Party) -> list[int]:
    """1-based tournament rank of every player (ties share the better rank)."""
    scores = party.scores
    return [int((scores > scores[p]).sum()) + 1 for p in range(party.num_players)]


def hand_rewards(party: Party, reward: str) -> list[float]:
    """The ``reward`` (`PartyConfig.reward`) of the hand just scored: its P8 ``points``,
    the ``final`` scores, or ``rank``: (players scored below - players above) / (n - 1)."""
    scores, n = party.scores, party.num_players
    if reward == "rank":
        return [float(((scores < s).sum() - (scores > s).sum()) / (n - 1)) for s in scores]
    return [float(v) for v in (party.last_points if reward == "points" else scores)]


# --------------------------------------------------------------------------- search
def determinize(party: Party, player: int, rng: np.random.Generator) -> Party:
    """A copy of ``party`` consistent with what ``player`` knows (for search).

    The player's own table is resampled with
    [`scum_env.knowledge.resample_hidden`][scum_env.knowledge.resample_hidden];
    every other table's hands are pooled and redealt with the same sizes. Every
    table gets a fresh generator from ``rng``.
    """
    own = party.table_of[player]
    tables = []
    for t, st in enumerate(party.tables):
        if t == own:
            # resample_hidden only reads its state: a shallow view with the bounds' log
            view = copy.copy(st)
            # "low" steps (giver above receiver) give the lowest cards: no upper bound.
            view.trade_log = [
                (g, r, s, forced and st.pos[g] > st.pos[r]) for g, r, s, forced in st.trade_log
            ]
            table = resample_hidden(view, party.local_of[player], rng)
            table.trade_log = st.trade_log[:]
        else:
            table = E.clone(st)
            table.rng = np.random.default_rng(int(rng.integers(0, 2**63 - 1)))
            pool = rng.permutation(np.repeat(np.arange(st.rules.num_slots), st.hands.sum(axis=0)))
            start = 0
            for q in range(st.num_players):
                take = pool[start : start + st.ncards[q]]
                table.hands[q] = np.bincount(take, minlength=st.rules.num_slots)
                start += st.ncards[q]
        tables.append(table)
    return _with_tables(party, tables)


# --------------------------------------------------------------------------- copies
def clone(party: Party) -> Party:
    """A deep copy sharing only the immutable config and rules."""
    return _with_tables(party, [E.clone(st) for st in party.tables])


def _with_tables(party: Party, tables: list[E.State]) -> Party:
    """A copy of ``party``'s own fields around the given (new) table states."""
    return Party(
        config=party.config,
        tables=tables,
        members=[m[:] for m in party.members],
        table_of=party.table_of[:],
        local_of=party.local_of[:],
        current=party.current,
        hand=party.hand,
        scores=party.scores.copy(),
        last_points=party.last_points.copy(),
        last_finish=[f[:] for f in party.last_finish],
        over=party.over,
    )
