"""What each seat sees: the table in ``cardsuite play`` (read from its own observation only;
per-player entries relative: ``you``, then ``+1``, ``+2``... in turn order) and the move log.

All moves are public but a Scum give-back (J5): only its giver and receiver read the card, as
their observations show it; the others "give back a card".
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.parts import PARTS, part
from cardsuite.games import game_of_env
from cardsuite.rgb import cards_word

#: The entries of an agent's final ``info`` that the end of a game shows.
RESULT_KEYS = ("finish_position", "role", "points", "score")


def table_view(table: TableInfo, observation: np.ndarray, names: list[str] | None = None) -> str:
    """The person's view: the game's ``view`` part; ``names`` (`relative_names`) label the others."""
    if table.game in PARTS:  # scum_view, party_view, scandal_view
        return str(part(table.game, "view")(table, observation, names))
    return _generic_view(table, observation)


def _label(i: int, names: list[str] | None) -> str:
    """Relative seat ``i`` as the table shows it: ``you``, ``player_2`` (or ``+2``)."""
    return "you" if i == 0 else names[i] if names else f"+{i}"


def _climb_lines(
    v: dict[str, np.ndarray],
    cards: Any,
    roles: list[str],
    scores: list[str],
    names: list[str] | None,
) -> list[str]:
    """Scum and Scum Party: hand, top play, trade and the players (``roles``) in turn order."""
    n = len(roles)
    hand = v["hand"].astype(int)
    lines = [f"Your hand ({cards_word(int(hand.sum()))}): {cards.describe(hand)}"]
    if "give_backs_left" in v and v["phase"][0]:
        lines.append("Trade: give back a card of your choice (J5).")
    elif v["top_cards"].any():
        by = int(np.argmax(v["top_player"]))
        who = "you" if by == 0 else f"{roles[by]} ({_label(by, names)})"
        lines.append(f"Top play: {cards.describe(v['top_cards'].astype(int))} by {who}")
    else:
        lines.append("You lead: play any set of equal cards.")
    if v["trade_given"].any() or v["trade_received"].any():
        lines.append(
            f"This deal's trade: you gave {cards.describe(v['trade_given'].astype(int))}, "
            f"received {cards.describe(v['trade_received'].astype(int))}"
        )
    lines.append("Players in turn order from you:")
    width = max([4, *(len(x) for x in names or [])])
    finish = v["finish_rank"]
    for i in range(n):
        who = _label(i, names)
        marks = []
        if finish[i] > 0:
            marks.append(f"out #{round(float(finish[i]) * n)}")
        if v["passed"][i]:
            marks.append("passed")
        lines.append(
            f"  {who:<{width}} {roles[i]:<15} {cards_word(int(v['cards_left'][i])):>9}  "
            f"{scores[i]}  {' '.join(marks)}".rstrip()
        )
    return lines


def scum_view(table: TableInfo, obs: np.ndarray, names: list[str] | None) -> str:
    """The Scum table as ``table``'s player sees it (the record's ``view`` part)."""
    from scum_env.rules import SCUM_ROLES, scum_rules

    config: Any = table.config
    cards = scum_rules(config).cards
    v = table.obs_spec.views(obs)
    n = len(v["cards_left"])
    roles = [SCUM_ROLES[r] for r in v["roles"].reshape(n, -1).argmax(axis=1)]
    scores = [f"score {round(float(s) * config.target):>3}" for s in v["scores"]]
    head = ["", f"=== {table.agent}, {roles[0]}, to act ==="]
    return "\n".join(head + _climb_lines(v, cards, roles, scores, names))


def party_view(table: TableInfo, obs: np.ndarray, names: list[str] | None) -> str:
    """The Scum Party table as ``table``'s player sees it (the record's ``view`` part)."""
    from scum_env.party.cards import PARTY_ROLES
    from scum_env.party.encoding import score_scale
    from scum_env.party.engine import action_rules

    config: Any = table.config
    cards = action_rules(config).cards
    v = table.obs_spec.views(obs)
    n = round(float(v["table_size"][0]) * 15)
    roles = [PARTY_ROLES[r] for r in v["roles"].reshape(len(v["seats"]), -1)[:n].argmax(axis=1)]
    scale = score_scale(config)
    totals = [f"total {round(float(s) * scale):>3}" for s in v["table_scores"][:n]]
    tables = round(float(v["num_tables"][0]) * 10)
    own_table = int(np.argmax(v["table"])) + 1
    head = [
        "",
        f"=== {table.agent}, {roles[0]} at table {own_table} of {tables} ({n} players), to act ===",
        f"Tournament: your total {round(float(v['score'][0]) * scale)} after "
        f"{round(float(v['hands_done'][0]) * config.num_hands)} of {config.num_hands} hands; "
        f"{round(float(v['standing'][0]) * (config.num_players - 1))} players ahead of you",
    ]
    return "\n".join(head + _climb_lines(v, cards, roles, totals, names))


def scandal_view(table: TableInfo, obs: np.ndarray, names: list[str] | None) -> str:
    """The Scandal table as ``table``'s player sees it (the record's ``view`` part)."""
    from scandal_env.engine import make_rules

    config: Any = table.config
    deck = make_rules(config).deck
    v = table.obs_spec.views(obs)
    n = len(v["hand_sizes"])

    def card(c: int) -> str:
        kind = "gold" if deck.is_gold[c] else deck.colours[c]
        scandals = ", ".join(deck.scandal_names[s] for s in np.flatnonzero(deck.member[c]))
        return f"{deck.names[c]} ({kind} {int(deck.value[c])}; {scandals})"

    who = partial(_label, names=names)
    width = max([4, *(len(x) for x in names or [])])

    phase = ["draw", "meld, lay off or discard", "finish the meld under way"]
    hand = np.flatnonzero(v["hand"])
    lines = [
        "",
        f"=== {table.agent} to act (Scandal), {phase[int(np.argmax(v['phase']))]} ===",
        f"Your hand ({cards_word(hand.size)}):",
        *(f"  {card(int(c))}" for c in hand),
    ]
    pile = np.flatnonzero(v["discard_in"])
    if pile.size:
        order = pile[np.argsort(v["discard_depth"][pile], kind="stable")]
        top = np.flatnonzero(v["discard_top"])
        if top.size:
            order = np.concatenate([top, order[order != top[0]]])
        shown = "; ".join(deck.names[int(c)] for c in order)
        lines.append(f"Discard pile, top first ({pile.size}): {shown}")
    else:
        lines.append("Discard pile: empty")
    stock = round(float(v["stock_size"][0]) * deck.n_cards)
    lines.append(
        f"Stock: {cards_word(stock)}" + (" (the turned-over pile)" if v["stock_public"][0] else "")
    )
    laid = v["laid_by"].reshape(n, -1) > 0
    melded = v["melded_by"].reshape(n, -1) > 0
    single = ~deck.is_gold
    for s in np.flatnonzero(melded.any(axis=0)):
        owner = who(int(np.argmax(melded[:, s])))
        on_table = [
            f"{deck.names[int(c)]} [{who(i)}]"
            for i in range(n)
            for c in np.flatnonzero(laid[i] & deck.member[:, s] & single)
        ]
        lines.append(f"Meld {deck.scandal_names[s]} (melded by {owner}): {'; '.join(on_table)}")
    gold = [
        f"{deck.names[int(c)]} [{who(i)}]"
        for i in range(n)
        for c in np.flatnonzero(laid[i] & deck.is_gold)
    ]
    if gold:
        lines.append(f"Gold cards laid off (each on one of its scandals, S6): {'; '.join(gold)}")
    building = np.flatnonzero(v["building"])
    if building.size:
        lines.append("Your meld under way: " + "; ".join(deck.names[int(c)] for c in building))
    duty = np.flatnonzero(v["duty"])
    if duty.size:
        lines.append(f"You must meld or lay off {deck.names[int(duty[0])]} this turn (S3).")
    forbidden = np.flatnonzero(v["forbidden"])
    if forbidden.size:
        lines.append(f"You may not discard {deck.names[int(forbidden[0])]} this turn (S7).")
    for i in range(n):
        known = np.flatnonzero(v["opp_known"][i]) if i else np.array([], dtype=int)
        extra = f"; holds {', '.join(deck.names[int(c)] for c in known)}" if known.size else ""
        lines.append(
            f"  {who(i):<{width}} {cards_word(round(float(v['hand_sizes'][i]) * deck.n_cards)):>9}  "
            f"score {round(float(v['scores'][i]) * config.target_score):>4}  "
            f"this hand {round(float(v['hand_points'][i]) * 100):>4}{extra}"
        )
    return "\n".join(lines)


def _generic_view(table: TableInfo, obs: np.ndarray) -> str:
    """Any other game: each named piece of the observation with its non-zero entries."""
    lines = ["", f"=== {table.agent} to act ({table.game}) ==="]
    for name, values in table.obs_spec.views(obs).items():
        nonzero = np.flatnonzero(values)
        if nonzero.size == 0:
            continue
        shown = ", ".join(f"[{i}]={values[i]:g}" for i in nonzero[:20])
        more = f" (+{nonzero.size - 20} more)" if nonzero.size > 20 else ""
        lines.append(f"  {name}: {shown}{more}")
    return "\n".join(lines)


def table_marker(env: Any) -> tuple[int, ...]:
    """What `round_note` compares: the acting table's top play, phase and hand."""
    state = env.unwrapped.game
    if hasattr(state, "tables"):  # Scum Party
        st = state.tables[state.current]
        return (state.current, int(st.top_count), int(st.phase), int(state.hand))
    if hasattr(state, "top_count"):  # Scum
        return (0, int(state.top_count), int(state.phase), int(state.series))
    if hasattr(state, "hand_number"):  # Scandal
        return (0, 0, int(state.hand_over), int(state.hand_number))
    return (0, 0, 0, 0)


def round_note(env: Any, before: tuple[int, ...]) -> str | None:
    """A line for the log when a move ends a round, hand or series (``before``: `table_marker`)."""
    state = env.unwrapped.game
    table, _top, phase, hand = before
    if hasattr(state, "tables"):  # Scum Party
        if state.hand > hand:
            return (
                f"hand {state.hand} scored at every table; players move up and down "
                "the tables (P7)" + ("; the tournament is over" if state.over else "")
            )
        st = state.tables[table]
        if not st.top_count and int(st.phase) == phase == 1:  # Phase.PLAY: a trick ended
            return f"table {table + 1}: trick over; player_{state.members[table][st.to_act]} leads"
        return None
    if hasattr(state, "top_count"):  # Scum
        if state.series != hand:
            return f"series {hand} over; series {state.series} begins"
        if int(state.phase) != phase and int(state.phase) == 2:  # Phase.OVER
            order = ", ".join(f"player_{p}" for p in state.finish)
            return f"series over; finish order: {order}"
        if not state.top_count and int(state.phase) == phase == 1:  # Phase.PLAY: a round ended
            return f"round over; player_{state.to_act} leads"
        return None
    if hasattr(state, "hand_number") and state.hand_over and not phase:  # Scandal
        return f"hand over ({state.hand_end})"
    return None


def relative_names(env: Any, agent: str) -> list[str]:
    """The players in ``agent``'s relative turn order (itself first), by their public names."""
    state = env.unwrapped.game
    me = int(agent.rpartition("_")[2])
    if hasattr(state, "tables"):  # Scum Party: the player's own table
        t, local = state.table_of[me], state.local_of[me]
        st = state.tables[t]
        n = st.rules.num_players
        return [f"player_{state.members[t][st.order[(st.pos[local] + i) % n]]}" for i in range(n)]
    if hasattr(state, "order"):  # Scum: turn order is role order
        n = len(state.order)
        return [f"player_{state.order[(state.pos[me] + i) % n]}" for i in range(n)]
    n = len(env.possible_agents)
    return [env.possible_agents[(me + i) % n] for i in range(n)]


def legend(env: Any) -> str:
    """The game's card legend (``S = Scum ...``), from its record's ``rgb`` part; "" if none."""
    game = game_of_env(env)
    return str(getattr(game.part("rgb"), "LEGEND", "")) if game.has("rgb") else ""


@dataclass(frozen=True)
class Move:
    """One move: ``text`` for ``seen_by`` (everyone if empty), ``public`` for the others."""

    number: int
    agent: str
    action: int
    text: str
    public: str
    seen_by: frozenset[str] = frozenset()
    note: str | None = None

    @property
    def private(self) -> bool:
        """Whether some seats read less than the full text."""
        return bool(self.seen_by)

    def line(self, seat: str | None) -> str:
        """The move's words for ``seat`` (``None``: a spectator, who reads everything)."""
        if seat is None or not self.seen_by or seat in self.seen_by:
            return self.text
        return self.public

    def entry(self, seat: str | None) -> dict[str, Any]:
        """The log entry a page shows ``seat``: ``{"n", "who", "text"[, "note"]}``."""
        out: dict[str, Any] = {"n": self.number, "who": self.agent, "text": self.line(seat)}
        if self.note:
            out["note"] = self.note
        return out


def step(env: Any, agent: str, action: int, number: int) -> Move:
    """Apply ``action`` of ``agent`` to ``env`` and return the logged move."""
    base = env.unwrapped
    text = base.describe_action(int(action))
    before = table_marker(env)
    give = _is_give_back(base, int(action))
    count = len(_trades(base.game, before[0])) if give else 0
    env.step(int(action))
    note = round_note(env, before)
    if not give:
        return Move(number, agent, int(action), text, text, frozenset(), note)
    me = int(agent.rpartition("_")[2])
    new = _trades(base.game, before[0])[count:]
    receiver = next((f"player_{r}" for g, r, forced in new if g == me and not forced), None)
    seen = frozenset({agent} if receiver is None else {agent, receiver})
    public = "give back a card" + (f" (to {receiver})" if receiver else "")
    return Move(number, agent, int(action), text, public, seen, note)


def _is_give_back(base: Any, action: int) -> bool:
    """Whether ``action`` is a J5 give-back chosen by the player (Scum rules only)."""
    decode = getattr(getattr(base, "rules", None), "decode", None)
    if decode is None:
        return False
    from scum_env.rules import ActionKind

    return bool(decode(action)[0] == ActionKind.GIVE)


def _trades(state: Any, table: int) -> list[tuple[int, int, bool]]:
    """The table's trade log as ``(giver, receiver, forced)`` players."""
    if hasattr(state, "tables"):  # Scum Party: the table's members by their global seats
        members = list(state.members[table])
        log = getattr(state.tables[table], "trade_log", ())
        return [(members[g], members[r], forced) for g, r, _slot, forced in log]
    return [(g, r, forced) for g, r, _slot, forced in getattr(state, "trade_log", ())]
