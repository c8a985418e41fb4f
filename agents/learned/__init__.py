"""The torch-free side of trained agents: weights, forward pass, ``ppo:PATH``, ``pretrained:NAME``.

* ``files``, ``meta``, ``safe_io``: the safe agent format (safetensors and validated JSON);
* ``netspec``, ``features``: the actor network, its numpy forward pass and count inputs;
* ``policy`` (``ppo:PATH``), ``rllib`` (``rllib:PATH``), ``kinds``: trained agents;
* ``layout``, ``size_generic``, ``any_table``: agents that sit at every table size;
* ``pretrained``, ``models/`` and ``cards``: the shipped agents and their model cards;
  ``strength``: the cards' shares by table size, and which agent to seat at each.

Nothing here imports torch (the trainers' side is `cardsuite.train.core.learned`).
May import: the core, the games and ``cardsuite.agents`` (base, kinds, registry).
"""
