"""What every compiled kernel shares: numba (optional, the ``fast`` extra), the engine's
`FIELDS` arrays, its `RolloutTables` and the checks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cardsuite.errors import UsageError
from scandal_env.batched.bridge import write_states

numba: Any
try:  # optional: the "fast" extra
    import numba
except ImportError:  # pragma: no cover - exercised where numba is not installed
    numba = None

#: The engine arrays a kernel reads and writes, in the order the kernels unpack them.
FIELDS = ("hands", "known", "counts", "placed_by", "meld_owner", "table_pts", "build",
          "build_scandal", "pile_arr", "pile_pos", "pile_len", "stock_arr", "stock_len",
          "stock_public", "cur", "dealer", "phase", "duty", "forbidden", "turn", "scores",
          "hand_end", "game_over")  # fmt: skip


def available() -> bool:
    """Whether numba is installed, so that the kernels run compiled."""
    return numba is not None


def jit(f: Callable[..., Any], **options: Any) -> Callable[..., Any]:
    """Compiled by numba at its first call, cached on disk (numba's ``__pycache__`` files)."""
    if numba is None:  # pragma: no cover
        return f
    try:
        return numba.njit(cache=True, nogil=True, **options)(f)  # type: ignore[no-any-return]
    except RuntimeError:  # pragma: no cover - no writable cache place: compile per process
        return numba.njit(nogil=True, **options)(f)  # type: ignore[no-any-return]


def inline(f: Callable[..., Any]) -> Callable[..., Any]:
    """Compiled into its caller (no call with dozens of array arguments per move)."""
    return jit(f, inline="always")


def state_arrays(engine: Any) -> tuple[np.ndarray, ...]:
    """The engine's `FIELDS` arrays, as the kernels take them."""
    return tuple(getattr(engine, f) for f in FIELDS)


class RolloutTables:
    """The deck's tables (``tabs``, as ``mask_row`` unpacks them), the action layout's
    first ids, its size, ``max_turns`` and ``target_score`` (``lay``), and whether the
    engine plays one hand per episode (``hand_only``)."""

    def __init__(self, engine: Any) -> None:
        """Build the tables of ``engine`` (a numpy `BatchedScandal`)."""
        rules, cfg = engine.rules, engine.config
        deck, lay = rules.deck, rules.layout
        ints = [deck.title_of, deck.pair_card, deck.pair_scandal, rules.pair_of]
        self.tabs = (
            np.ascontiguousarray(deck.member, dtype=np.bool_),
            np.asarray(deck.is_title, dtype=np.bool_),
            np.asarray(deck.is_bg, dtype=np.bool_),
            *(np.asarray(t, dtype=np.int64) for t in ints),
            *_padded(deck.cards_of),
            *_padded(deck.scandals_of),
            np.asarray(deck.value, dtype=np.int64),
        )
        self.lay = np.array(
            [lay.DRAW_STOCK, lay.DRAW_DISCARD, lay.MELD_START, lay.MELD_ADD, lay.MELD_FINISH,
             lay.LAYOFF, lay.DISCARD, lay.size, cfg.max_turns, cfg.target_score],
            dtype=np.int64,
        )  # fmt: skip
        self.hand_only = cfg.episode == "hand"


def _padded(rows: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Index rows of unequal length as one int64 array padded with -1, and their lengths."""
    out = np.full((len(rows), max(len(r) for r in rows)), -1, dtype=np.int64)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out, np.array([len(r) for r in rows], dtype=np.int64)


def check_rows(name: str, engine: Any, m: int, tables: RolloutTables | None) -> RolloutTables:
    """The engine's tables, once ``name`` may play its rows ``0 .. m-1``; UsageError: no
    numba, a torch engine, one that plays whole games, or ``m`` out of range."""
    if numba is None:
        raise UsageError(f"{name} needs numba (pip install 'cardsuite[fast]')")
    if engine.xp.name != "numpy":
        raise UsageError(f"{name} plays numpy engines only")
    t = tables if tables is not None else RolloutTables(engine)
    if not t.hand_only:
        raise UsageError(f'{name} plays one hand per row: build the engine with episode="hand"')
    if not 0 <= m <= engine.num_games:
        raise UsageError(f"{name}: m must be in 0..{engine.num_games}, got {m}")
    return t


def compilable(engine: Any) -> bool:
    """Whether a kernel can play ``engine``: numba installed, numpy, one hand per episode."""
    return numba is not None and engine.xp.name == "numpy" and engine.config.episode == "hand"


def runner(engine: Any, play: Callable[[int, int], Any]) -> Callable[..., None]:
    """A search's ``run(states, cutoff, loaded=False)``: ``states`` written into rows ``0 ..``
    (unless ``loaded``), then ``play(m, cutoff)``."""

    def run(states: list[Any], cutoff: int, loaded: bool = False) -> None:
        if not loaded:
            write_states(engine, states)
        play(len(states), cutoff)

    return run
