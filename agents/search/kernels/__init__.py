"""Compiled rollout kernels of the batched search (numba, the ``fast`` extra).

* ``scandal_heuristic``: heuristic rollouts of a numpy `BatchedScandal`, row by row;
* ``scandal_policy``: rollouts by a learned policy's numpy network, row by row.

Each makes the same choices as the array code it speeds up (differential tests);
without numba the same functions run as plain Python. May import: the core, the
games and ``cardsuite.agents.learned.netspec``.
"""
