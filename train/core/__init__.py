"""The training core: what every trainer stands on, one module per concern.

* ``settings``: the one vocabulary; ``cli``: the training commands' one grammar;
* ``loop``: the one scheduler; ``checkpoint``, ``state``: the one checkpoint writer and reader;
* ``rundir``: the run folder and its resume rule; ``log``: curves, TensorBoard;
* ``league``: the opponents; ``evaluate``: the duplicate evaluator;
* ``learned``: the training side of learned agents; ``nets``: the networks' torch pieces;
* ``games``, ``tables`` (with the warm start's data), ``batched``, ``duplicate``: what the
  batched trainers share.

May import: the core, the games and ``cardsuite.agents``. Torch loads only where needed.
"""
