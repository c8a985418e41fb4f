"""The batched Scandal engine against ``scandal_v0``: identical at every step.

Observations (bit for bit), masks, players to act, rewards, episode ends and
truncations, for 2–6 players, both episode kinds, small targets and turn
limits, deals from either side, numpy and CPU torch.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.scandal_batched.differential import run_differential


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("episode", ["hand", "game"])
def test_matches_per_game_env(num_players: int, episode: str) -> None:
    config = {"num_players": num_players, "episode": episode}
    if episode == "game":
        config |= {"target_score": 50, "max_turns": 70, "max_hands": 4}
    events = run_differential(
        config, seed=num_players, num_games=8, steps=400, from_env=num_players % 2 == 0
    )
    assert events["hands"] >= 1


@pytest.mark.parametrize("num_players", [2, 5])
def test_matches_per_game_env_on_torch(num_players: int) -> None:
    pytest.importorskip("torch")
    config = {"num_players": num_players, "episode": "game", "target_score": 60, "max_turns": 90}
    events = run_differential(config, seed=11, num_games=6, steps=300, backend="torch")
    assert events["hands"] >= 1


def test_covers_every_rule_event() -> None:
    """Deep draws with the duty to meld (S3), melds (S5), lay-offs (S6), gold cards,
    the pile turned over (S4) including a one-card pile (S7), hands going out (S8),
    hitting max_turns (S4), the end of a match (S9) and a game cut at max_hands, all
    compared step by step."""
    events: Counter[str] = Counter()
    events += run_differential({"num_players": 2}, seed=21, num_games=12, steps=500)
    events += run_differential({"num_players": 4, "reward_scale": 7.0}, 22, 8, 400, from_env=True)
    events += run_differential(
        {"num_players": 2, "episode": "game", "target_score": 40, "max_turns": 100},
        seed=23,
        num_games=8,
        steps=500,
    )
    for name in ("deep_draws", "melds", "layoffs", "gold_placed", "flips", "flip_one"):
        assert events[name] > 0, f"{name} never happened: {dict(events)}"
    events += run_differential(
        {"num_players": 3, "episode": "game", "max_hands": 2, "max_turns": 40}, 24, 6, 300
    )
    for name in ("out", "max_turns", "match_ends", "truncated_episodes"):
        assert events[name] > 0, f"{name} never happened: {dict(events)}"


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_matches_long_runs(num_players: int) -> None:
    for seed in range(3):
        config = {"num_players": num_players, "episode": "game", "target_score": 150}
        run_differential(config, seed=100 + seed, num_games=16, steps=1500, from_env=seed == 1)
