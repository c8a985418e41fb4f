"""Information-set searches: ISMCTS, the batched search, the guided search over a learned agent.

* ``base``: what every search shares (the tree, the descent, the loop);
* ``reference``: the readable per-game ISMCTS (``ismcts``);
* ``batched`` and ``leaves``: ISMCTS whose leaves are rolled out together on the
  batched engines (``ismcts-batched``); ``kernels/``: Scandal's compiled rollouts;
* ``guided`` and ``paired_root``: search over a learned agent (``search:pretrained:scum4``);
* ``kinds``: the agent kinds of the batched and guided searches.

May import: the core, the games, ``cardsuite.agents`` (base, registry, parts),
``baselines`` and ``learned``.
"""
