"""Move logs per seat: each move in the words each seat may know.

Most moves are public: every player sees a card played, a pass, a Scandal
discard, meld or lay-off. A few are not. In Scum's J5 trade the President
(and Vice President) *chooses* the cards to give back; only the giver and
the receiver see which card it was, exactly as their observations do (the
``trade_given``/``trade_received`` pieces of ``obs_spec`` show a player only
the trades it took part in). The others learn only that a card changed
hands. A Scandal draw from the stock never names the card (its description
is "draw from the stock"), and Scum Party trades are forced, never a move.

[step][cardsuite.agents.play.move_log.step] applies a move to an env and returns
a [Move][cardsuite.agents.play.move_log.Move] that knows who may read its full
text; [Move.line][cardsuite.agents.play.move_log.Move.line] gives the words for one
seat (``None``: a spectator of an all-agent game, who sees everything). The
web table (``cardsuite serve``) and ``cardsuite play`` build every seat's log
with it, so no seat reads another seat's private trade.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardsuite.agents.play.views import round_note, table_marker


@dataclass(frozen=True)
class Move:
    """One move as the log keeps it.

    Attributes:
        number: 1-based move number in the game.
        agent: the player who moved (``player_k``).
        action: the action id.
        text: the move in full (``describe_action``).
        public: what a seat that did not take part reads; equal to ``text``
            for a public move.
        seen_by: the seats that read ``text``; empty for a public move.
        note: the end of a round, trick, hand or series (public), if any.
    """

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
    """Apply ``action`` of ``agent`` to ``env`` and return the logged move.

    A Scum give-back (J5) is private to the giver and the receiver, read
    from the engine's trade log right after the move; everything else is
    public.
    """
    base = env.unwrapped
    text = base.describe_action(int(action))
    before = table_marker(env)
    give = _is_give_back(base, int(action))
    trades_before = _trade_count(base.game, before[0]) if give else 0
    env.step(int(action))
    note = round_note(env, before)
    if not give:
        return Move(number, agent, int(action), text, text, frozenset(), note)
    receiver = _receiver(base.game, before[0], agent, trades_before)
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


def _table_state(state: Any, table: int) -> tuple[Any, list[int] | None]:
    """The Scum table state and, in Scum Party, its members' global seats."""
    if hasattr(state, "tables"):
        return state.tables[table], list(state.members[table])
    return state, None


def _trade_count(state: Any, table: int) -> int:
    st, _members = _table_state(state, table)
    return len(getattr(st, "trade_log", ()))


def _receiver(state: Any, table: int, giver: str, count: int) -> str | None:
    """The player who received ``giver``'s give-back (the trade log's new entry)."""
    st, members = _table_state(state, table)
    me = int(giver.rpartition("_")[2])
    for g, r, _slot, forced in list(getattr(st, "trade_log", ()))[count:]:
        g_name = members[g] if members is not None else g
        r_name = members[r] if members is not None else r
        if not forced and g_name == me:
            return f"player_{r_name}"
    return None
