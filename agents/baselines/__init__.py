"""Baselines: greedy and the heuristics of every game, per game and batched.

* ``greedy``: the simple, documented rule bot of each game (``greedy``);
* ``heuristic``: `HeuristicAgent` (``heuristic``), over ``scum``, ``party`` and
  ``scandal`` (the observation side of ``scandal_rule``, Scandal's decision rule);
* ``batched_scum``, ``party``'s `BatchedPartyHeuristic` and ``batched_scandal``
  (with ``scandal_arrays``): the same rules over a batch as array operations, for
  speed; differential tests hold each to its per-game twin.

May import: the core, the games, ``cardsuite.agents.base`` and ``parts``.
"""
