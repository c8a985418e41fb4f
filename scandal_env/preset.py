"""Preset deals (``new_game(..., preset=...)`` and the env's reset options, I11)."""

from __future__ import annotations

from typing import Any

from cardsuite.errors import PresetError
from scandal_env.state import State


def parse_preset(
    state: State, preset: dict[str, Any], dealer: int
) -> tuple[list[list[int]], list[int], list[int], int]:
    """Check a preset deal (keys: [`new_hand`][scandal_env.engine.new_hand]) and return its
    hands, pile and stock (bottom first) and dealer; PresetError naming the problem."""
    deck = state.rules.deck
    p, n = state.num_players, deck.n_cards
    if not isinstance(preset, dict):
        raise PresetError(f"a preset must be a dict, got {type(preset).__name__}")
    unknown = sorted(set(preset) - {"hands", "discard", "stock", "dealer"})
    if unknown:
        raise PresetError(f"unknown preset key(s) {unknown}; use hands, discard, stock, dealer")
    if "hands" not in preset:
        raise PresetError("a preset needs 'hands': one list of cards per player")
    raw_hands = preset["hands"]
    if not isinstance(raw_hands, list | tuple) or len(raw_hands) != p:
        raise PresetError(f"preset 'hands' must list {p} hands (one per player)")
    seen: dict[int, str] = {}

    def cards_of(raw: Any, where: str) -> list[int]:
        if not isinstance(raw, list | tuple):
            raise PresetError(f"preset {where} must be a list of card names or ids")
        out = []
        for ref in raw:
            try:
                c = deck.card_id(ref)
            except KeyError:
                raise PresetError(f"preset {where}: unknown card {ref!r}") from None
            if c in seen:
                raise PresetError(
                    f"preset {where}: card {deck.names[c]!r} is duplicated (also in {seen[c]})"
                )
            seen[c] = where
            out.append(c)
        return out

    hands = [cards_of(h, f"hand {i}") for i, h in enumerate(raw_hands)]
    for i, h in enumerate(hands):
        if not h:
            raise PresetError(f"preset hand {i} is empty; every player needs at least one card")
    pile = cards_of(preset["discard"], "discard")[::-1] if "discard" in preset else None
    stock = cards_of(preset["stock"], "stock")[::-1] if "stock" in preset else None
    rest = [c for c in range(n) if c not in seen]
    if stock is not None and (pile is not None or rest):
        if pile is None and rest:
            pile = rest[-1:]
            rest = rest[:-1]
        if rest:
            names = ", ".join(repr(deck.names[c]) for c in rest[:5])
            raise PresetError(
                f"preset leaves {len(rest)} card(s) unaccounted for ({names}...): "
                "every card must be in a hand, the discard pile or the stock"
            )
    if stock is None:
        order = [rest[int(i)] for i in state.rng.permutation(len(rest))]
        if pile is None:
            pile = order[:1]
            order = order[1:]
        stock = order[::-1]
    if pile is None:  # I11: every card is placed, so no card is left to turn up
        pile = []
    if "dealer" in preset:
        k = preset["dealer"]
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < p:
            raise PresetError(f"preset dealer must be a seat 0..{p - 1}, got {k!r}")
        dealer = k
    return hands, pile, stock, dealer
