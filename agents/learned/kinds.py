"""The ``ppo:PATH`` and ``rllib:PATH`` agent kinds (entry points of ``pyproject.toml``).

Light to import: the agent classes load when a spec uses them (``pretrained`` is `pretrained`'s).
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
    "cardsuite.agents.learned.rllib:RLlibAgent",
    "an RLlib-trained policy: rllib:PATH",
    argument="path",
    operator_only=True,
)
