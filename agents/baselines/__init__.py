"""Baselines: greedy and the heuristics of every game, per game and batched.

* ``greedy``: the simple, documented rule bot of each game (``greedy``);
* ``heuristic``: `HeuristicAgent`, the strongest rule bot (``heuristic``), which plays
  ``scum`` (Scum and Scum Party's tables), ``party`` or ``scandal`` (the
  observation side) over ``scandal_rule`` (Scandal's decision rule);
* ``batched_scum``, ``batched_party``, ``batched_scandal`` (with
  ``scandal_arrays``): the same decision rules over a batch of observations as
  array operations, for speed; differential tests hold each to its per-game twin.

May import: the core, the games, ``cardsuite.agents.base`` and ``parts``.
"""
