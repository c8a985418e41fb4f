"""Learning curves averaged over seeds, with 95% Student t bands (PNG).

Runs of one preset that differ by seed, averaged on a common step grid::

    python -m cardsuite.train.tools.curves runs/ppo4-s0 runs/ppo4-s1 --out curves.png
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from cardsuite.train.core.log import PANELS, band, eval_opponents, panel_column, plot_seeds

__all__ = ["PANELS", "band", "eval_opponents", "main", "panel_column", "plot_seeds"]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cardsuite.train.tools.curves RUN... --out PNG``."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", help="run directories of one preset, one per seed")
    p.add_argument("--out", required=True, help="PNG to write")
    p.add_argument("--title", default="", help="figure title")
    a = p.parse_args(argv)
    print(plot_seeds([Path(r) for r in a.runs], Path(a.out), a.title))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
