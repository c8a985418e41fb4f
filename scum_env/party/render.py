"""Text views of a Scum Party: one table at a time, and the ladder."""

from __future__ import annotations

from cardsuite.rgb import cards_word
from scum_env.party.engine import Party, standings
from scum_env.render import seat_notes
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
        gained = f"  (+{int(party.last_points[p])})" if party.hand else ""
        if party.hand and party.last_points[p] < 0:
            gained = f"  ({int(party.last_points[p])})"
        lines.append(
            f"  #{rank[p]:<3} player_{p:<3} total {int(party.scores[p]):>4}  "
            f"table {t + 1} {role}{gained}"
        )
    return "\n".join(lines)
