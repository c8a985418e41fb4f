"""The training core: what every trainer (batched PPO, Deep Monte-Carlo, MaskablePPO, RLlib)
stands on, one module per concern.

* ``settings``: the one vocabulary (the config base every trainer's derives from);
* ``loop``: the one scheduler (budget, snapshots, evaluation, checkpoints, Ctrl-C);
* ``checkpoint`` and ``state``: the one checkpoint writer and reader, and the run
  state it keeps (games in flight, RNG and optimizer states);
* ``rundir``: the run folder and the one resume rule; ``log``: curves, TensorBoard;
* ``league`` and ``seats``: the opponents (baselines, snapshots, PFSP), built by `League.of`;
* ``evaluate``: the duplicate evaluator; ``duplicate``: the twin-deal baseline;
* ``games``, ``tables`` and ``batched``: the games the batched trainers play, their
  tables of games in flight, and what batched PPO and Deep Monte-Carlo share;
* ``cli``: the training commands' one grammar.

May import: the core, the games and ``cardsuite.agents``. Importing it is light; torch
loads only where a module needs it.
"""
