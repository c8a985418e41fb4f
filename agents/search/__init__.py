"""Information-set searches: ISMCTS, the batched search, the guided search over a learned agent.

* ``base``: what every search shares (the tree, the descent, the decision, the loop);
* ``reference``: the readable per-game ISMCTS (``ismcts``);
* ``games``: each game's search adapter and its record's ``search`` part;
* ``batched``: ISMCTS whose leaves are rolled out in waves (``ismcts-batched``), on
  ``rollouts`` (`BatchedRollouts`) and ``leaves`` (each game's `LeafEngine`);
  ``kernels/``: Scandal's compiled rollouts;
* ``guided`` and ``roots``: search over a learned agent (``search:pretrained:scum4``);
* ``kinds``: the agent kinds of the batched and guided searches.

May import: the core, the games, ``cardsuite.agents`` (base, registry, parts),
``baselines`` and ``learned``.
"""
