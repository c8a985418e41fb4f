"""Agents, the game registry, the tournament arena and the ``cardsuite`` CLI."""
