"""Scum Party cards and per-table rules (P1, P3–P6).

Standard 52-card decks plus two Jokers each; suits never matter (P1), so a
slot is a rank: ``2 .. 10, J, Q, K, A, JK`` (suit-letter aliases such as
``AS``, ``10H``, ``JOKER`` are accepted). `party_rules` compiles the `Rules`
of a table of a given size (decks by size P1, trades P5, the deal from the
Scum P4, the lead after a player goes out P6, role names P3).
"""

from __future__ import annotations

from scum_env.cards import CardSystem, rank_cards
from scum_env.rules import Rules, TradeStep

RANK_LABELS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JK")
RANK_NAMES = (
    "2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King", "Ace", "Joker",
)  # fmt: skip
SUITS = ("S", "H", "D", "C")
JOKER = 13
PARTY_ROLES = ("King", "Assistant King", "Commoner", "Assistant Scum", "Scum")
MIN_TABLE, MAX_TABLE = 5, 15
HUGE_TARGET = 10**12  # a table never ends a "game": the tournament counts hands (P8)

# P5: Scum's two highest to the King, the King's two lowest back (after receiving);
# the Assistant Scum's highest to the Assistant King, the Assistant King's lowest back.
PARTY_TRADES = (
    TradeStep("high", -1, 0, 2),
    TradeStep("low", 0, -1, 2),
    TradeStep("high", -2, 1, 1),
    TradeStep("low", 1, -2, 1),
)


def party_cards() -> CardSystem:
    """The 14 rank slots of a standard deck with Jokers (P1)."""
    aliases: dict[str, int] = {}
    for slot, label in enumerate(RANK_LABELS[:-1]):
        aliases[label] = slot
        for suit in SUITS:
            aliases[label + suit] = slot
            aliases[suit + label] = slot
    for slot, label in ((8, "T"), (JOKER, "JOKER"), (JOKER, "JO"), (JOKER, "*")):
        aliases[label] = slot
    aliases["JK"] = JOKER
    return rank_cards(RANK_LABELS, RANK_NAMES, aliases, top=JOKER)  # nothing beats a Joker (P1)


CARDS = party_cards()


def decks_for(table_size: int) -> int:
    """Decks at a table of ``table_size`` players (P1): 5–8: 2, 9–12: 3, 13–15: 4."""
    return 2 + (table_size > 8) + (table_size > 12)


def party_rules(table_size: int) -> Rules:
    """The compiled rules of one Scum Party table of ``table_size`` players."""
    return Rules(
        num_players=table_size,
        cards=CARDS,
        num_decks=decks_for(table_size),
        carousel=False,
        colour_mode=False,
        ends_round=CARDS.ends_round,
        trades=PARTY_TRADES,
        deal_from_bottom=True,  # P4: the Scum deals from itself upwards
        lead_after_out="highest",  # P6
        role_names=PARTY_ROLES,
        episode="series",
        target=HUGE_TARGET,
    )
