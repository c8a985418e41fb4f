"""Training for the suite's games: four trainers on one training core.

Imported as ``cardsuite.train`` (the folder is ``train/`` in the
repository, so a user's own ``train.py`` cannot shadow it).

* ``core``: what every trainer stands on: the run folder and the one resume
  rule, the one checkpoint writer, the network spec and numpy forward pass,
  the league, the duplicate evaluator, logging, the shared settings and the
  command-line grammar;
* ``ppo`` (``cardsuite ppo``) and ``dmc`` (``cardsuite dmc``): batched PPO and
  Deep Monte-Carlo, one readable file each, with their settings in
  ``ppo_config`` and ``dmc_config``;
* ``trainer``, ``config``, ``wrappers``, ``sb3_setup``, ``checkpoint``,
  ``evaluate``, ``cli`` (``cardsuite train``): the MaskablePPO (SB3) adapter;
* ``rllib`` (``cardsuite train --backend rllib``): the RLlib adapter;
* ``policy``: a trained agent for the arena (``ppo:PATH``), no torch needed.

Only the trainers import torch, and only when used.
"""

if __name__ == "train":  # imported from a checkout under its pre-0.2 top-level name
    raise ImportError(
        "the top-level package 'train' was retired in cardsuite 0.3; import 'cardsuite.train' instead"
    )
