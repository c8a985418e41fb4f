"""Scum (4J rules) as an OpenSpiel Python game, ``cardsuite_scum``: one series of ``scum_v0``.

Chance nodes draw the roles (J3), then deal one card at a time from the President (J4), the
outcome a card's slot weighted by the copies left; ``trade=True`` starts with the trades (J5).
Returns are the env's episode rewards. The mapping: ``docs/openspiel.md``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pyspiel

from cardsuite.agents.external.openspiel import base
from cardsuite.agents.external.openspiel.base import CardGame, CardState, Data, Static
from scum_env import engine as E
from scum_env.config import ScumConfig
from scum_env.encoding import Encoder
from scum_env.knowledge import resample_hidden
from scum_env.rules import Rules, scum_rules

#: OpenSpiel parameters: ``players`` and the ScumConfig rule options, with their defaults.
PARAMETERS: dict[str, Any] = {
    "players": 4,
    "trade_rules": "english",
    "carousel": False,
    "color_clash": False,
    "wild_queen": False,
    "reward": "points",
    "trade": False,
}
_OPTIONS = ("trade_rules", "carousel", "color_clash", "wild_queen", "reward")

_CONSTANT_SUM = pyspiel.GameType.Utility.CONSTANT_SUM
GAME_TYPE = base.game_type(
    "cardsuite_scum", "cardsuite Scum (4J rules)", _CONSTANT_SUM, 4, 12, PARAMETERS
)


class _Static(Static):
    """The immutable part shared by every state of one game."""

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.config = ScumConfig.from_dict(
            {**base.game_options(params, _OPTIONS), "episode": "series"}
        )
        self.rules: Rules = scum_rules(self.config)
        self.encoder = Encoder(self.rules)
        self.trade = bool(params.get("trade", False))
        self.n = self.config.num_players
        self.total = int(self.rules.deck.sum())
        self.history = self.total * self.n + 8  # plays <= cards; <= n-1 passes per play
        self.chance_nodes = self.n + self.total  # the role draw and the deal


class ScumData(Data):
    """Roles drawn, cards dealt so far, then the engine state and the action log."""

    static_class = _Static
    engine_module: ClassVar[Any] = E

    def __init__(self, static: _Static) -> None:
        super().__init__(static)
        self.order: list[int] = []
        self.dealt = np.zeros((static.n, static.rules.num_slots), dtype=np.int16)
        self.left = static.rules.deck.astype(np.int16).copy()

    @staticmethod
    def over(engine: Any) -> bool:
        """The series is over."""
        return bool(engine.phase == E.OVER)

    def engine_from_json(self, text: str) -> Any:
        """The engine state from its JSON."""
        return E.from_json(self.static.rules, text)

    def receiver(self) -> int:
        """The player who gets the next dealt card (J4: from the President)."""
        seats = self.order[::-1] if self.static.rules.deal_from_bottom else self.order
        return seats[int(self.dealt.sum()) % self.static.n]


class ScumGame(CardGame):
    """``pyspiel.load_game("cardsuite_scum", {"players": 5, "carousel": True})``."""

    game_type = GAME_TYPE
    parameters = PARAMETERS

    def utility(self, static: _Static) -> tuple[int, int, int, float, float, float | None]:
        """Actions, outcomes and returns (J8 points: 1..n, sum n(n+1)/2; centered: -1..1)."""
        n, rules = static.n, static.rules
        total = 0.0 if static.config.reward == "centered" else n * (n + 1) / 2
        low, high = (-1.0, 1.0) if static.config.reward == "centered" else (1.0, float(n))
        return rules.num_actions, max(n, rules.num_slots), n, low, high, total


class ScumState(CardState):
    """A Scum series: the role draw and the deal as chance nodes, then the engine."""

    data_class = ScumData

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Unseated players (uniform), then card slots weighted by the copies left."""
        d = self.d
        if len(d.order) < d.static.n:
            return base.uniform(p for p in range(d.static.n) if p not in d.order)
        return base.by_copies(d.left)

    def _apply_action(self, action: int) -> None:
        d = self.d
        static = d.static
        if d.engine is None:
            if len(d.order) < static.n:
                d.order.append(int(action))
                return
            d.dealt[d.receiver(), action] += 1
            d.left[action] -= 1
            if d.left.sum() == 0:
                self._start()
            return
        engine = d.engine
        player = int(engine.to_act)
        seen: tuple[int, ...] | None = None
        if engine.phase == E.TRADE:  # a give-back: only giver and receiver see the card (J5)
            seen = (player, int(engine.order[engine.pending[0].receiver]))
        E.apply(engine, int(action))
        d.log.append((player, int(action), seen))

    def _start(self) -> None:
        """The deal is complete: the engine state, with the trades if asked (J5)."""
        d = self.d
        hands = [base.card_names(d.static.rules.cards.names, row) for row in d.dealt]
        d.engine = E.new_game(d.static.rules, 0, roles=d.order, hands=hands, trade=d.static.trade)

    def final_returns(self) -> list[float]:
        """The env's episode rewards of the series."""
        return E.episode_rewards(self.d.engine)

    def _action_to_string(self, player: int, action: int) -> str:
        d = self.d
        rules = d.static.rules
        if player == pyspiel.PlayerId.CHANCE:
            if len(d.order) < d.static.n:
                return f"{rules.role_of(len(d.order))}: player_{action}"
            return f"deal {rules.cards.names[action]}"
        return rules.describe_action(int(action))

    def __str__(self) -> str:
        """The table as the env renders it (all hands), or the deal so far."""
        if self.d.engine is None:
            return f"roles {self.d.order}; dealt {int(self.d.dealt.sum())} cards"
        from scum_env.render import render_table

        return render_table(self.d.engine)

    # ------------------------------------------------------------------ views
    def _hand(self, player: int) -> str:
        d = self.d
        row = d.dealt[player] if d.engine is None else d.engine.hands[player]
        return ",".join(base.card_names(d.static.rules.cards.names, row))

    def observation_text(self, player: int) -> str:
        """Own hand, the top play, hand sizes and who is out."""
        engine = self.d.engine
        if engine is None:
            return f"p{player} roles:{self.d.order} hand:{self._hand(player)}"
        rules = self.d.static.rules
        top = (
            rules.describe_action(rules.play_action(engine.top_count, engine.top_slot))
            if engine.top_count
            else "lead"
        )
        return (
            f"p{player} hand:{self._hand(player)} top:{top} cards:{engine.ncards} "
            f"out:{engine.finish} to_act:{engine.to_act}"
        )

    def info_text(self, player: int) -> str:
        """Roles, own hand, own trades and every move as ``player`` saw it (perfect recall)."""
        engine = self.d.engine
        if engine is None:
            return f"p{player} roles:{self.d.order} dealt:{self._hand(player)}"
        names = self.d.static.rules.cards.names
        trades = [f"{g}>{r}:{names[s]}" for g, r, s, _f in engine.trade_log if player in (g, r)]
        return (
            f"p{player} roles:{self.d.order} hand:{self._hand(player)} "
            f"trades:{' '.join(trades)} moves:{self.log_text(player)}"
        )

    # ------------------------------------------------------------------ search
    def resample(self, me: int, rng: np.random.Generator) -> None:
        """The engine's ``resample_hidden``; during the deal, from the unseen pack."""
        d = self.d
        if d.engine is not None:
            d.engine = resample_hidden(d.engine, me, rng)
            return
        others = [q for q in range(d.static.n) if q != me]
        d.left = base.redeal(d.dealt, d.left, others, rng)


ScumGame.state_class = ScumState
pyspiel.register_game(GAME_TYPE, ScumGame)
