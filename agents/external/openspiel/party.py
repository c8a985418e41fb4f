"""Scum Party as an OpenSpiel Python game, ``cardsuite_scum_party``: one hand of ``scum_party_v0``.

Chance nodes draw the seats (P3), then deal each table (P4) one card at a time from the
bottom seat; the forced trades (P5) are the engine's. ``num_hands`` is fixed at 1: later
hands are dealt inside the engine. The mapping: ``docs/openspiel.md``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pyspiel

from cardsuite.agents.external.openspiel import base
from cardsuite.agents.external.openspiel.base import CardGame, CardState, Data, Static
from scum_env.party import engine as PE
from scum_env.party.config import PartyConfig
from scum_env.party.encoding import Encoder
from scum_env.party.state import table_rules
from scum_env.party.tables import seat_bonus

#: OpenSpiel parameters (``table_sizes`` "" = the P2 split).
PARAMETERS: dict[str, Any] = {"players": 8, "table_sizes": "", "reward": "points"}

_GENERAL_SUM = pyspiel.GameType.Utility.GENERAL_SUM
GAME_TYPE = base.game_type("cardsuite_scum_party", "cardsuite Scum Party (one hand)", _GENERAL_SUM, 5, 50,
                      PARAMETERS)  # fmt: skip


class _Static(Static):
    """The immutable part shared by every state of one game."""

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        options = base.game_options(params, ("reward",))
        options["table_sizes"] = params.get("table_sizes") or None
        self.config = PartyConfig.from_dict({**options, "num_hands": 1})
        self.n = self.config.num_players
        self.sizes = self.config.sizes
        self.rules = [table_rules(size) for size in self.sizes]
        self.encoder = Encoder(self.config)
        self.num_actions = PE.num_actions(self.config)
        self.history = sum(int(r.deck.sum()) * s + 8 for r, s in zip(self.rules, self.sizes))
        self.chance_nodes = self.n + sum(int(r.deck.sum()) for r in self.rules)  # seats, deals


class PartyData(Data):
    """Seats drawn, each table's cards dealt so far, then the engine and the action log."""

    static_class = _Static
    engine_module: ClassVar[Any] = PE

    def __init__(self, static: _Static) -> None:
        super().__init__(static)
        self.seating: list[int] = []
        self.dealt = np.zeros((static.n, static.rules[0].num_slots), dtype=np.int16)
        self.left = [r.deck.astype(np.int16).copy() for r in static.rules]

    @staticmethod
    def over(engine: Any) -> bool:
        """The hand is over and scored (P8)."""
        return bool(engine.over)

    def engine_from_json(self, text: str) -> Any:
        """The engine state from its JSON."""
        return PE.from_json(self.static.config, text)

    def dealing(self) -> tuple[int, int]:
        """The table being dealt and the global player who gets its next card (P4)."""
        start = 0
        for t, size in enumerate(self.static.sizes):
            if self.left[t].sum():
                rules = self.static.rules[t]
                done = int(rules.deck.sum() - self.left[t].sum())
                members = self.seating[start : start + size]
                seats = members[::-1] if rules.deal_from_bottom else members
                return t, seats[done % size]
            start += size
        raise AssertionError("every table is dealt")


class PartyGame(CardGame):
    """``pyspiel.load_game("cardsuite_scum_party", {"players": 20})``."""

    game_type = GAME_TYPE
    parameters = PARAMETERS

    def utility(self, static: _Static) -> tuple[int, int, int, float, float, float | None]:
        """Actions, outcomes and returns (P8 points with the seat bonus; rank: -1..1)."""
        if static.config.reward == "rank":
            low, high = -1.0, 1.0
        else:
            bonus = [seat_bonus(q, s) for s in static.sizes for q in range(s)]
            low, high = float(1 + min(bonus)), float(len(static.sizes) + max(bonus))
        outcomes = max(static.n, static.rules[0].num_slots)
        return static.num_actions, outcomes, static.n, low, high, None


class PartyState(CardState):
    """One Scum Party hand: seats and deals as chance nodes, then the engine."""

    data_class = PartyData

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Unseated players (uniform), then card slots weighted by the copies left."""
        d = self.d
        if len(d.seating) < d.static.n:
            return base.uniform(p for p in range(d.static.n) if p not in d.seating)
        return base.by_copies(d.left[d.dealing()[0]])

    def _apply_action(self, action: int) -> None:
        d = self.d
        action = int(action)
        if d.engine is None:
            if len(d.seating) < d.static.n:
                d.seating.append(action)
                return
            t, player = d.dealing()
            d.dealt[player, action] += 1
            d.left[t][action] -= 1
            if not any(x.sum() for x in d.left):
                hands = [base.card_names(d.static.rules[0].cards.names, row) for row in d.dealt]
                d.engine = PE.new_party(d.static.config, 0, seating=d.seating, hands=hands)
            return
        engine = d.engine
        player = int(engine.to_act)
        table = engine.tables[engine.current]
        seen: tuple[int, ...] | None = None
        if table.phase == PE.Phase.TRADE:  # a give-back: only the two players see it
            receiver = table.order[table.pending[0].receiver]
            seen = (player, int(engine.members[engine.current][receiver]))
        PE.apply(engine, action)
        d.log.append((player, action, seen))

    def final_returns(self) -> list[float]:
        """The env's reward of the hand."""
        return PE.hand_rewards(self.d.engine, self.d.static.config.reward)

    def _action_to_string(self, player: int, action: int) -> str:
        d = self.d
        if player == pyspiel.PlayerId.CHANCE:
            if len(d.seating) < d.static.n:
                return f"seat {len(d.seating)}: player_{action}"
            return f"deal {d.static.rules[0].cards.names[action]}"
        return PE.action_rules(d.static.config).describe_action(int(action))

    def __str__(self) -> str:
        """The ladder as the env renders it, or the deal so far."""
        if self.d.engine is None:
            return f"seating {self.d.seating}; dealt {int(self.d.dealt.sum())} cards"
        from scum_env.party.render import render_ladder

        return render_ladder(self.d.engine)

    def _hand(self, player: int) -> str:
        d = self.d
        if d.engine is None:
            row = d.dealt[player]
        else:
            table = d.engine.tables[d.engine.table_of[player]]
            row = table.hands[d.engine.local_of[player]]
        return ",".join(base.card_names(d.static.rules[0].cards.names, row))

    def observation_text(self, player: int) -> str:
        """Own hand, own table's hand sizes and top play, the player to act."""
        engine = self.d.engine
        if engine is None:
            return f"p{player} seating:{self.d.seating} hand:{self._hand(player)}"
        table = engine.tables[engine.table_of[player]]
        return (
            f"p{player} hand:{self._hand(player)} top:{table.top_count}x{table.top_slot} "
            f"cards:{table.ncards} out:{table.finish} to_act:{engine.to_act}"
        )

    def info_text(self, player: int) -> str:
        """Seating, own hand, own trades and every move as ``player`` saw it."""
        engine = self.d.engine
        if engine is None:
            return f"p{player} seating:{self.d.seating} dealt:{self._hand(player)}"
        t, me = engine.table_of[player], engine.local_of[player]
        members = engine.members[t]
        trades = [
            f"{members[g]}>{members[r]}:{s}" for g, r, s, _f in engine.tables[t].trade_log
            if me in (g, r)
        ]  # fmt: skip
        return (
            f"p{player} seating:{self.d.seating} hand:{self._hand(player)} "
            f"trades:{' '.join(trades)} moves:{self.log_text(player)}"
        )

    def resample(self, me: int, rng: np.random.Generator) -> None:
        """`scum_env.party.engine.determinize`; during the deals, per table."""
        d = self.d
        if d.engine is not None:
            d.engine = PE.determinize(d.engine, me, rng)
            return
        start = 0
        for t, size in enumerate(d.static.sizes):
            members = [q for q in d.seating[start : start + size] if q != me]
            start += size
            if members:
                d.left[t] = base.redeal(d.dealt, d.left[t], members, rng)


PartyGame.state_class = PartyState
pyspiel.register_game(GAME_TYPE, PartyGame)
