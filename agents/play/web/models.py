"""The JSON a page receives: the game's table model (`cardsuite.rgb`), whole or for one seat."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.games import game_of_env


def _module(env: Any) -> Any:
    return game_of_env(env).part("rgb")


def table_model(env: Any, previous: list[int] | None = None) -> dict[str, Any]:
    """Everything on the table, every hand included (watch and replay pages)."""
    module = _module(env)
    state = env.unwrapped.game
    if hasattr(state, "tables"):
        return dict(module.table_model(state, previous=previous))
    return dict(module.table_model(state))


def own_hand(env: Any, agent: str) -> list[str]:
    """``agent``'s hand as card names, read from its own observation only."""
    base = env.unwrapped
    views = base.obs_spec.views(base.observe(agent)["observation"])
    hand = np.asarray(views["hand"])
    state = base.game
    if hasattr(getattr(getattr(state, "rules", None), "deck", None), "n_scandals"):
        # Scandal: one flag per card
        names = state.rules.deck.names
        return [names[int(c)] for c in np.flatnonzero(hand)]
    if hasattr(state, "tables"):  # Scum Party: counts per rank
        names = state.tables[0].rules.cards.names
    else:
        names = state.rules.cards.names
    counts = np.rint(hand).astype(int)
    return [names[s] for s, n in enumerate(counts) for _ in range(n)]


def seat_model(env: Any, agent: str, previous: list[int] | None = None) -> dict[str, Any]:
    """What ``agent``'s page may show: the table without hands (Scum Party: its own), its hand."""
    module = _module(env)
    state = env.unwrapped.game
    if hasattr(state, "tables"):
        model = dict(module.table_model(state, hands=False, previous=previous))
        player = int(agent.rpartition("_")[2])
        own = state.table_of[player]
        if own != state.current:
            model["seats"] = module.table_seats(state, own, hands=False)
            model["piles"] = []
            model["lines"] = [f"Table {state.current + 1} is playing; your table waits"]
            model["table"] = own + 1
    else:
        model = dict(module.table_model(state, hands=False))
    hand = own_hand(env, agent)
    trade = _own_trade(env, agent)
    if trade:
        model["lines"] = [*model["lines"], trade]
    mine = {"cards": hand, "you": True}
    model["seats"] = [
        {**seat, **(mine if seat["name"] == agent else {"cards": None})} for seat in model["seats"]
    ]
    return model


def _own_trade(env: Any, agent: str) -> str | None:
    """Scum: the cards ``agent`` gave and received in this deal's trade (its own observation)."""
    base = env.unwrapped
    views = base.obs_spec.views(base.observe(agent)["observation"])
    if "trade_given" not in views or hasattr(base.game, "tables"):
        return None
    given, received = np.asarray(views["trade_given"]), np.asarray(views["trade_received"])
    if not given.any() and not received.any():
        return None
    names = base.game.rules.cards.names
    word = " ".join
    gave = word(names[s] for s, n in enumerate(np.rint(given).astype(int)) for _ in range(n))
    got = word(names[s] for s, n in enumerate(np.rint(received).astype(int)) for _ in range(n))
    return f"This deal's trade: you gave {gave or 'nothing'}, received {got or 'nothing'}"
