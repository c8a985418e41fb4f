"""The Stable-Baselines3 adapter (``cardsuite train``): sb3-contrib's MaskablePPO on the core.

* ``config``: `TrainConfig`, translated to MaskablePPO's names at the edge;
* ``trainer``: the run; ``setup``: its vectorised envs and model;
* ``single_seat``: one seat of a table as a Gymnasium env (also the
  ``cardsuite/<Game>Single-v0`` ids); ``batched``: the batched engine as an SB3 VecEnv;
* ``checkpoint``, ``report``, ``cli``: its checkpoints, report and command.

May import: the core, the games, ``cardsuite.agents`` and ``cardsuite.train.core``.
"""
