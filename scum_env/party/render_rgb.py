"""Scum Party as a table model (the acting table, every table, the ladder) and as an RGB image."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.rgb import draw_table, expand
from scum_env import engine as E
from scum_env.party.engine import Party, standings
from scum_env.render import seat_notes

LEGEND = (
    "Cards, low to high: 2 ... 10, J = Jack, Q = Queen, K = King, A = Ace, "
    "JK = Joker (beats any play; nothing beats it); suits do not matter"
)


def table_seats(party: Party, table: int, *, hands: bool = True) -> list[dict[str, Any]]:
    """The seats of one table, King first, with role, cards and tournament total."""
    st = party.tables[table]
    rules = st.rules
    members = party.members[table]
    acting = not party.over and party.current == table and st.phase != E.OVER
    seats = []
    for position, q in enumerate(st.order):
        notes = seat_notes(st, q)
        player = members[q]
        seats.append(
            {
                "name": f"player_{player}",
                "role": rules.role_of(position),
                "position": position,
                "count": int(st.ncards[q]),
                "cards": expand(rules.cards.names, st.hands[q]) if hands else None,
                "score": f"total {int(party.scores[player])}",
                "notes": notes,
                "to_act": acting and q == st.to_act,
            }
        )
    return seats


def ladder(party: Party, previous: list[int] | None = None) -> list[dict[str, Any]]:
    """Every player by standing (P7, P8): total, table, role, last hand's points, move.

    ``previous`` (each player's table before the last hand) marks promotions
    (``"up"``) and relegations (``"down"``).
    """
    rank = standings(party)
    rows = []
    for p in sorted(range(party.num_players), key=lambda p: (rank[p], p)):
        t = party.table_of[p]
        moved = ""
        if previous is not None and previous[p] != t:
            moved = "up" if t < previous[p] else "down"
        rows.append(
            {
                "rank": int(rank[p]),
                "name": f"player_{p}",
                "total": int(party.scores[p]),
                "table": t + 1,
                "role": party.tables[t].rules.role_of(party.position(p)),
                "gained": int(party.last_points[p]) if party.hand else None,
                "moved": moved,
            }
        )
    return rows


def table_model(
    party: Party, *, hands: bool = True, previous: list[int] | None = None
) -> dict[str, Any]:
    """The acting table in full, a summary of every table, and the ladder."""
    t = party.current
    st = party.tables[t]
    members = party.members[t]
    names = st.rules.cards.names
    piles = []
    if st.top_count:
        who = f"player_{members[st.top_player]}"
        piles.append(
            {
                "title": f"Top play by {who}",
                "cards": [{"text": c, "by": who} for c in expand(names, st.top_cards)],
            }
        )
    lines = []
    if party.over:
        lines.append("Tournament over")
    elif st.phase == E.OVER:
        lines.append(
            "Hand over at this table; finish order: "
            + ", ".join(f"player_{members[q]}" for q in st.finish)
        )
    elif not st.top_count:
        lines.append(f"player_{members[st.to_act]} leads")
    hand = min(party.hand + 1, party.config.num_hands)
    title = (
        f"Scum Party — hand {hand} of {party.config.num_hands}, table {t + 1} of "
        f"{len(party.tables)} ({st.rules.num_players} players, {st.rules.num_decks} decks)"
    )
    tables = [
        {
            "title": f"Table {i + 1}",
            "seats": [
                {k: s[k] for k in ("name", "role", "count", "score", "notes", "to_act")}
                for s in table_seats(party, i, hands=False)
            ],
        }
        for i in range(len(party.tables))
    ]
    return {
        "game": "scum_party",
        "title": title,
        "table": t + 1,
        "seats": table_seats(party, t, hands=hands),
        "piles": piles,
        "lines": lines,
        "legend": LEGEND,
        "tables": tables,
        "ladder": ladder(party, previous),
    }


def render_rgb(env: Any) -> np.ndarray:
    """``uint8[H, W, 3]`` picture of the acting table and the top of the ladder."""
    return draw_table(table_model(env.unwrapped.game))
