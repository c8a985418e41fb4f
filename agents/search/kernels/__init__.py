"""Compiled rollout kernels of the batched search (numba, the ``fast`` extra).

* ``base``: what every kernel shares (numba, the engine's arrays, the tables, the checks);
* ``scandal_moves``: Scandal's legal mask and moves, one row at a time;
* ``scandal_heuristic``: rollouts by the heuristic, row by row;
* ``scandal_policy``: rollouts by a learned policy's network, row by row.

Each makes the same choices as the code it speeds up (differential tests);
without numba the searches keep their array loops. May import: the core, the
games and ``cardsuite.agents.learned.netspec``.
"""
