"""The JSON a page receives: the game's table model (`cardsuite.rgb`), whole or for one seat."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.games import game_of_env
from cardsuite.rgb import expand


def _model(env: Any, previous: list[int] | None, *, hands: bool) -> dict[str, Any]:
    """The game's table model; Scum Party's marks who changed tables since ``previous``."""
    state = env.unwrapped.game
    ladder = {"previous": previous} if hasattr(state, "tables") else {}
    return dict(game_of_env(env).part("rgb").table_model(state, hands=hands, **ladder))


def table_model(env: Any, previous: list[int] | None = None) -> dict[str, Any]:
    """Everything on the table, every hand included (watch and replay pages)."""
    return _model(env, previous, hands=True)


def _own_views(env: Any, agent: str) -> dict[str, np.ndarray]:
    """``agent``'s own observation, by its named pieces."""
    base = env.unwrapped
    return dict(base.obs_spec.views(base.observe(agent)["observation"]))


def own_hand(env: Any, agent: str) -> list[str]:
    """``agent``'s hand as card names, read from its own observation only."""
    hand = np.asarray(_own_views(env, agent)["hand"])
    state = env.unwrapped.game
    if hasattr(getattr(getattr(state, "rules", None), "deck", None), "n_scandals"):
        # Scandal: one flag per card
        return [state.rules.deck.names[int(c)] for c in np.flatnonzero(hand)]
    rules = state.tables[0].rules if hasattr(state, "tables") else state.rules  # counts per rank
    return expand(rules.cards.names, np.rint(hand))


def seat_model(env: Any, agent: str, previous: list[int] | None = None) -> dict[str, Any]:
    """What ``agent``'s page may show: the table without hands (Scum Party: its own), its hand."""
    state = env.unwrapped.game
    model = _model(env, previous, hands=False)
    if hasattr(state, "tables"):
        own = state.table_of[int(agent.rpartition("_")[2])]
        if own != state.current:
            model["seats"] = game_of_env(env).part("rgb").table_seats(state, own, hands=False)
            model["piles"] = []
            model["lines"] = [f"Table {state.current + 1} is playing; your table waits"]
            model["table"] = own + 1
    trade = _own_trade(env, agent)
    if trade:
        model["lines"] = [*model["lines"], trade]
    mine = {"cards": own_hand(env, agent), "you": True}
    model["seats"] = [
        {**seat, **(mine if seat["name"] == agent else {"cards": None})} for seat in model["seats"]
    ]
    return model


def _own_trade(env: Any, agent: str) -> str | None:
    """Scum: the cards ``agent`` gave and received in this deal's trade (its own observation)."""
    views = _own_views(env, agent)
    state = env.unwrapped.game
    if "trade_given" not in views or hasattr(state, "tables"):
        return None
    names = state.rules.cards.names
    gave, got = (
        " ".join(expand(names, np.rint(views[k]))) for k in ("trade_given", "trade_received")
    )
    if not gave and not got:
        return None
    return f"This deal's trade: you gave {gave or 'nothing'}, received {got or 'nothing'}"
