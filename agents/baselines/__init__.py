"""Baselines: greedy and the heuristics of every game, per game and batched.

* ``greedy`` and ``heuristic``: the agents, over ``scum``, ``party``, ``scandal`` and
  ``scandal_rule`` (Scandal's decision rule);
* ``batched_scum``, ``party`` and ``batched_scandal`` (with ``scandal_arrays``): the same
  rules as array operations, held to their per-game twins by differential tests.

May import: the core, the games, ``cardsuite.agents.base`` and ``parts``.
"""
