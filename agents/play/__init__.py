"""People at the table: ``terminal`` (``cardsuite play``), ``views`` (what each seat sees
and its move log), ``replay`` (``cardsuite replay``) and ``web/`` (``cardsuite serve``).

May import: the core, the games, the top of ``cardsuite.agents`` and ``arena``.
"""

from typing import Any

from cardsuite.agents.play import terminal
from cardsuite.agents.play.terminal import HumanAgent, add_command, play_games
from cardsuite.moved import moved_name, moved_table

__all__ = ["HumanAgent", "add_command", "play_games"]

#: The other names of 0.2's module ``cardsuite.agents.play`` (now ``terminal``).
_MOVED = moved_table(terminal, "HUMAN HumanQuit InputFn PrintFn run")


def __getattr__(name: str) -> Any:
    """A 0.2 name that moved (`_MOVED`), with a warning naming its home (PEP 562)."""
    return moved_name(__name__, name, _MOVED)
