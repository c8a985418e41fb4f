"""Self-play training for the suite's games (MaskablePPO, ``cardsuite train``).

Modules: :mod:`train.config` (the run config), :mod:`train.wrappers` (the
single-agent Gymnasium view of one learner seat), :mod:`train.opponents` (the
opponent pool), :mod:`train.trainer` (the MaskablePPO loop),
:mod:`train.checkpoint`, :mod:`train.policy` (a trained agent for the arena),
:mod:`train.evaluate` and :mod:`train.cli`. Only the trainer, checkpoint and
policy modules import torch, and only when used.
"""
