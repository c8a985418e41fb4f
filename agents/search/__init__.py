"""Information-set searches: ISMCTS, the batched search, the guided search over a learned agent.

* ``base``: what every search shares; ``reference``: ISMCTS (``ismcts``) and its
  batched twin (``ismcts-batched``), on ``rollouts`` (leaves rolled out on the
  batched engines) and ``kernels/`` (Scandal's compiled rollouts);
* ``games``: each game's search adapter and ``search`` part;
* ``guided`` and ``roots``: search over a learned agent (``search:pretrained:scum4``);
* ``kinds``: the agent kinds of the batched and guided searches.

May import: the core, the games, ``cardsuite.agents`` (base, registry, parts),
``baselines`` and ``learned``.
"""
