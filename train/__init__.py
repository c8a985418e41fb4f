"""Training for the suite's games: four trainers on one training core.

* ``core/``: what every trainer stands on (settings, run folder, checkpoint, scheduler,
  league, duplicate evaluator, logs, the training games table);
* ``ppo/`` (``cardsuite ppo``) and ``dmc/`` (``cardsuite dmc``): batched PPO and Deep
  Monte-Carlo; ``sb3/`` (``cardsuite train``) and ``rllib/`` (``--backend rllib``):
  adapters to Stable-Baselines3's MaskablePPO and to RLlib;
* ``tools/``: ``exploit``, ``export``, learning curves, the citable results table.

May import ``cardsuite``, the games and ``cardsuite.agents``; nothing below imports it.
Only the trainers import torch, and only when used.
"""

from cardsuite.moved import alias_modules

if __name__ == "train":  # imported from a checkout under its pre-0.2 top-level name
    raise ImportError(
        "the top-level package 'train' was retired in cardsuite 0.3; import 'cardsuite.train' instead"
    )

alias_modules(
    {
        "cardsuite.train.actor_critic": "cardsuite.train.ppo.network",
        "cardsuite.train.any_table": "cardsuite.agents.learned.any_table",
        "cardsuite.train.batched": "cardsuite.train.sb3.batched",
        "cardsuite.train.checkpoint": "cardsuite.train.sb3.checkpoint",
        "cardsuite.train.citable": "cardsuite.train.tools.citable",
        "cardsuite.train.cli": "cardsuite.train.sb3.cli",
        "cardsuite.train.config": "cardsuite.train.sb3.config",
        "cardsuite.train.core.features": "cardsuite.train.core.learned",
        "cardsuite.train.core.netspec": "cardsuite.agents.learned.netspec",
        "cardsuite.train.core.seats": "cardsuite.train.core.league",
        "cardsuite.train.curves": "cardsuite.train.tools.curves",
        "cardsuite.train.dmc_config": "cardsuite.train.dmc.config",
        "cardsuite.train.dmc_core": "cardsuite.train.dmc.parts",
        "cardsuite.train.docs": "cardsuite.train.tools.docs",
        "cardsuite.train.evaluate": "cardsuite.train.sb3.report",
        "cardsuite.train.exploit": "cardsuite.train.tools.exploit",
        "cardsuite.train.export": "cardsuite.train.tools.export",
        "cardsuite.train.imitation": "cardsuite.train.ppo.imitation",
        "cardsuite.train.kinds": "cardsuite.agents.learned.kinds",
        "cardsuite.train.policy": "cardsuite.train.core.learned",
        "cardsuite.train.ppo.checkpoint": "cardsuite.train.core.batched",
        "cardsuite.train.rllib.array_batch": "cardsuite.train.rllib.batched_ppo",
        "cardsuite.train.rllib.batched": "cardsuite.train.rllib.algorithm",
        "cardsuite.train.rllib.checkpoints": "cardsuite.train.rllib.trainer",
        "cardsuite.train.rllib.interrupt": "cardsuite.train.core.loop",
        "cardsuite.train.rllib.policy": "cardsuite.agents.learned.rllib",
        "cardsuite.train.rllib.tick_rollout": "cardsuite.train.rllib.batched_runner",
        "cardsuite.train.ppo_checkpoint": "cardsuite.train.core.batched",
        "cardsuite.train.ppo_config": "cardsuite.train.ppo.config",
        "cardsuite.train.ppo_games": "cardsuite.train.core.games",
        "cardsuite.train.pretrained": "cardsuite.agents.learned.pretrained",
        "cardsuite.train.rollout": "cardsuite.train.ppo.rollout",
        "cardsuite.train.safe_io": "cardsuite.train.core.learned",
        "cardsuite.train.sb3_setup": "cardsuite.train.sb3.setup",
        "cardsuite.train.size_generic": "cardsuite.agents.learned.size_generic",
        "cardsuite.train.trainer": "cardsuite.train.sb3.trainer",
        "cardsuite.train.wrappers": "cardsuite.train.sb3.single_seat",
    }
)
