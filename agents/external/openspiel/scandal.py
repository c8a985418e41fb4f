"""Scandal as an OpenSpiel Python game, ``cardsuite_scandal``: one hand of ``scandal_v0``.

Chance nodes draw the first dealer (S2), deal one card at a time from the dealer's left and
turn up the first discard; each draw from a hidden stock is a chance node over the cards
still in it (a turned-over pile, S4, is public). Returns are the hand's net score (S9) /
``reward_scale``. The mapping: ``docs/openspiel.md``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pyspiel

from cardsuite.agents.external.openspiel import base
from cardsuite.agents.external.openspiel.base import CardGame, CardState, Data, Static
from scandal_env import engine as E
from scandal_env.actions import describe
from scandal_env.config import ScandalConfig
from scandal_env.encoding import Encoder

#: OpenSpiel parameters: ``players`` and the ScandalConfig options (``deck`` "" = canonical).
PARAMETERS: dict[str, Any] = {"players": 2, "max_turns": 300, "reward_scale": 100.0, "deck": ""}

_GENERAL_SUM = pyspiel.GameType.Utility.GENERAL_SUM
GAME_TYPE = base.game_type("cardsuite_scandal", "cardsuite Scandal", _GENERAL_SUM, 2, 6, PARAMETERS)


class _Static(Static):
    """The immutable part shared by every state of one game."""

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        options = base.game_options(params, ("max_turns", "reward_scale"))
        options["deck"] = params.get("deck") or None
        self.config = ScandalConfig.from_dict({**options, "episode": "hand"})
        self.rules = E.make_rules(self.config)
        self.encoder = Encoder(self.rules)
        self.p = self.config.num_players
        self.n_cards = self.rules.deck.n_cards
        self.dealt = self.p * self.config.hand_size
        self.draw = self.rules.layout.DRAW_STOCK
        # draws and discards <= max_turns each; every other step puts a card on
        # the table for good or finishes one of the scandals' melds
        self.history = 2 * self.config.max_turns + self.n_cards + self.rules.deck.n_scandals + 4
        # dealer, deal, up card and at most one stock draw per turn
        self.chance_nodes = 2 + self.dealt + self.config.max_turns


class ScandalData(Data):
    """Dealer, cards dealt, the up card, then the engine state and the action log."""

    static_class = _Static
    engine_module: ClassVar[Any] = E

    def __init__(self, static: _Static) -> None:
        super().__init__(static)
        self.dealer = -1
        self.deal: list[int] = []  # card ids in deal order; -1: resampled away (unknown)
        self.up = -1
        self.drawn: dict[int, tuple[int, bool]] = {}  # log index -> (card, public)
        self.pending = False  # a hidden-stock draw waits for its chance node

    @staticmethod
    def over(engine: Any) -> bool:
        """The hand is over."""
        return bool(engine.done)

    def chance(self) -> bool:
        """The deal is not done, or a hidden-stock draw waits for its card."""
        return self.engine is None or self.pending

    def engine_from_json(self, text: str) -> Any:
        """The engine state from its JSON."""
        return E.from_json(text)

    def seat_of_deal(self, i: int) -> int:
        """Who gets the i-th dealt card (S2: one at a time from the dealer's left)."""
        return (self.dealer + 1 + i) % self.static.p


class ScandalGame(CardGame):
    """``pyspiel.load_game("cardsuite_scandal", {"players": 3})``."""

    game_type = GAME_TYPE
    parameters = PARAMETERS

    def utility(self, static: _Static) -> tuple[int, int, int, float, float, float | None]:
        """Actions, outcomes and returns (a hand's net score / reward_scale, S9)."""
        bound = float(static.rules.deck.value.astype(np.int64).sum()) / static.config.reward_scale
        outcomes = max(static.p, static.n_cards)
        return static.rules.layout.size, outcomes, static.p, -bound, bound, None


class ScandalState(CardState):
    """A Scandal hand: the deal and hidden-stock draws as chance nodes, then the engine."""

    data_class = ScandalData

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The dealer (uniform), else a uniform card among those not placed yet."""
        d = self.d
        if d.dealer < 0:
            return base.uniform(range(d.static.p))
        if d.engine is not None:
            return base.uniform(sorted(d.engine.stock))
        used = set(d.deal)
        return base.uniform(c for c in range(d.static.n_cards) if c not in used)

    def _apply_action(self, action: int) -> None:
        d = self.d
        action = int(action)
        if d.engine is None:
            self._deal(action)
            return
        engine = d.engine
        if d.pending:  # the chance node of a hidden-stock draw: put the card on top
            engine.stock.remove(action)
            engine.stock.append(action)
            E.apply(engine, d.static.draw)
            d.drawn[len(d.log) - 1] = (action, False)
            d.pending = False
            return
        player = int(engine.to_act)
        if action == d.static.draw and engine.stock and not engine.stock_public:
            if not E.legal_mask(engine)[action]:  # the card comes from the chance node
                E.apply(engine, action)  # raises IllegalActionError naming why
            d.log.append((player, action, None))
            d.pending = True
            return
        if action == d.static.draw:  # a public stock (S4): the top card is known
            card = engine.stock[-1] if engine.stock else engine.pile[0]
            d.drawn[len(d.log)] = (card, True)
        E.apply(engine, action)
        d.log.append((player, action, None))

    def _deal(self, card: int) -> None:
        d = self.d
        static = d.static
        if d.dealer < 0:
            d.dealer = card
            return
        if len(d.deal) < static.dealt:
            d.deal.append(card)
            return
        d.up = card
        hands = [self._own_deal(q) for q in range(static.p)]
        used = {*d.deal, card}
        stock = [c for c in range(static.n_cards) if c not in used]
        preset = {"hands": hands, "discard": [card], "stock": stock, "dealer": d.dealer}
        d.engine = E.new_game(static.config, 0, preset=preset)

    def final_returns(self) -> list[float]:
        """The hand's net scores (S9) / ``reward_scale``."""
        engine = self.d.engine
        scale = 1.0 / self.d.static.config.reward_scale  # as the env: score * (1 / scale)
        return [float(v) * scale for v in engine.hand_scores]

    def _action_to_string(self, player: int, action: int) -> str:
        d = self.d
        deck = d.static.rules.deck
        if player == pyspiel.PlayerId.CHANCE:
            return f"dealer P{action}" if d.dealer < 0 else f"card {deck.names[action]}"
        return describe(d.static.rules.layout, deck, int(action))

    def __str__(self) -> str:
        """The table as the env renders it, or the deal so far."""
        if self.d.engine is None:
            return f"dealer {self.d.dealer}; dealt {len(self.d.deal)} cards"
        from scandal_env.render import render

        return render(self.d.engine)

    # ------------------------------------------------------------------ views
    def observation_text(self, player: int) -> str:
        """Own hand, the discard pile, stock and hand sizes, the table and the phase."""
        engine = self.d.engine
        if engine is None:
            return f"p{player} dealer:{self.d.dealer} dealt:{self._own_deal(player)}"
        table = [f"{c}@{s}by{b}" for c in np.flatnonzero(engine.placed_by >= 0)
                 for s, b in [(int(engine.placed_on[c]), int(engine.placed_by[c]))]]  # fmt: skip
        return (
            f"p{player} hand:{np.flatnonzero(engine.hands[player]).tolist()} "
            f"pile:{engine.pile} stock:{len(engine.stock)} cards:{engine.hand_counts} "
            f"table:{' '.join(table)} build:{np.flatnonzero(engine.build).tolist()} "
            f"to_act:{engine.to_act} phase:{int(engine.phase)} turn:{engine.turn}"
        )

    def _own_deal(self, player: int) -> list[int]:
        return [c for i, c in enumerate(self.d.deal) if self.d.seat_of_deal(i) == player]

    def info_text(self, player: int) -> str:
        """Dealer, own dealt cards, the up card, own hand and every move, with own and public draws."""
        d = self.d
        moves = []
        for i, (who, action, _seen) in enumerate(d.log):
            card, public = d.drawn.get(i, (-1, True))
            shown = card if (public or who == player) and card >= 0 else None
            moves.append(f"{who}:{action}" + ("" if shown is None else f"={shown}"))
        # the hand itself too: a resampled copy forgets the others' dealt and drawn
        # cards, and their hands there must still key their information states
        hand = [] if d.engine is None else np.flatnonzero(d.engine.hands[player]).tolist()
        return (
            f"p{player} dealer:{d.dealer} dealt:{sorted(self._own_deal(player))} "
            f"up:{d.up} hand:{hand} moves:{' '.join(moves)}"
        )

    # ------------------------------------------------------------------ search
    def resample(self, me: int, rng: np.random.Generator) -> None:
        """The engine's ``resample_hidden``, forgetting others' dealt and drawn cards (unknown
        in their information states); during the deal, from the unseen cards."""
        d = self.d
        if d.engine is not None:
            d.engine = E.resample_hidden(d.engine, me, rng)
            d.deal = [c if d.seat_of_deal(i) == me else -1 for i, c in enumerate(d.deal)]
            for i, (_card, public) in list(d.drawn.items()):
                if not public and d.log[i][0] != me:
                    d.drawn[i] = (-1, False)
            return
        mine = set(self._own_deal(me))
        unseen = [c for c in range(d.static.n_cards) if c not in mine]
        fresh = [unseen[int(i)] for i in rng.permutation(len(unseen))]
        d.deal = [c if d.seat_of_deal(i) == me else fresh.pop() for i, c in enumerate(d.deal)]


ScandalGame.state_class = ScandalState
pyspiel.register_game(GAME_TYPE, ScandalGame)
