"""The Stable-Baselines3 adapter (``cardsuite train``): sb3-contrib's MaskablePPO on the core.

``config`` (`TrainConfig`), ``setup`` (envs and model: the one place SB3's names appear),
``trainer``, ``checkpoint``, ``report``, ``cli``; ``single_seat`` (one seat as a Gymnasium
env) and ``batched`` (the batched engine as an SB3 VecEnv).

May import: the core, the games, ``cardsuite.agents`` and ``cardsuite.train.core``.
"""
