"""The batched Scum Party engine plays exactly like ``scum_party_v0`` (P1–P8, every reward)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.party_batched.differential import run_differential

# (config, steps): long enough for every table to finish a hand, and for the
# short tournaments to end and restart
CONFIGS: list[tuple[dict[str, Any], int]] = [
    ({"num_players": 5, "num_hands": 2}, 700),
    ({"num_players": 8, "reward": "final", "num_hands": 2}, 900),
    ({"num_players": 15, "num_hands": 2, "reward": "rank"}, 1600),
    ({"num_players": 16, "num_hands": 2}, 1500),
    ({"num_players": 23, "reward": "rank", "num_hands": 1}, 1600),
    ({"num_players": 50, "num_hands": 1}, 2400),
    ({"num_players": 50, "table_sizes": "10,10,10,10,10", "num_hands": 2}, 3200),
    ({"num_players": 12, "table_sizes": [7, 5], "num_hands": 3}, 1200),
]


def _id(case: tuple[dict[str, Any], int]) -> str:
    return "-".join(f"{k}={v}" for k, v in case[0].items())


@pytest.mark.parametrize("case", CONFIGS, ids=[_id(c) for c in CONFIGS])
def test_batched_party_matches_scum_party_v0(case: tuple[dict[str, Any], int]) -> None:
    config, steps = case
    counts = run_differential(config, seeds=list(range(5)), steps=steps)
    assert counts["hands"] > 0 and counts["jokers"] > 0 and counts["outs"] > 0
    if config.get("num_hands", 5) == 1:
        assert counts["tournaments"] > 0


@pytest.mark.parametrize(("players", "steps"), [(5, 500), (16, 1400), (50, 2400)])
def test_torch_backend_matches_scum_party_v0(players: int, steps: int) -> None:
    pytest.importorskip("torch").set_num_threads(1)
    config = {"num_players": players, "num_hands": 1, "reward": "rank"}
    counts = run_differential(config, seeds=list(range(3)), steps=steps, backend="torch")
    assert counts["tournaments"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("players", [5, 15, 16, 23, 50])
def test_batched_party_matches_scum_party_v0_long(players: int) -> None:
    counts = run_differential(
        {"num_players": players, "num_hands": 2}, seeds=list(range(100, 116)), steps=6000
    )
    assert counts["tournaments"] > 0
