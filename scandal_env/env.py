"""The Scandal PettingZoo AEC environment class (documented in `scandal_env.scandal_v0`)."""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from cardsuite.aec import CardGameEnv
from cardsuite.errors import PresetError, StateError
from cardsuite.obsspec import ObsSpec
from scandal_env import engine as E
from scandal_env.actions import describe
from scandal_env.config import ScandalConfig
from scandal_env.encoding import Encoder
from scandal_env.render import render


class ScandalEnv(CardGameEnv[E.State]):
    """Scandal for 2-6 players as a PettingZoo AEC env."""

    CONFIG = ScandalConfig
    ENGINE: ClassVar[ModuleType] = E
    RESAMPLE = staticmethod(E.resample_hidden)
    reset_options: ClassVar[tuple[str, ...]] = ("hands", "discard", "stock", "dealer", "state")
    metadata: ClassVar[dict[str, Any]] = {**CardGameEnv.metadata, "name": "scandal_v0"}

    def _setup(self) -> tuple[ObsSpec, int, int]:
        self.rules = E.make_rules(self.config)
        self.encoder: Encoder = Encoder(self.rules)
        self._scale = 1.0 / self.config.reward_scale
        return self.encoder.spec, self.rules.layout.size, self.encoder.global_spec.size

    # ---------------------------------------------------------------- hooks
    def _reset_game(self, seed: int, options: dict[str, Any]) -> None:
        if "state" in options:
            text = options["state"]
            if not isinstance(text, str):
                raise StateError(
                    "reset(options={'state': ...}) needs the JSON text of "
                    f"scandal_env.engine.to_json, got {type(text).__name__}"
                )
            state = E.from_json(text)
            if state.rules.config != self.config:
                raise PresetError(
                    "reset(options={'state': ...}): the state's config differs from the env's"
                )
            if state.done:
                raise PresetError("reset(options={'state': ...}) needs a state that is not over")
        else:
            keys: tuple[str, ...] = ("hands", "discard", "stock", "dealer")
            preset: dict[str, Any] = {k: options[k] for k in keys if k in options}
            state = E.new_game(self.config, seed, preset=preset or None)
            if state.done:
                raise PresetError(
                    "the preset deal leaves nothing to draw: the hand is over at once (S4)"
                )
        self.game = state  # only now: a rejected reset leaves the env as it was
        self._hand = state.hand_number

    def _apply(self, action: int) -> tuple[list[float] | None, bool, bool]:
        state = self._live()
        E.apply_unchecked(state, action)
        rewards = None
        # Only the end of a hand scores (S9), and it always leaves ``hand_over``
        # set or a new hand dealt, so ``step_scores`` need not be scanned.
        if state.hand_over or state.hand_number != self._hand:
            rewards = [float(x) * self._scale for x in state.step_scores]
            self._hand = state.hand_number
        return rewards, state.done, state.truncated

    def _why_illegal(self, action: int) -> str:
        why = E.why_illegal(self._live(), action)
        return f"{describe(self.rules.layout, self.rules.deck, action)}: {why}"

    def _final_infos(self) -> list[dict[str, Any]]:
        state = self._live()
        winners = E.winners(state)
        return [
            {
                "hand_score": int(state.hand_scores[p]),
                "score": int(state.scores[p]),
                "hand_end": state.hand_end,
                "hands_played": state.hand_number + 1,
                "game_over": state.game_over,
                "winner": p in winners,
            }
            for p in range(self.config.num_players)
        ]

    def _render_text(self) -> str:
        return render(self._live())

    def _global_state(self) -> np.ndarray:
        return self.encoder.global_state(self._live())

    # ------------------------------------------------------------ extras
    def describe_action(self, action: int) -> str:
        """Plain words for an action id (e.g. ``"discard Richard Nixon (blue)"``)."""
        return describe(self.rules.layout, self.rules.deck, int(action))

    def action_masks(self) -> np.ndarray:
        """The mask of the agent to act (sb3-contrib ``MaskablePPO`` protocol)."""
        return self.legal_mask()
