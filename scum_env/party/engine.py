"""The multi-table Scum Party game state (P1–P8), over the shared table engine.

A :class:`Party` holds one :class:`scum_env.engine.State` per table. Table
states use *local* player indices ``0 .. size-1``; ``members[t][i]`` is the
global player id (``player_{id}``) of local index ``i`` at table ``t``. At the
start of every hand a table's players are seated in role order, King first,
so local index = seat at the deal. Players keep their global id as they move.

Turn interleaving (fixed and documented): the top table acts first in a hand;
after every decision the turn goes to the next table below (wrapping from the
bottom table to the top) that still has its hand in progress. A table whose
hand is over waits. When every table has finished, the ladder (P7) reseats
everyone, the hand is scored (P8) from the new seats, and, unless the
tournament is over, every table is dealt its next hand with the forced trades
(P4, P5) and the top table acts first again.

Pure Python and numpy; randomness only from the tables' seeded generators.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from cardsuite.errors import IllegalActionError, PresetError, StateError
from scum_env import engine as E
from scum_env.knowledge import resample_hidden
from scum_env.party.cards import party_rules
from scum_env.party.config import PartyConfig
from scum_env.party.tables import hand_points, ladder
from scum_env.rules import Rules


@lru_cache(maxsize=16)
def table_rules(size: int) -> Rules:
    """The (shared, immutable) rules of a table of ``size`` players."""
    return party_rules(size)


@lru_cache(maxsize=64)
def action_rules(config: PartyConfig) -> Rules:
    """Rules of the largest table: they define the env's action table.

    Every table uses the same layout (pass; play ``c`` cards of rank ``r`` at
    id ``1 + (c-1)*14 + r``), so a smaller table's actions are a prefix of it.
    """
    return table_rules(config.max_table)


@dataclass(eq=False)
class Party:
    """A running Scum Party tournament. Mutated in place by :func:`apply`.

    Attributes:
        config: the validated config.
        tables: one engine state per table, top table first.
        members: per table, the global id of each local player index.
        table_of, local_of: per global player, its table and local index.
        current: table whose player acts next.
        hand: hands finished and scored so far.
        scores: tournament totals (P8).
        last_points: points of the last scored hand.
        last_finish: per table, global ids in finish order of the last hand.
        over: the tournament has played ``num_hands`` hands.
    """

    config: PartyConfig
    tables: list[E.State]
    members: list[list[int]]
    table_of: list[int]
    local_of: list[int]
    current: int
    hand: int
    scores: np.ndarray
    last_points: np.ndarray
    last_finish: list[list[int]]
    over: bool

    @property
    def num_players(self) -> int:
        """Players in the tournament."""
        return self.config.num_players

    def to_act(self) -> int:
        """Global id of the player to act."""
        st = self.tables[self.current]
        return self.members[self.current][st.to_act]

    def position(self, player: int) -> int:
        """Seat of ``player`` at its table (0 = King) in the current hand."""
        return self.tables[self.table_of[player]].pos[self.local_of[player]]


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
        seating: initial seats: one list per table (top first) of global ids
            in role order (King first), or one flat list of all players (top
            table's King first), cut by the table sizes; default a seeded
            random draw (P3).
        hands: preset hands per global player (card names), as dealt, before
            the trades; only for the first hand.
        trade: do the forced trades in the first hand (P5, default); ``False``
            is for scripted scenarios only.
        scores: preset tournament totals per player.
    """
    n = config.num_players
    sizes = config.sizes
    rng = np.random.default_rng(seed)
    if seating is None:
        seats = _cut([int(p) for p in rng.permutation(n)], sizes)
    else:
        seats = _check_seating(seating, sizes, n)
    if hands is not None and (not isinstance(hands, list | tuple) or len(hands) != n):
        raise PresetError(f"preset hands must be a list of {n} card lists, one per player")
    totals = np.zeros(n, dtype=np.int64)
    if scores is not None:
        if len(scores) != n or not all(
            isinstance(v, int | np.integer) and not isinstance(v, bool) for v in scores
        ):
            raise PresetError(f"preset scores must be {n} integers, got {scores!r}")
        totals[:] = scores
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
        members=[],
        table_of=[0] * n,
        local_of=[0] * n,
        current=0,
        hand=0,
        scores=totals,
        last_points=np.zeros(n, dtype=np.int64),
        last_finish=[],
        over=False,
    )
    _seat(party, seats)
    return party


def _global_names(message: str, members: list[int]) -> str:
    """Rewrite the engine's local ``player_{i}`` names in a message to global ids."""

    def name(match: re.Match[str]) -> str:
        local = int(match.group(1))
        return f"player_{members[local]}" if local < len(members) else match.group(0)

    return re.sub(r"player_(\d+)", name, message)


def _cut(players: list[int], sizes: tuple[int, ...]) -> list[list[int]]:
    out, start = [], 0
    for size in sizes:
        out.append(players[start : start + size])
        start += size
    return out


def _check_seating(seating: list[Any], sizes: tuple[int, ...], n: int) -> list[list[int]]:
    try:
        if seating and all(isinstance(x, list | tuple) for x in seating):
            seats = [[int(p) for p in table] for table in seating]
        else:
            seats = _cut([int(p) for p in seating], sizes)
    except (TypeError, ValueError):
        raise PresetError(f"preset seating must hold player indices, got {seating!r}") from None
    if [len(s) for s in seats] != list(sizes):
        raise PresetError(
            f"preset seating has tables of {[len(s) for s in seats]} players, "
            f"the config's tables seat {list(sizes)}"
        )
    if sorted(p for s in seats for p in s) != list(range(n)):
        raise PresetError(f"preset seating must list each of the {n} players once, got {seating!r}")
    return seats


def _seat(party: Party, seats: list[list[int]]) -> None:
    """Record each table's players (local index = role position at the deal)."""
    party.members = [list(s) for s in seats]
    for t, members in enumerate(seats):
        for i, player in enumerate(members):
            party.table_of[player] = t
            party.local_of[player] = i


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
        raise IllegalActionError(f"player_{party.to_act()}: illegal action {action}: {why}")
    return apply_unchecked(party, action)


def apply_unchecked(party: Party, action: int) -> np.ndarray | None:
    """Apply an action known to be legal; the hand's P8 points if it scored a hand."""
    t = party.current
    st = party.tables[t]
    E.apply_unchecked(st, action)
    if st.phase == E.OVER and all(x.phase == E.OVER for x in party.tables):
        return _end_hand(party)
    party.current = _next_table(party, t)
    return None


def _next_table(party: Party, t: int) -> int:
    """The next table after ``t`` (wrapping) whose hand is still in progress."""
    tables = party.tables
    count = len(tables)
    for step in range(1, count + 1):
        u = (t + step) % count
        if tables[u].phase != E.OVER:
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
    _seat(party, seating)
    party.current = 0
    if party.hand >= party.config.num_hands:
        party.over = True
        return points
    for st in party.tables:
        E.start_series(st, list(range(st.num_players)), trade=True)  # P4, P5
    return points


def standings(party: Party) -> list[int]:
    """1-based tournament rank of every player (ties share the better rank)."""
    scores = party.scores
    return [int((scores > scores[p]).sum()) + 1 for p in range(party.num_players)]


# --------------------------------------------------------------------------- search
def determinize(party: Party, player: int, rng: np.random.Generator) -> Party:
    """A copy of ``party`` consistent with what ``player`` knows (for search).

    At the player's own table the unseen hands are redealt with
    :func:`scum_env.knowledge.resample_hidden` (the forced *low* gifts of P5
    are not used as bounds there, which stays sound). Every other table is
    hidden from the player: its hands are pooled and redealt at random with the
    same hand sizes (played cards and the current trick kept). Every table
    gets a fresh generator from ``rng``, so later deals differ from the real ones.
    """
    out = clone(party)
    own = party.table_of[player]
    for t, st in enumerate(party.tables):
        if t == own:
            view = E.clone(st)
            # "low" steps (giver above receiver) give the lowest cards: no upper bound.
            view.trade_log = [
                (g, r, s, forced and st.pos[g] > st.pos[r]) for g, r, s, forced in st.trade_log
            ]
            copy = resample_hidden(view, party.local_of[player], rng)
            copy.trade_log = st.trade_log[:]
        else:
            copy = E.clone(st)
            copy.rng = np.random.default_rng(int(rng.integers(0, 2**63 - 1)))
            pool = np.repeat(np.arange(st.rules.num_slots), st.hands.sum(axis=0))
            pool = rng.permutation(pool)
            start = 0
            for q in range(st.num_players):
                take = pool[start : start + st.ncards[q]]
                copy.hands[q] = np.bincount(take, minlength=st.rules.num_slots)
                start += st.ncards[q]
        out.tables[t] = copy
    return out


# --------------------------------------------------------------------------- copies
def clone(party: Party) -> Party:
    """A deep copy sharing only the immutable config and rules."""
    return Party(
        config=party.config,
        tables=[E.clone(st) for st in party.tables],
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


def to_dict(party: Party) -> dict[str, Any]:
    """A JSON-ready dict of the tournament (table sizes and hand count kept, for checking)."""
    return {
        "sizes": list(party.config.sizes),
        "num_hands": party.config.num_hands,
        "tables": [E.to_dict(st) for st in party.tables],
        "members": [list(m) for m in party.members],
        "current": party.current,
        "hand": party.hand,
        "scores": party.scores.tolist(),
        "last_points": party.last_points.tolist(),
        "last_finish": [list(f) for f in party.last_finish],
        "over": party.over,
    }


def from_dict(config: PartyConfig, data: dict[str, Any]) -> Party:
    """Rebuild a tournament from :func:`to_dict`; StateError if it does not fit ``config``."""
    n, sizes = config.num_players, config.sizes
    try:
        if data["sizes"] != list(sizes) or data["num_hands"] != config.num_hands:
            raise StateError(
                f"Scum Party state was saved for tables {data['sizes']} and "
                f"{data['num_hands']} hands; this config has tables {list(sizes)} "
                f"and {config.num_hands} hands"
            )
        members = [[int(p) for p in m] for m in data["members"]]
        if [len(m) for m in members] != list(sizes) or len(data["tables"]) != len(sizes):
            raise StateError(f"Scum Party state has the wrong tables for sizes {list(sizes)}")
        if sorted(p for m in members for p in m) != list(range(n)):
            raise StateError(f"Scum Party state must seat each of the {n} players once")
        tables = [
            E.from_dict(table_rules(size), d) for size, d in zip(sizes, data["tables"], strict=True)
        ]
        party = Party(
            config=config,
            tables=tables,
            members=[],
            table_of=[0] * n,
            local_of=[0] * n,
            current=int(data["current"]),
            hand=int(data["hand"]),
            scores=np.asarray(data["scores"], dtype=np.int64),
            last_points=np.asarray(data["last_points"], dtype=np.int64),
            last_finish=[[int(p) for p in f] for f in data["last_finish"]],
            over=bool(data["over"]),
        )
    except StateError:
        raise
    except (KeyError, TypeError, ValueError) as err:
        raise StateError(f"corrupt Scum Party state: {type(err).__name__}: {err}") from None
    _seat(party, members)
    if party.scores.shape != (n,) or party.last_points.shape != (n,):
        raise StateError(f"corrupt Scum Party state: scores must hold {n} totals")
    if not 0 <= party.current < len(sizes) or not 0 <= party.hand <= config.num_hands:
        raise StateError("corrupt Scum Party state: current table or hand count out of range")
    if not party.over and party.tables[party.current].phase == E.OVER:
        raise StateError("corrupt Scum Party state: the table to act has finished its hand")
    return party


def to_json(party: Party) -> str:
    """The tournament as a JSON string (exact round trip with :func:`from_json`)."""
    return json.dumps(to_dict(party), separators=(",", ":"))


def from_json(config: PartyConfig, text: str) -> Party:
    """Rebuild a tournament from :func:`to_json`; StateError if corrupt."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError) as err:
        raise StateError(f"Scum Party state is not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise StateError("Scum Party state JSON must be an object")
    return from_dict(config, data)
