"""Scripted hands where the stock runs out or the deal leaves nothing to turn up (S4, S7, I11)."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.errors import CardsuiteError, IllegalActionError, PresetError, StateError
from scandal_env import engine as E
from scandal_env.config import ScandalConfig
from scandal_env.scandal_v0 import raw_env
from tests.scandal.test_rules import (
    DECK,
    LAY,
    cid,
    deal,
    discard,
    discards_legal,
    draw_stock,
    hand,
    legal,
)


def one_card_pile_deal() -> E.State:
    """Stock empty, Fanne Foxe the only discard; every other card in the two hands."""
    rest = [c for c in DECK.names if c not in {"Ted Kennedy", "Gary Hart", "Fanne Foxe"}]
    return deal(
        {
            "hands": [["Ted Kennedy", *rest[:38]], ["Gary Hart", *rest[38:]]],
            "discard": ["Fanne Foxe"],
            "stock": [],
        }
    )


def test_s7_card_drawn_from_a_turned_over_one_card_pile_may_not_be_discarded() -> None:
    """S7 (new): the only card of the turned-over pile was the top discard."""
    s = one_card_pile_deal()
    assert legal(s, LAY.DRAW_STOCK) and legal(s, LAY.DRAW_DISCARD)
    draw_stock(s)  # S4: the pile turns over; its only card is drawn at once
    assert "Fanne Foxe" in hand(s, 0) and s.pile == [] and s.stock == []
    assert s.forbidden == cid("Fanne Foxe")
    assert "Fanne Foxe" not in discards_legal(s)
    assert "Ted Kennedy" in discards_legal(s)
    with pytest.raises(IllegalActionError, match=r"S7.*turned-over pile"):
        discard(s, "Fanne Foxe")
    discard(s, "Ted Kennedy")
    # P1 faces the same one-card pile: Ted Kennedy comes back and is forbidden.
    draw_stock(s)
    assert s.to_act == 1 and s.forbidden == cid("Ted Kennedy")
    assert "Ted Kennedy" not in discards_legal(s) and "Gary Hart" in discards_legal(s)
    discard(s, "Gary Hart")
    # P0 may now discard Fanne Foxe: she was drawn on an earlier turn.
    draw_stock(s)
    assert "Fanne Foxe" in discards_legal(s)
    E.check_cards(s)


def test_s7_same_as_drawing_the_top_discard() -> None:
    """Drawing the stock and the top discard give the same hand and the same S7 ban."""
    a, b = one_card_pile_deal(), one_card_pile_deal()
    draw_stock(a)
    E.apply(b, LAY.DRAW_DISCARD)
    assert (a.hands == b.hands).all() and a.forbidden == b.forbidden
    assert (E.legal_mask(a)[LAY.MELD_START :] == E.legal_mask(b)[LAY.MELD_START :]).all()


def test_s4_pile_of_several_cards_turned_over_has_no_s7_ban() -> None:
    """With 2+ discards the drawn card is the oldest one, not the top: S7 does not apply."""
    rest = [
        c for c in DECK.names if c not in {"Ted Kennedy", "Gary Hart", "Fanne Foxe", "Donna Rice"}
    ]
    s = deal(
        {
            "hands": [["Ted Kennedy", *rest[:37]], ["Gary Hart", *rest[37:]]],
            "discard": ["Donna Rice", "Fanne Foxe"],  # top first
            "stock": [],
        }
    )
    draw_stock(s)
    assert "Fanne Foxe" in hand(s, 0) and s.forbidden == -1
    assert "Fanne Foxe" in discards_legal(s)


def test_i11_preset_with_no_card_left_to_turn_up_starts_with_an_empty_pile() -> None:
    """I11: hands and stock place every card; the omitted discard pile is empty."""
    names = list(DECK.names)
    hands = [names[:10], names[10:20]]
    stock = names[20:]
    s = E.new_game(ScandalConfig(), seed=0, preset={"hands": hands, "stock": stock, "dealer": 1})
    assert s.pile == [] and len(s.stock) == 60 and not s.done
    assert E.legal_actions(s) == [LAY.DRAW_STOCK]
    assert DECK.names[s.stock[-1]] == stock[0]  # the stock is given top first
    env = raw_env()
    env.reset(seed=0, options={"hands": hands, "stock": stock, "dealer": 1})
    assert env.game is not None and env.game.pile == []
    mask = env.observe("player_0")["action_mask"]
    assert np.flatnonzero(mask).tolist() == [LAY.DRAW_STOCK]
    env.step(LAY.DRAW_STOCK)
    assert stock[0] in hand(env.game, 0)


def test_rejected_reset_leaves_the_env_as_it_was() -> None:
    """A preset that leaves nothing to draw is refused (I7) and the old episode stays."""
    env = raw_env()
    env.reset(seed=5)
    before = E.to_json(env.game)  # type: ignore[arg-type]
    names = list(DECK.names)
    with pytest.raises(PresetError, match="nothing to draw"):
        env.reset(options={"hands": [names[:40], names[40:]], "stock": [], "discard": []})
    with pytest.raises(StateError, match="JSON text"):
        env.reset(options={"state": {"format": "cardsuite-scandal-state"}})
    assert E.to_json(env.game) == before  # type: ignore[arg-type]


def test_env_before_reset_raises_named_errors() -> None:
    env = raw_env()
    with pytest.raises(CardsuiteError, match="reset"):
        env.determinize("player_0", np.random.default_rng(0))
    env.reset(seed=1)
    with pytest.raises(CardsuiteError, match="unknown agent 'player_9'"):
        env.determinize("player_9", np.random.default_rng(0))
