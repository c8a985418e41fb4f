"""Shared helpers of the Scum Party tests: scripted parties and random play."""

from __future__ import annotations

import numpy as np

from scum_env import engine as E
from scum_env.party import engine as PE
from scum_env.party.cards import CARDS
from scum_env.party.config import PartyConfig


def act(party: PE.Party, name: str, count: int = 1) -> None:
    """The player to act plays ``count`` cards of rank ``name`` (``"pass"`` passes)."""
    rules = party.tables[party.current].rules
    action = 0 if name == "pass" else rules.play_action(count, CARDS.slot(name))
    PE.apply(party, action)


def hand_of(party: PE.Party, player: int) -> str:
    """Readable hand of a global player."""
    st = party.tables[party.table_of[player]]
    return CARDS.describe(st.hands[party.local_of[player]])


def play_random_hand(party: PE.Party, rng: np.random.Generator) -> np.ndarray:
    """Random legal play until the next hand is scored; returns its points."""
    while True:
        legal = np.flatnonzero(PE.legal_mask(party))
        points = PE.apply(party, int(rng.choice(legal)))
        if points is not None:
            return points


def conserved(st: E.State) -> bool:
    """Cards in hands plus cards played equal the table's decks (P1)."""
    return bool(np.array_equal(st.hands.sum(axis=0) + st.played, st.rules.deck))


def config(n: int, sizes: str | None = None, **kw: object) -> PartyConfig:
    """A party config of ``n`` players (optionally fixed table sizes)."""
    return PartyConfig(num_players=n, table_sizes=sizes, **kw)  # type: ignore[arg-type]
