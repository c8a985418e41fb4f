"""Evaluation: tournaments, results, ratings, the leaderboard, the benchmark, records, datasets.

* ``tournament`` (`run_tournament`) and ``cli`` (``cardsuite tournament``): seeded
  games with fair seating, duplicate deals, worker processes;
* ``results``, ``stats``, ``ratings``: per-agent statistics with intervals and ratings;
* ``leaderboard`` (``cardsuite leaderboard``) and ``benchmark`` (``cardsuite benchmark``);
* ``records``, ``record_schema``, ``dataset``: game records and their arrays;
* ``simulate`` (``cardsuite simulate``): random legal games and throughput.

May import: the core, the games, and ``cardsuite.agents`` (base, registry,
baselines, search); never ``play`` or ``cardsuite.train``.
"""

from cardsuite.agents.arena.tournament import derive_seed, run_tournament

__all__ = ["derive_seed", "run_tournament"]
