"""Evaluation: tournaments, results, ratings, the leaderboard, the benchmark, records, datasets.

* ``tournament`` (`run_tournament`), ``workers`` and ``cli`` (``cardsuite tournament``);
* ``results``, ``result_files``, ``stats``, ``ratings``: statistics, intervals, ratings;
* ``round_robin``, ``checkpoints``, ``leaderboard`` (``cardsuite leaderboard``);
* ``deal_sets``, ``digests``, ``evaluation``, ``evaluation_cli`` (``cardsuite benchmark``);
* ``records``, ``record_schema``, ``dataset`` (``cardsuite dataset``): game records;
* ``simulate`` (``cardsuite simulate``); ``arguments``: the commands' shared grammar.

May import: the core, the games, and the top of ``cardsuite.agents`` (base,
kinds, registry, parts); never ``play``, ``search``, ``learned`` or
``cardsuite.train`` (agents of those kinds come through the registry).
"""

from typing import Any

from cardsuite.agents.arena import tournament as _tournament
from cardsuite.agents.arena import workers
from cardsuite.agents.arena.moved import moved_name
from cardsuite.agents.arena.tournament import derive_seed, run_tournament

__all__ = ["derive_seed", "run_tournament"]


def __getattr__(name: str) -> Any:
    """The names of the 0.2 module ``cardsuite.agents.arena`` (now ``tournament``; PEP 562)."""
    return moved_name(__name__, name, _tournament, workers)
