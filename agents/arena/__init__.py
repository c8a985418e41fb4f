"""Evaluation: ``tournament`` (``cli``, ``workers``), ``results``, ``stats``, ``ratings``, the
leaderboard (``round_robin``, ``leaderboard``), the benchmark (``deal_sets``, ``evaluation``,
``evaluation_cli``), game records (``records``, ``record_schema``, ``dataset``), ``simulate``.

May import: the core, the games, and the top of ``cardsuite.agents`` (base, kinds, registry,
parts); never ``play``, ``search``, ``learned`` or ``cardsuite.train``.
"""

from cardsuite.agents.arena import tournament, workers
from cardsuite.agents.arena.tournament import derive_seed, run_tournament
from cardsuite.moved import moved_getattr, moved_table

__all__ = ["derive_seed", "run_tournament"]

# The other names of 0.2's module ``cardsuite.agents.arena`` (now ``tournament``), with a warning (PEP 562).
__getattr__ = moved_getattr(
    __name__,
    moved_table(
        tournament, "base_pattern num_rotations seating GamePlan plan_games Setup Table play_chunk"
    )
    | moved_table(workers, "exit_with_parent THREAD_VARIABLES one_thread_per_worker"),
)
