"""People at the table: the terminal (``cardsuite play``), the web table, views and move logs.

* ``terminal``: a person plays one seat in the terminal against agents;
* ``views`` and ``move_log``: what a person sees, and each move in the words each
  seat may know;
* ``replay``: a recorded game move by move (``cardsuite replay``);
* ``web/``: ``cardsuite serve``, the local web table.

May import: the core, the games, and ``cardsuite.agents`` (base, registry, arena's
records and tournament).
"""

from cardsuite.agents.play.terminal import HumanAgent, add_command, play_games

__all__ = ["HumanAgent", "add_command", "play_games"]
