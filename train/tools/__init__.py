"""Commands and reports on trained agents.

* ``exploit`` (``cardsuite exploit``): an approximate best response to a frozen agent;
* ``export`` (``cardsuite export``): a trusted SB3 zip or RLlib checkpoint to the safe format;
* ``curves``: learning curves averaged over seeds; ``citable``: the citable results
  table; ``docs``: the training layer's generated doc tables.

May import: everything below it (the trainers, the core, agents, games).
"""
