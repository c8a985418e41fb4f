"""The training core: what every trainer (batched PPO, Deep Monte-Carlo, MaskablePPO, RLlib)
stands on, one module per concern.

* ``settings``: the one vocabulary; ``cli``: the training commands' one grammar;
* ``loop``: the one scheduler (budget, snapshots, evaluation, checkpoints, Ctrl-C);
* ``checkpoint`` and ``state``: the one checkpoint writer and reader, and the run state;
* ``rundir``: the run folder and the one resume rule; ``log``: curves, TensorBoard;
* ``league`` and ``seats``: the opponents (baselines, snapshots, PFSP), built by `League.of`;
* ``evaluate``: the duplicate evaluator; ``learned``: the training side of learned agents;
* ``games``, ``tables``, ``batched``, ``warm`` and ``duplicate``: what the batched trainers
  share (their games, tables of games in flight, warm-start data, twin-deal baseline).

May import: the core, the games and ``cardsuite.agents``. Importing it is light; torch
loads only where a module needs it.
"""
