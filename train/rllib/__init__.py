"""Distributed self-play on Ray RLlib (the optional ``rllib`` extra).

* :mod:`train.rllib.env`: suite envs behind RLlib's PettingZoo wrapper;
* :mod:`train.rllib.module`: a masked PPO RLModule for the suite's dict observations;
* :mod:`train.rllib.config`: the run file (:class:`~train.rllib.config.RLlibTrainConfig`);
* :mod:`train.rllib.trainer`: ``run(config_path, args)`` behind ``cardsuite train --backend rllib``;
* :mod:`train.rllib.policy`: a trained checkpoint as an arena agent (``rllib:PATH``).

Importing this package imports nothing from Ray; the submodules that need it
(``env``, ``module``, and the training and loading functions) import it.
"""
