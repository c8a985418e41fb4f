"""What a person sees at the table in ``cardsuite play``, built from their observation.

Every view reads only the player's own observation (through the env's named
``obs_spec`` views) and the game's public card names: never another
player's hidden cards. Per-player entries are relative: ``you``, then ``+1``,
``+2``... in turn order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo


def table_view(table: TableInfo, observation: np.ndarray) -> str:
    """The person's view of the table (Scum, Scum Party or Scandal)."""
    if table.game == "scum":
        return _scum_view(table, observation)
    if table.game == "scum_party":
        return _party_view(table, observation)
    if table.game == "scandal":
        return _scandal_view(table, observation)
    return _generic_view(table, observation)


def _climb_lines(
    v: dict[str, np.ndarray], cards: Any, roles: list[str], n: int, scores: list[str]
) -> list[str]:
    """Scum and Scum Party: hand, top play, trade and the players in turn order."""
    hand = v["hand"].astype(int)
    lines = [f"Your hand ({hand.sum()} cards): {cards.describe(hand)}"]
    phase = v["phase"]
    if "give_backs_left" in v and phase[0]:
        lines.append("Trade: give back a card of your choice (J5).")
    elif v["top_cards"].any():
        by = int(np.argmax(v["top_player"]))
        who = "you" if by == 0 else f"{roles[by]} (+{by})"
        lines.append(f"Top play: {cards.describe(v['top_cards'].astype(int))} by {who}")
    else:
        lines.append("You lead: play any set of equal cards.")
    if v["trade_given"].any() or v["trade_received"].any():
        lines.append(
            f"This deal's trade: you gave {cards.describe(v['trade_given'].astype(int))}, "
            f"received {cards.describe(v['trade_received'].astype(int))}"
        )
    lines.append("Players in turn order from you:")
    finish = v["finish_rank"]
    for i in range(n):
        who = "you" if i == 0 else f"+{i}"
        marks = []
        if finish[i] > 0:
            marks.append(f"out #{round(float(finish[i]) * n)}")
        if v["passed"][i]:
            marks.append("passed")
        lines.append(
            f"  {who:<4} {roles[i]:<15} {int(v['cards_left'][i]):>3} cards  "
            f"{scores[i]}  {' '.join(marks)}".rstrip()
        )
    return lines


def _scum_view(table: TableInfo, obs: np.ndarray) -> str:
    from scum_env.rules import SCUM_ROLES, scum_rules

    config: Any = table.config
    cards = scum_rules(config).cards
    v = table.obs_spec.views(obs)
    n = len(v["cards_left"])
    roles = [SCUM_ROLES[r] for r in v["roles"].reshape(n, -1).argmax(axis=1)]
    scores = [f"score {round(float(s) * config.target):>3}" for s in v["scores"]]
    head = ["", f"=== {table.agent}, {roles[0]}, to act ==="]
    return "\n".join(head + _climb_lines(v, cards, roles, n, scores))


def _party_view(table: TableInfo, obs: np.ndarray) -> str:
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
    return "\n".join(head + _climb_lines(v, cards, roles, n, totals))


def _scandal_view(table: TableInfo, obs: np.ndarray) -> str:
    from scandal_env.engine import make_rules

    config: Any = table.config
    deck = make_rules(config).deck
    v = table.obs_spec.views(obs)
    n = len(v["hand_sizes"])

    def card(c: int) -> str:
        kind = "gold" if deck.is_gold[c] else deck.colours[c]
        scandals = ", ".join(deck.scandal_names[s] for s in np.flatnonzero(deck.member[c]))
        return f"{deck.names[c]} ({kind} {int(deck.value[c])}; {scandals})"

    def who(i: int) -> str:
        return "you" if i == 0 else f"+{i}"

    phase = ["draw", "meld, lay off or discard", "finish the meld under way"]
    hand = np.flatnonzero(v["hand"])
    lines = [
        "",
        f"=== {table.agent} to act (Scandal), {phase[int(np.argmax(v['phase']))]} ===",
        f"Your hand ({hand.size} cards):",
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
        f"Stock: {stock} cards" + (" (the turned-over pile)" if v["stock_public"][0] else "")
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
            f"  {who(i):<4} {round(float(v['hand_sizes'][i]) * deck.n_cards):>3} cards  "
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
