"""Differential test: the batched Scum heuristic chooses exactly what the per-game one does.

States come from the batched engine (every phase: give-backs of J5, leads,
follows, several series with trades), played by a mix of random moves and the
heuristic itself so that the hands look like real games. On every row of
every step, `BatchedScumHeuristic` must return the action that
`ScumHeuristic` returns for the same
observation and mask.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardsuite.agents.baselines.batched_scum import BatchedScumHeuristic
from cardsuite.agents.baselines.scum import ScumHeuristic
from scum_env.batched import BatchedScum, RandomPolicy


def _compare(steps: int, games: int, seed: int, **config: Any) -> int:
    eng = BatchedScum(games, **config)
    fast = BatchedScumHeuristic(eng.rules)
    slow = ScumHeuristic(eng.rules, eng.encoder.spec)
    rand = RandomPolicy(seed)
    rng = np.random.default_rng(seed)
    obs, mask, _ = eng.reset(seed)
    checked = 0
    for _ in range(steps):
        got = fast(obs, mask)
        want = np.array([slow.act(o, m.astype(bool)) for o, m in zip(obs, mask)])
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, (
            f"row {bad[0]}: batched {got[bad[0]]} != per-game {want[bad[0]]} "
            f"(obs {obs[bad[0]].tolist()}, legal {np.flatnonzero(mask[bad[0]]).tolist()})"
        )
        checked += len(obs)
        explore = rng.random(games) < 0.3
        actions = np.where(explore, rand(obs, mask), got)
        res = eng.step(actions)
        obs, mask = res.obs, res.mask
    return checked


@pytest.mark.parametrize(
    "config",
    [
        {"num_players": 4},
        {"num_players": 5, "trade_rules": "spanish"},
        {"num_players": 6},
        {"num_players": 8},
        {"num_players": 12},
        {"num_players": 4, "wild_queen": True},
        {"num_players": 4, "carousel": True},
    ],
    ids=["4p", "5p-spanish", "6p", "8p-two-decks", "12p", "wild-queen", "carousel"],
)
def test_batched_heuristic_matches_per_game(config: dict[str, Any]) -> None:
    """Thousands of rows per rule set, through several series with trades (J5)."""
    assert _compare(steps=150, games=64, seed=3, **config) == 150 * 64


def test_colour_mode_falls_back_row_by_row() -> None:
    """With color_clash (J9) the batched policy calls the per-game policy per row."""
    assert _compare(steps=40, games=8, seed=5, num_players=4, color_clash=True) == 320


def test_torch_inputs_give_torch_actions() -> None:
    """Torch tensors in, torch int64 actions out, the same choices."""
    torch = pytest.importorskip("torch")
    eng = BatchedScum(32)
    obs, mask, _ = eng.reset(1)
    fast = BatchedScumHeuristic(eng.rules)
    got = fast(torch.from_numpy(obs.copy()), torch.from_numpy(mask.copy()))
    assert isinstance(got, torch.Tensor)
    assert got.tolist() == fast(obs, mask).tolist()
