"""Distributed self-play on Ray RLlib (the optional ``rllib`` extra), on the training core.

``config`` (`RLlibTrainConfig`), ``algorithm`` (the config as RLlib's ``PPOConfig``: the
one place RLlib's names appear), ``trainer``, ``league``, ``env`` and ``module`` (the
per-game sampler), ``batched_env``, ``batched_runner`` and ``batched_ppo`` (the batched
sampler), ``legacy`` (resuming an older cardsuite's run).

May import the core, the games, ``cardsuite.agents`` and ``cardsuite.train.core``.
Importing this package or `config` imports nothing from Ray.
"""
