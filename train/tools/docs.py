"""The training layer's generated doc tables (the ``cardsuite.doc_tables`` entry point)."""

from __future__ import annotations

from collections.abc import Callable


def tables() -> list[tuple[str, str, Callable[[], str]]]:
    """``(page, marker, generate)`` of every training config's table and of the results table."""
    from cardsuite.train.dmc.config import DMCConfig
    from cardsuite.train.ppo.config import PPOConfig
    from cardsuite.train.rllib.config import RLlibTrainConfig
    from cardsuite.train.sb3.config import TrainConfig
    from cardsuite.train.tools.citable import table

    return [
        ("docs/training.md", "ppo-config", PPOConfig.doc_table),
        ("docs/training.md", "dmc-config", DMCConfig.doc_table),
        ("docs/training.md", "maskable-ppo-config", TrainConfig.doc_table),
        ("docs/rllib.md", "rllib-config", RLlibTrainConfig.doc_table),
        ("docs/results.md", "citable-results", table),
    ]
