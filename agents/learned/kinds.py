"""The ``ppo:PATH`` and ``rllib:PATH`` agent kinds (``pretrained:NAME`` is `pretrained`'s).

Registered through the ``cardsuite.agents`` entry-point group (see
``pyproject.toml``). Importing this module is light: the agent classes load
only when a spec uses them; neither needs torch or ray.
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
