"""Deprecated: the ``cardsuite`` CLI moved to :mod:`cardsuite.cli` in 0.2."""

import warnings

from cardsuite.cli import build_parser, main

warnings.warn(
    "agents.cli is deprecated and will be removed in cardsuite 0.3; use cardsuite.cli",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["build_parser", "main"]
