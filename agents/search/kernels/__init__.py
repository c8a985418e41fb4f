"""Compiled rollout kernels of the batched search (numba, the ``fast`` extra).

``base`` (numba, the engine's arrays and tables), ``scandal_moves`` (mask and moves),
``scandal_heuristic`` and ``scandal_policy`` (rollouts by the heuristic, by a network).
Each makes the same choices as the code it speeds up (differential tests).
"""
