"""Preset first deals of `BatchedScandal.reset`, checked on the host: bad input raises
[`PresetError`][cardsuite.errors.PresetError] naming the field and the first game at fault."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from cardsuite.batched.backend import Array, Backend
from cardsuite.batched.checks import preset_ints
from cardsuite.errors import PresetError

if TYPE_CHECKING:
    from scandal_env.batched.engine import BatchedScandal


@dataclass
class Preset:
    """Checked preset arrays (host numpy), each None when not given."""

    hands: np.ndarray | None
    pile: np.ndarray | None  # [N, n] bottom first, padded with -1
    stock: np.ndarray | None  # [N, n] bottom first, padded with -1
    dealer: np.ndarray | None
    scores: np.ndarray | None

    def arrays(self, xp: Backend) -> tuple[Array, Array, Array]:
        """``(hands, pile, stock)`` on the backend."""
        assert self.hands is not None and self.pile is not None and self.stock is not None
        return (
            xp.asarray(self.hands, xp.bool),
            xp.asarray(self.pile, xp.int64),
            xp.asarray(self.stock, xp.int64),
        )


def _first_bad(bad: np.ndarray) -> int:
    return int(np.flatnonzero(bad.reshape(bad.shape[0], -1).any(axis=1))[0])


def _ints(x: Any, name: str, shape: tuple[int, ...]) -> np.ndarray:
    return preset_ints(name, x, shape, "integers").astype(np.int64)


def _bottom_first(top_first: np.ndarray) -> np.ndarray:
    """Rows of card ids, top first and padded with -1 at the end, reversed per row."""
    length = (top_first >= 0).sum(axis=1)
    idx = length[:, None] - 1 - np.arange(top_first.shape[1])[None, :]
    out = np.take_along_axis(top_first, np.maximum(idx, 0), axis=1)
    return np.where(idx >= 0, out, -1)


def check_preset(
    eng: BatchedScandal, hands: Any, discard: Any, stock: Any, dealer: Any, scores: Any
) -> Preset:
    """Check the reset presets of ``eng``; PresetError names the field at fault."""
    g, p, n = eng.num_games, eng.P, eng.t.n
    out = Preset(None, None, None, None, None)
    if dealer is not None:
        d = _ints(dealer, "dealer", (g,))
        if ((d < 0) | (d >= p)).any():
            raise PresetError(f"preset dealer of game {_first_bad((d < 0) | (d >= p))} "
                              f"must be a seat 0..{p - 1}")  # fmt: skip
        out.dealer = d
    if scores is not None:
        out.scores = _ints(scores, "scores", (g, p))
    if hands is None:
        if discard is not None or stock is not None:
            raise PresetError("preset discard/stock need preset hands too")
        return out
    if discard is None or stock is None:
        raise PresetError("preset hands need discard and stock too (top first, padded with -1)")
    h = np.asarray(hands)
    if h.shape != (g, p, n) or h.dtype != np.bool_:
        raise PresetError(
            f"preset hands must be bools of shape {[g, p, n]}, got {h.dtype} {h.shape}"
        )
    pile = _ints(discard, "discard", (g, n))
    stk = _ints(stock, "stock", (g, n))
    for name, arr in (("discard", pile), ("stock", stk)):
        bad = (arr < -1) | (arr >= n)
        if bad.any():
            raise PresetError(f"preset {name} of game {_first_bad(bad)}: card ids run 0..{n - 1}")
        gap = (arr[:, 1:] >= 0) & (arr[:, :-1] < 0)
        if gap.any():
            raise PresetError(
                f"preset {name} of game {_first_bad(gap)}: -1 padding only at the end"
            )
    count = h.sum(axis=1).astype(np.int64)
    rows = np.repeat(np.arange(g), n)
    for arr in (pile, stk):
        ok = arr.reshape(-1) >= 0
        np.add.at(count, (rows[ok], arr.reshape(-1)[ok]), 1)
    if (count != 1).any():
        gbad = _first_bad(count != 1)
        cards = np.flatnonzero(count[gbad] != 1)[:5].tolist()
        raise PresetError(f"preset of game {gbad}: every card must be in exactly one place "
                          f"(hands, discard, stock); not so for card id(s) {cards}")  # fmt: skip
    empty = h.sum(axis=2) == 0
    if empty.any():
        raise PresetError(f"preset hands of game {_first_bad(empty)}: every player needs a card")
    nothing = ((pile >= 0).sum(axis=1) + (stk >= 0).sum(axis=1)) == 0
    if nothing.any():
        raise PresetError(f"preset of game {_first_bad(nothing)} leaves nothing to draw: "
                          "the hand is over at once (S4)")  # fmt: skip
    out.hands = h
    out.pile = _bottom_first(pile)
    out.stock = _bottom_first(stk)
    return out
