"""People at the table: ``terminal`` (``cardsuite play``), ``views`` (what each seat sees
and its move log), ``replay`` (``cardsuite replay``) and ``web/`` (``cardsuite serve``).

May import: the core, the games, the top of ``cardsuite.agents`` and ``arena``.
"""

from cardsuite.agents.play import terminal
from cardsuite.agents.play.terminal import HumanAgent, add_command, play_games
from cardsuite.moved import moved_getattr, moved_table

__all__ = ["HumanAgent", "add_command", "play_games"]

# The other names of 0.2's module ``cardsuite.agents.play`` (now ``terminal``), with a warning (PEP 562).
__getattr__ = moved_getattr(__name__, moved_table(terminal, "HUMAN HumanQuit InputFn PrintFn run"))
