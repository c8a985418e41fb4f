"""Phase and hand-end codes of the batched Scandal engine (plain ints for array arithmetic)."""

from __future__ import annotations

from scandal_env.state import Phase

#: The turn phases of ``scandal_env.state.Phase``, and OVER for a finished game.
DRAW, MELD, BUILD = int(Phase.DRAW), int(Phase.MELD), int(Phase.BUILD)
OVER = 3
#: Why the last hand of a game ended (``hand_end``): not yet, a player went
#: out (S8), nothing to draw (S4), the turn limit (S4).
END_NONE, END_OUT, END_BLOCKED, END_MAX_TURNS = 0, 1, 2, 3
#: The per-game engine's names of those reasons.
END_NAMES = ("", "out", "blocked", "max_turns")
