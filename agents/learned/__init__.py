"""The torch-free side of trained agents: weights, forward pass, ``ppo:PATH``, ``pretrained:NAME``.

* ``safe_io``: the safe agent format (weights as safetensors, metadata as JSON);
* ``netspec``: the actor network's spec, observation scaling and numpy forward pass;
* ``features``: the card-counting inputs a network may read;
* ``policy``: a trained policy as an arena agent (``ppo:PATH``);
* ``layout``, ``size_generic``, ``any_table``: agents that sit at every table size;
* ``pretrained`` and ``models/``: the shipped agents, each folder with its weights and
  its model card (``README.md``);
* ``kinds``: the ``ppo``, ``rllib`` and ``pretrained`` agent kinds.

Nothing here imports torch: a trained agent plays with numpy alone.
May import: the core, the games and ``cardsuite.agents`` (base, kinds, registry).
"""
