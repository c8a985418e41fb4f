"""Distributed self-play on Ray RLlib (the optional ``rllib`` extra).

* `train.rllib.env`: suite envs behind RLlib's PettingZoo wrapper;
* `train.rllib.module`: a masked PPO RLModule for the suite's dict observations;
* `train.rllib.config`: the run file (`RLlibTrainConfig`);
* `train.rllib.trainer`: ``run(config_path, args)`` behind ``cardsuite train --backend rllib``;
* `train.rllib.league`: the training core's League on the driver, synced with the runners;
* `train.rllib.checkpoints`: RLlib's checkpoints for resuming, the core's for ``ppo:RUN_DIR``;
* `train.rllib.policy`: a trained checkpoint as an arena agent (``rllib:PATH``).

Importing this package imports nothing from Ray; the submodules that need it
(``env``, ``module``, and the training and loading functions) import it.
"""
