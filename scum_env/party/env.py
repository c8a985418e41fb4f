"""The Scum Party PettingZoo AEC environment class (documented in `scum_env.scum_party_v0`)."""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from cardsuite.aec import CardGameEnv
from cardsuite.env_checks import flag_option
from cardsuite.errors import PresetError
from cardsuite.obsspec import ObsSpec
from scum_env.party import engine as PE
from scum_env.party.config import PartyConfig
from scum_env.party.encoding import Encoder, encode_state, state_spec
from scum_env.party.engine import Party
from scum_env.party.render import render_ladder, render_table
from scum_env.party.serialize import load_state


class PartyEnv(CardGameEnv[Party]):
    """Scum Party for 5–50 players at one or more tables, as one PettingZoo AEC env."""

    CONFIG = PartyConfig
    ENGINE: ClassVar[ModuleType] = PE
    RESAMPLE = staticmethod(PE.determinize)
    reset_options: ClassVar[tuple[str, ...]] = ("seating", "hands", "trade", "scores", "state")
    metadata: ClassVar[dict[str, Any]] = {**CardGameEnv.metadata, "name": "scum_party_v0"}

    def _setup(self) -> tuple[ObsSpec, int, int]:
        self.rules = PE.action_rules(self.config)
        self.encoder: Encoder = Encoder(self.config)
        self._state_spec = state_spec(self.config)
        return self.encoder.spec, self.rules.num_actions, self._state_spec.size

    # ---------------------------------------------------------------- hooks
    def _reset_game(self, seed: int, options: dict[str, Any]) -> None:
        if "state" in options:
            game = load_state(self.config, options["state"])
            if game.over:
                raise PresetError(
                    "reset(options={'state': ...}) needs a tournament that is not over"
                )
            self.game = game
            return
        trade = flag_option(options, "trade", True)
        presets = {key: options.get(key) for key in ("seating", "hands", "scores")}
        self.game = PE.new_party(self.config, seed, trade=trade, **presets)

    def _apply(self, action: int) -> tuple[list[float] | None, bool, bool]:
        game = self._live()
        if PE.apply_unchecked(game, action) is None:
            return None, False, False
        if self.config.reward == "points" or game.over:
            return PE.hand_rewards(game, self.config.reward), game.over, False
        return None, False, False

    def _final_infos(self) -> list[dict[str, Any]]:
        game = self._live()
        ranks = PE.standings(game)
        seats = [game.seat_of(p) for p in range(game.num_players)]
        return [
            {
                "finish_position": ranks[p],
                "standing": ranks[p],
                "score": int(game.scores[p]),
                "points": int(game.last_points[p]),
                "table": t,
                "position": position,
                "role": game.tables[t].rules.role_of(position),
                "hands": game.hand,
            }
            for p, (t, position) in enumerate(seats)
        ]

    def _render_text(self) -> str:
        return self.render_table() + "\n" + render_ladder(self._live())

    def _global_state(self) -> np.ndarray:
        return encode_state(self._live(), self._state_spec)

    # ------------------------------------------------------------ extras
    def render_table(self, table: int | None = None, *, show_hands: bool = True) -> str:
        """Text of one table (default: the table to act)."""
        game = self._live()
        return render_table(game, game.current if table is None else table, show_hands=show_hands)

    def render_ladder(self) -> str:
        """Text of the ladder: every player's total, table and seat."""
        return render_ladder(self._live())
