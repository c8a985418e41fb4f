"""Move logs per seat: each move in the words each seat may know.

All moves are public but a Scum give-back (J5): only its giver and receiver
read the card, as their observations show it; the others "give back a card".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardsuite.agents.play.views import round_note, table_marker


@dataclass(frozen=True)
class Move:
    """One move: ``text`` for ``seen_by`` (everyone if empty), ``public`` for the others."""

    number: int
    agent: str
    action: int
    text: str
    public: str
    seen_by: frozenset[str] = frozenset()
    note: str | None = None

    @property
    def private(self) -> bool:
        """Whether some seats read less than the full text."""
        return bool(self.seen_by)

    def line(self, seat: str | None) -> str:
        """The move's words for ``seat`` (``None``: a spectator, who reads everything)."""
        if seat is None or not self.seen_by or seat in self.seen_by:
            return self.text
        return self.public

    def entry(self, seat: str | None, who: str | None = None) -> dict[str, Any]:
        """The log entry a page shows ``seat``: ``{"n", "who", "text"[, "note"]}``."""
        out: dict[str, Any] = {"n": self.number, "who": who or self.agent, "text": self.line(seat)}
        if self.note:
            out["note"] = self.note
        return out


def step(env: Any, agent: str, action: int, number: int) -> Move:
    """Apply ``action`` of ``agent`` to ``env`` and return the logged move."""
    base = env.unwrapped
    text = base.describe_action(int(action))
    before = table_marker(env)
    give = _is_give_back(base, int(action))
    count = len(_trades(base.game, before[0])) if give else 0
    env.step(int(action))
    note = round_note(env, before)
    if not give:
        return Move(number, agent, int(action), text, text, frozenset(), note)
    me = int(agent.rpartition("_")[2])
    new = _trades(base.game, before[0])[count:]
    receiver = next((f"player_{r}" for g, r, forced in new if g == me and not forced), None)
    seen = frozenset({agent} if receiver is None else {agent, receiver})
    public = "give back a card" + (f" (to {receiver})" if receiver else "")
    return Move(number, agent, int(action), text, public, seen, note)


def _is_give_back(base: Any, action: int) -> bool:
    """Whether ``action`` is a J5 give-back chosen by the player (Scum rules only)."""
    rules = getattr(base, "rules", None)
    decode = getattr(rules, "decode", None)
    if decode is None:
        return False
    from scum_env.rules import ActionKind

    kind = decode(action)[0]
    return bool(kind == ActionKind.GIVE)


def _trades(state: Any, table: int) -> list[tuple[int, int, bool]]:
    """The table's trade log as ``(giver, receiver, forced)`` players."""
    if hasattr(state, "tables"):  # Scum Party: the table's members by their global seats
        members = list(state.members[table])
        log = getattr(state.tables[table], "trade_log", ())
        return [(members[g], members[r], forced) for g, r, _slot, forced in log]
    return [(g, r, forced) for g, r, _slot, forced in getattr(state, "trade_log", ())]
