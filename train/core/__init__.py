"""The training core: what every trainer of the suite stands on.

One module per concern, each used by every trainer (batched PPO,
Deep Monte-Carlo, and the MaskablePPO and RLlib adapters):

* ``rundir``: the run folder (a run is never overwritten) and the one
  resume rule (`plan_run`), log truncation on resume;
* ``checkpoint``: the one atomic checkpoint writer (`write_checkpoint`,
  which also finishes a swap a crash left half done) and reader
  (`read_checkpoint`, a checksummed manifest), plus engine, RNG and
  optimizer state;
* ``netspec``: the actor network's spec, observation scaling and the numpy
  forward pass every shipped agent and frozen snapshot plays with;
* ``league``: the opponents (fixed baselines, frozen snapshots, PFSP);
* ``evaluate``: the duplicate evaluator (batched deals, every rotation);
* ``log``: curves (CSV), TensorBoard and progress lines;
* ``loop``: the batched trainers' loop (budget, progress, snapshot / eval /
  checkpoint schedules) and `seed_all`;
* ``settings`` and ``cli``: the shared config fields and command-line grammar.

Importing ``cardsuite.train.core`` is light; torch loads only where a
module needs it.
"""
