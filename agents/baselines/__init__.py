"""Baselines: uniform random, greedy and the heuristics of every game, per game and batched.

* ``greedy``: the simple, documented rule bot of each game (``greedy``);
* ``heuristic``: `HeuristicAgent`, the strongest rule bot (``heuristic``), which plays
  ``scum`` (Scum and Scum Party's tables), ``party`` or ``scandal``;
* ``batched_scum``, ``batched_party``, ``batched_scandal``: the same decision rules over
  a batch of observations as array operations (the trainers' league and the
  batched search); differential tests hold each to its per-game twin.

May import: the core, the games, ``cardsuite.agents.base`` and ``parts``.
"""
