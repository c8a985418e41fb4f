"""The agent kinds that the training layer adds to the arena.

Registered through the ``cardsuite.agents`` entry-point group (see
``pyproject.toml``), so that `cardsuite.agents` never names this package:
the arrows point from ``train`` down to ``agents``. Importing this module is
light: the agent classes (and torch or ray) load only when a spec uses them.
"""

from __future__ import annotations

from cardsuite.agents.kinds import AgentKind

PPO = AgentKind(
    "ppo",
    "cardsuite.agents.learned.size_generic:TrainedAgent",
    "a trained policy: ppo:PATH (checkpoint)",
    argument="path",
    extra="train",
    operator_only=True,
)

RLLIB = AgentKind(
    "rllib",
    "cardsuite.train.rllib.policy:RLlibAgent",
    "an RLlib-trained policy: rllib:PATH",
    argument="path",
    extra="rllib",
    operator_only=True,
)
