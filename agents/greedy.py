"""``GreedyAgent``: a simple, documented baseline for every game.

* **Scum, Scum Party** (one action layout, :mod:`scum_env.rules`): always
  play when possible. Leading, play the set that sheds the most cards, the
  lowest such set first; following, the lowest legal play (a pass only when
  nothing beats the top play); giving back (J5), the lowest card.
* **Scandal**: meld and lay off whenever possible; draw the top discard if it
  can be melded or laid off at once, else draw from the stock; never take
  deeper discards; collect sets: discard a card of the open scandal it holds
  the fewest cards of, the highest-value such card first. It does not repeat
  itself (S4): at a discard position it has already met this hand it throws
  the next card in that order, so no hand cycles for ever
  (:class:`~cardsuite.agents.heuristic_scandal.RepeatMemory`).

It reads only the observation (through ``table.obs_spec`` views) and the mask.
It is deterministic: the seed is accepted for the agent protocol and ignored;
in Scandal its choices depend on the positions it has seen this hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.errors import ConfigError

GAMES = ("scum", "scum_party", "scandal")


def climb_greedy(mask: np.ndarray, num_slots: int, give_base: int) -> int:
    """The greedy choice at a climbing-game table (Scum, Scum Party)."""
    legal = np.flatnonzero(mask)
    gives = legal[legal >= give_base]
    if gives.size:
        return int(gives[0])  # lowest card
    plays = legal[(legal >= 1) & (legal < give_base)]
    if not plays.size:
        return 0
    if mask[0]:  # following: the lowest legal play
        slots = (plays - 1) % num_slots
        return int(plays[np.argmin(slots)])
    counts = (plays - 1) // num_slots  # leading: most cards, then lowest slot
    best = plays[counts == counts.max()]
    return int(best[0])


class GreedyAgent:
    """Plays whenever it can, shedding the most and lowest cards first.

    Args:
        game: ``"scum"``, ``"scum_party"`` or ``"scandal"``.
        seed: accepted for the agent protocol; the choices are deterministic.
    """

    name = "greedy"

    def __init__(self, game: str, seed: int | None = None) -> None:
        """Remember the game; the table layout is read at :meth:`reset`."""
        key = game.replace("-", "_").lower()
        if key not in GAMES:
            raise ConfigError(f"no greedy agent for game {game!r}; games: {', '.join(GAMES)}")
        self.game = key
        self._slots = 0
        self._give_base = 0
        self._scandal: Any = None

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Read the action layout of ``table``."""
        if table.game != self.game:
            raise ConfigError(f"greedy agent for {self.game!r} seated at a {table.game!r} table")
        if self.game == "scandal":
            from cardsuite.agents.heuristic_scandal import ScandalReader

            self._scandal = ScandalReader(table.config, table.obs_spec)  # type: ignore[arg-type]
            return
        rules = _climb_rules(self.game, table.config)
        self._slots = rules.num_slots
        self._give_base = rules.give_base

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """The greedy legal action."""
        if self.game == "scandal":
            if self._scandal is None:
                raise RuntimeError("GreedyAgent.act called before reset")
            return int(self._scandal.greedy(observation, action_mask))
        if not self._slots:
            raise RuntimeError("GreedyAgent.act called before reset")
        return climb_greedy(action_mask, self._slots, self._give_base)


def _climb_rules(game: str, config: Any) -> Any:
    """The compiled table rules of a Scum or Scum Party config."""
    if game == "scum":
        from scum_env.rules import scum_rules

        return scum_rules(config)
    from cardsuite.agents.heuristic_party import party_rules

    return party_rules(config)
