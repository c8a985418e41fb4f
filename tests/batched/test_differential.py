"""The batched engine plays exactly like the per-game engine (J1–J9, every option)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.batched.differential import run_differential

CONFIGS: list[dict[str, Any]] = [
    {"num_players": 4},
    {"num_players": 5, "carousel": True},
    {"num_players": 6, "color_clash": True},
    {"num_players": 4, "color_clash": True, "wild_queen": True, "carousel": True},
    {"num_players": 7, "trade_rules": "spanish"},
    {"num_players": 8, "wild_queen": True, "reward": "centered"},
    {"num_players": 12, "color_clash": True, "carousel": True},
    {"num_players": 5, "episode": "game", "target_score": 12},
    {"num_players": 4, "episode": "game", "target_score": 8, "color_clash": True, "carousel": True},
    {"num_players": 9, "carousel": True, "color_clash": True, "wild_queen": True,
     "trade_rules": "spanish"},
]  # fmt: skip


def _id(config: dict[str, Any]) -> str:
    return "-".join(f"{k}={v}" for k, v in config.items())


@pytest.mark.parametrize("config", CONFIGS, ids=_id)
def test_batched_matches_per_game_engine(config: dict[str, Any]) -> None:
    n = config["num_players"]
    steps = 60 * n + 100  # long enough for a series to end
    seeds = list(range(30 if n <= 6 else 12))
    counts = run_differential(config, seeds=seeds, steps=steps)
    assert counts["series_ends"] > 0 and counts["trades"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=_id)
def test_batched_matches_per_game_engine_long(config: dict[str, Any]) -> None:
    counts = run_differential(config, seeds=list(range(100, 228)), steps=1500)
    assert counts["episodes"] > 0


def test_torch_backend_matches_per_game_engine() -> None:
    pytest.importorskip("torch").set_num_threads(1)
    config = {"num_players": 5, "color_clash": True, "carousel": True, "wild_queen": True}
    counts = run_differential(config, seeds=list(range(12)), steps=400, backend="torch")
    assert counts["series_ends"] > 0
