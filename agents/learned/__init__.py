"""The torch-free side of trained agents: weights, forward pass, ``ppo:PATH``, ``pretrained:NAME``.

* ``files``, ``meta``, ``safe_io``: the safe agent format (weights as safetensors,
  metadata as validated JSON);
* ``netspec``: the actor network's spec, observation scaling and numpy forward pass;
* ``features``: the card-counting inputs a network may read;
* ``policy``: a trained policy as an arena agent (``ppo:PATH``);
* ``rllib``: an RLlib run as an arena agent (``rllib:PATH``), older RLlib checkpoints too;
* ``layout``, ``size_generic``, ``any_table``: agents that sit at every table size;
* ``pretrained`` and ``models/``: the shipped agents, each folder with its weights and
  its model card (``README.md``), which ``cards`` reads (``cardsuite agents``);
* ``kinds``: the ``ppo`` and ``rllib`` agent kinds (``pretrained`` is ``pretrained``'s).

Nothing here imports torch: a trained agent plays with numpy alone. What only the trainers
need (torch loaders, MaskablePPO snapshots, a table's count inputs) is `cardsuite.train.core.learned`.
May import: the core, the games and ``cardsuite.agents`` (base, kinds, registry).
"""
