"""Information-set searches: ISMCTS, the batched search, the guided search over a learned agent.

* ``base``: what every search shares; ``games``: each game's adapter and ``search`` part;
* ``reference``: ``ismcts`` and ``ismcts-batched``, on ``rollouts`` and ``kernels/``;
* ``guided``, ``roots``: search over a learned agent; ``kinds``: the agent kinds.

May import: the core, the games, ``cardsuite.agents`` (base, registry, parts),
``baselines`` and ``learned``.
"""
