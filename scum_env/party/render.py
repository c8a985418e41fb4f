"""Scum Party as text (one table at a time, and the ladder), as a table model (the acting
table, every table, the ladder) and as an RGB image."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.rgb import cards_word, draw_table, expand
from scum_env.party.engine import Party, standings
from scum_env.render import seat_models, seat_notes
from scum_env.state import OVER


def render_table(party: Party, table: int, *, show_hands: bool = True) -> str:
    """One table as text: seats King first, cards, the top play, the turn."""
    st = party.tables[table]
    rules = st.rules
    members = party.members[table]
    acting = not party.over and party.current == table and st.phase != OVER
    status = "hand over" if st.phase == OVER else "trick in play"
    lines = [
        f"Table {table + 1} of {len(party.tables)} — hand {min(party.hand + 1, party.config.num_hands)}"
        f" of {party.config.num_hands}, {rules.num_players} players, {rules.num_decks} decks, {status}"
        + (f", player_{members[st.to_act]} to act" if acting else "")
    ]
    for position, q in enumerate(st.order):
        marks = seat_notes(st, q)
        if acting and q == st.to_act:
            marks.append("<- to act")
        hand = rules.cards.describe(st.hands[q]) if show_hands else ""
        player = members[q]
        lines.append(
            f"  {rules.role_of(position):<15} player_{player:<3} {cards_word(st.ncards[q]):>9}  "
            f"total {int(party.scores[player]):>4}  {hand}  {' '.join(marks)}".rstrip()
        )
    if st.top_count:
        lines.append(
            f"  top play: {rules.cards.describe(st.top_cards)} by player_{members[st.top_player]}"
        )
    elif st.phase != OVER:
        lines.append(f"  player_{members[st.to_act]} leads")
    else:
        order = ", ".join(f"player_{members[q]}" for q in st.finish)
        lines.append(f"  finish order: {order}")
    return "\n".join(lines)


def render_ladder(party: Party) -> str:
    """The tournament standings: every player's total, table and seat (P7, P8)."""
    rank = standings(party)
    done = (
        "tournament over"
        if party.over
        else f"{party.hand} of {party.config.num_hands} hands scored"
    )
    lines = [f"Ladder — {done}"]
    by_rank = sorted(range(party.num_players), key=lambda p: (rank[p], p))
    for p in by_rank:
        t, position = party.seat_of(p)
        role = party.tables[t].rules.role_of(position)
        gained = f"  ({int(party.last_points[p]):+d})" if party.hand else ""
        lines.append(
            f"  #{rank[p]:<3} player_{p:<3} total {int(party.scores[p]):>4}  "
            f"table {t + 1} {role}{gained}"
        )
    return "\n".join(lines)


LEGEND = (
    "Cards, low to high: 2 ... 10, J = Jack, Q = Queen, K = King, A = Ace, "
    "JK = Joker (beats any play; nothing beats it); suits do not matter"
)


def table_seats(party: Party, table: int, *, hands: bool = True) -> list[dict[str, Any]]:
    """The seats of one table, King first, with role, cards and tournament total."""
    st = party.tables[table]
    members = party.members[table]
    acting = not party.over and party.current == table and st.phase != OVER
    players = [f"player_{p}" for p in members]
    return seat_models(st, players, "total", party.scores[members], acting, hands)


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
    elif st.phase == OVER:
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
