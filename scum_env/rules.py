"""Compiled rules of one climbing-game table, and the action table.

`Rules` turns a config into the numbers the engine runs on: card slots,
deck, trade steps, round-ending cards and the action layout. The 4J Scum rules
(`scum_rules`) and Scum Party's table rules share this structure, so the
engine in [`scum_env.engine`][scum_env.engine] plays both. The action ids (pass,
then plays by count and best slot, then give-backs) are tabled on the env page
(`scum_env.scum_v0`, ``docs/scum.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Literal, NamedTuple

import numpy as np

from scum_env.cards import CardSystem, scum_cards
from scum_env.config import ScumConfig

TradeKind = Literal["high", "low", "choice"]


class ActionKind(IntEnum):
    """What an action id does (the action table of `scum_env.scum_v0`)."""

    PASS = 0
    PLAY = 1
    GIVE = 2
    INVALID = 3  # outside 0 .. num_actions - 1


class Action(NamedTuple):
    """An action id decoded: its kind, the cards it moves and their (best) slot."""

    kind: ActionKind
    size: int  # cards played (PLAY), 1 (GIVE), 0 (PASS, INVALID)
    slot: int  # best card slot (PLAY), card slot (GIVE), -1 (PASS, INVALID)


_INVALID = Action(ActionKind.INVALID, 0, -1)


@dataclass(frozen=True)
class TradeStep:
    """One step of the trades (J5, P5), by role position (0 = top, -1 = bottom).

    ``high``/``low``: the giver's highest/lowest ``count`` cards move at once
    (forced, done by the engine); ``choice``: the giver picks ``count`` cards,
    one decision each.
    """

    kind: TradeKind
    giver: int
    receiver: int
    count: int


@dataclass(frozen=True, eq=False)
class Rules:
    """Everything the engine needs to know about one table's rules."""

    num_players: int
    cards: CardSystem
    num_decks: int
    carousel: bool
    colour_mode: bool
    ends_round: np.ndarray
    trades: tuple[TradeStep, ...]
    deal_from_bottom: bool
    lead_after_out: Literal["next", "highest"]
    role_names: tuple[str, ...]
    episode: Literal["series", "game"] = "series"
    target: int = 40
    reward: Literal["points", "centered"] = "points"

    def __post_init__(self) -> None:
        """Derive the action layout and lookup tables."""
        k = self.cards.size
        per_rank = np.bincount(self.cards.rank, weights=self.cards.per_deck).astype(int)
        max_count = int(per_rank.max()) * self.num_decks
        has_choice = any(t.kind == "choice" for t in self.trades)
        object.__setattr__(self, "num_slots", k)
        object.__setattr__(self, "max_count", max_count)
        object.__setattr__(self, "give_base", 1 + max_count * k)
        object.__setattr__(self, "num_actions", 1 + max_count * k + (k if has_choice else 0))
        object.__setattr__(self, "deck", self.cards.per_deck.astype(np.int16) * self.num_decks)
        object.__setattr__(self, "deck_size", int(self.deck.sum()))
        object.__setattr__(self, "count_col", np.arange(1, max_count + 1, dtype=np.int16)[:, None])
        object.__setattr__(self, "special_slots", np.flatnonzero(self.cards.special))
        object.__setattr__(self, "slot_list", np.repeat(np.arange(k), self.deck))
        decoded = [Action(ActionKind.PASS, 0, -1)]
        decoded += [
            Action(ActionKind.PLAY, c, s) for c in range(1, max_count + 1) for s in range(k)
        ]
        decoded += [Action(ActionKind.GIVE, 1, s) for s in range(self.num_actions - len(decoded))]
        object.__setattr__(self, "_decoded", tuple(decoded))

    # derived in __post_init__
    num_slots: int = field(init=False)
    max_count: int = field(init=False)
    give_base: int = field(init=False)
    num_actions: int = field(init=False)
    deck: np.ndarray = field(init=False, repr=False)
    deck_size: int = field(init=False)
    count_col: np.ndarray = field(init=False, repr=False)
    special_slots: np.ndarray = field(init=False, repr=False)
    slot_list: np.ndarray = field(init=False, repr=False)
    _decoded: tuple[Action, ...] = field(init=False, repr=False)

    def decode(self, action: int) -> Action:
        """The one decode step of an action id, shared by the engine and `describe_action`."""
        if 0 <= action < self.num_actions:
            return self._decoded[action]
        return _INVALID

    def role_of(self, position: int) -> str:
        """Role name of a role position (0 = top of the table)."""
        return self.role_names[role_index(position, self.num_players)]

    def role_index(self, position: int) -> int:
        """Index 0..4 of the role (top, second, middle, second-to-last, last)."""
        return role_index(position, self.num_players)

    def describe_action(self, action: int) -> str:
        """Plain words for an action id."""
        kind, c, s = self.decode(action)
        if kind == ActionKind.PASS:
            return "pass"
        if kind == ActionKind.PLAY:
            name = self.cards.names[s]
            if self.colour_mode and c > 1:
                return f"play {c} cards of rank {self.cards.long_names[s].split(' ', 1)[-1]} (best {name})"
            return f"play {name}" if c == 1 else f"play {c}x{name}"
        if kind == ActionKind.GIVE:
            return f"give back {self.cards.names[s]}"
        return f"action {action} (out of range 0..{self.num_actions - 1})"

    def play_action(self, count: int, slot: int) -> int:
        """Action id of playing ``count`` cards whose best card is ``slot``."""
        return 1 + (count - 1) * self.num_slots + slot

    def give_action(self, slot: int) -> int:
        """Action id of giving back one card of ``slot``."""
        return self.give_base + slot


SCUM_ROLES = ("President", "Vice President", "Middle Class", "Next to Scum", "Scum")


def role_index(position: int, size: int) -> int:
    """Role 0..4 (top, second, middle, second-to-last, last) of a seat at a table of ``size``."""
    if position < 2:
        return position
    return max(2, 4 - (size - 1 - position))  # the last seat 4, the one before 3


def scum_trades(num_players: int, trade_rules: str) -> tuple[TradeStep, ...]:
    """The J5 trade steps for a player count and ``trade_rules``."""
    if num_players == 4:
        return (TradeStep("high", -1, 0, 1), TradeStep("choice", 0, -1, 1))
    second_giver = -2 if trade_rules == "english" else -1
    return (
        TradeStep("high", -1, 0, 2),
        TradeStep("choice", 0, -1, 2),
        TradeStep("high", second_giver, 1, 1),
        TradeStep("choice", 1, second_giver, 1),
    )


def scum_rules(config: ScumConfig) -> Rules:
    """Compile a `ScumConfig` into table rules (J1–J9)."""
    cards = scum_cards(config.color_clash)
    ends = cards.rank == 13  # a Wild President can never be beaten (J7)
    president = cards.rank == 12
    if not config.wild_queen:
        if config.color_clash:
            # J9: a higher coloured President beats a lower one; only Red ends the round.
            ends = ends | (president & (cards.colour == 3))
        else:
            ends = ends | president
    return Rules(
        num_players=config.num_players,
        cards=cards,
        num_decks=config.num_decks,
        carousel=config.carousel,
        colour_mode=config.color_clash,
        ends_round=ends,
        trades=scum_trades(config.num_players, config.trade_rules),
        deal_from_bottom=False,
        lead_after_out="next",
        role_names=SCUM_ROLES,
        episode=config.episode,
        target=config.target,
        reward=config.reward,
    )
