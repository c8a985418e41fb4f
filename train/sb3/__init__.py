"""The Stable-Baselines3 adapter (``cardsuite train``): sb3-contrib's MaskablePPO on the core.

* ``config``: `TrainConfig`, on the core's vocabulary; ``setup``: its envs and model,
  where the config is translated to MaskablePPO's names;
* ``trainer``: the run, on the core's scheduler; ``checkpoint``: its parts of the
  core's checkpoint; ``report``, ``cli``: its report and command;
* ``single_seat``: one seat of a table as a Gymnasium env (also the
  ``cardsuite/<Game>Single-v0`` ids); ``batched``: the batched engine as an SB3 VecEnv.

May import: the core, the games, ``cardsuite.agents`` and ``cardsuite.train.core``.
"""
