"""The Scum PettingZoo AEC environment class (documented in `scum_env.scum_v0`)."""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from cardsuite.aec import CardGameEnv
from cardsuite.env_checks import flag_option
from cardsuite.errors import PresetError
from cardsuite.obsspec import ObsSpec
from scum_env import engine as E
from scum_env.config import ScumConfig
from scum_env.encoding import Encoder, encode_state, state_spec
from scum_env.knowledge import resample_hidden
from scum_env.render import render_table
from scum_env.rules import scum_rules
from scum_env.serialize import load_state


class ScumEnv(CardGameEnv[E.State]):
    """Scum (4J rules) for 4–12 players as a PettingZoo AEC env."""

    CONFIG = ScumConfig
    ENGINE: ClassVar[ModuleType] = E
    RESAMPLE = staticmethod(resample_hidden)
    reset_options: ClassVar[tuple[str, ...]] = ("roles", "hands", "trade", "scores", "state")
    metadata: ClassVar[dict[str, Any]] = {**CardGameEnv.metadata, "name": "scum_v0"}

    def _setup(self) -> tuple[ObsSpec, int, int]:
        self.rules = scum_rules(self.config)
        self.encoder: Encoder = Encoder(self.rules)
        self._state_spec = state_spec(self.rules)
        self._finished_normally = False
        self._reseeded = False
        return self.encoder.spec, self.rules.num_actions, self._state_spec.size

    # ---------------------------------------------------------------- hooks
    def _reset_game(self, seed: int, options: dict[str, Any]) -> None:
        game = self.game
        if "state" in options:
            loaded = load_state(self.rules, options["state"])
            if loaded.phase == E.OVER:
                raise PresetError("reset(options={'state': ...}) needs a state that is not over")
            self.game = loaded
        elif any(key in options for key in ("roles", "hands", "trade", "scores")):
            trade = flag_option(options, "trade", False)
            presets = {key: options.get(key) for key in ("roles", "hands", "scores")}
            self.game = E.new_game(self.rules, seed, trade=trade, **presets)
        elif (
            self.config.episode == "series"
            and game is not None
            and self._finished_normally
            and not game.game_over
            and not self._reseeded
        ):
            E.continue_game(game)  # the next series of the running game (J3, J5)
        else:
            self.game = E.new_game(self.rules, seed)
        self._finished_normally = False
        self._reseeded = False

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode (see the module documentation for ``options``)."""
        reseeded, self._reseeded = self._reseeded, seed is not None
        try:
            super().reset(seed, options)
        except BaseException:
            self._reseeded = reseeded  # a rejected reset leaves the env as it was
            raise

    def _apply(self, action: int) -> tuple[list[float] | None, bool, bool]:
        game = self.game
        assert game is not None
        E.apply_unchecked(game, action)
        if game.phase == E.OVER:
            self._finished_normally = True
            return E.episode_rewards(game), True, False
        return None, False, False

    def _final_infos(self) -> list[dict[str, Any]]:
        game = self._live()
        return [
            {
                "finish_position": game.finish.index(p) + 1,
                "role": self.rules.role_of(game.pos[p]),
                "points": int(game.last_points[p]),
                "score": int(game.scores[p]),
                "series": game.series,
                "game_over": game.game_over,
                "winner": game.winner,
            }
            for p in range(self.rules.num_players)
        ]

    def _render_text(self) -> str:
        return render_table(self._live())

    def _global_state(self) -> np.ndarray:
        return encode_state(self._live(), self._state_spec)
