"""Distributed self-play on Ray RLlib (the optional ``rllib`` extra), on the training core.

* `config`: `RLlibTrainConfig`, the core's vocabulary plus RLlib's own settings;
* `algorithm`: the config as RLlib's ``PPOConfig`` (the one place RLlib's names appear);
* `trainer`: the `Trainer` on the core's loop and ``cardsuite train --backend rllib``;
* `league`: the core's League on the driver, its draw table on the env runners;
* `env`, `module`: the per-game env behind RLlib's PettingZoo wrapper, the masked module;
* `batched_env`, `batched_runner`, `batched_ppo`: the batched sampler (one env runner
  ticking a batched engine's games, array train batches, PPO's ``training_step`` on them);
* `legacy`: resuming a run of an older cardsuite.

May import the core, the games, ``cardsuite.agents`` and ``cardsuite.train.core``.
Importing this package or `config` imports nothing from Ray; the other modules do.
"""
