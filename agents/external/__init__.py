"""Agents from elsewhere: ``exec:COMMAND`` (any language, JSON lines) and OpenSpiel.

* ``exec``: an agent run as a child process speaking the documented protocol;
* ``openspiel/``: the suite's games as OpenSpiel Python games, for OpenSpiel's
  algorithms and bots.

May import: the core, the games and ``cardsuite.agents`` (base, kinds, registry).
"""
