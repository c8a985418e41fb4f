"""Several learner seats per league game (``learner_seats``, ``train/core/tables.py``).

At a 50-player party one learner seat acts about once in 50 engine steps;
``learner_seats`` K gives the learner K seats of each league game (the
League member plays the rest), so each step yields about K times the
learner's decisions. The checks: each game has exactly K distinct learner
seats, the League never moves one of them and the learner never moves
another, new games redraw them, one seat repeats the former draw exactly,
a run resumes exactly, and bad values are named.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from cardsuite.batched.policies import RandomPolicy
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.core.tables import draw_seats
from cardsuite.train.dmc.config import DMCConfig
from cardsuite.train.dmc.trainer import DMCTrainer
from cardsuite.train.ppo.config import PPOConfig
from cardsuite.train.ppo.trainer import Trainer


def _ppo(run: Path, **changes: Any) -> PPOConfig:
    base: dict[str, Any] = {
        "game": "scum_party", "num_players": 8, "num_games": 12, "rollout_steps": 24,
        "total_steps": 300, "hidden": 16, "layers": 1, "eval_deals": 2, "eval_every": 0,
        "snapshot_every": 0, "checkpoint_every": 0, "tensorboard": False, "quiet": True,
        "threads": 1, "self_play": 0.0, "baselines": "heuristic", "anneal_lr": False,
        "learner_seats": 3, "run_dir": str(run),
    }  # fmt: skip
    return PPOConfig.from_dict({**base, **changes})


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(2, 50), st.integers(1, 49), st.integers(0, 2**32 - 1))
def test_each_game_gets_k_distinct_seats_and_the_first_is_one_of_them(
    games: int, players: int, k: int, seed: int
) -> None:
    k = min(k, players - 1)
    first, learns = draw_seats(np.random.default_rng(seed), games, players, k)
    assert learns.shape == (games, players) and learns.dtype == bool
    assert (learns.sum(axis=1) == k).all()
    assert learns[np.arange(games), first].all()


def test_one_seat_is_the_former_draw_so_runs_repeat_their_seats() -> None:
    """learner_seats 1 draws rng.integers(players) per game, as every run before it did."""
    first, learns = draw_seats(np.random.default_rng(7), 500, 8, 1)
    assert np.array_equal(first, np.random.default_rng(7).integers(8, size=500))
    assert np.array_equal(learns, first[:, None] == np.arange(8))


def test_k_seats_spread_over_every_seat() -> None:
    """Every seat is drawn: about k/players of the games give it to the learner."""
    _, learns = draw_seats(np.random.default_rng(3), 4000, 10, 3)
    share = learns.mean(axis=0)
    assert np.all(np.abs(share - 0.3) < 0.04), share


class LeagueSpy:
    """A per-game League member that records which (game, player) it is asked to move."""

    per_game = True

    def __init__(self) -> None:
        self.trainer: Any = None
        self.moved: set[tuple[int, int]] = set()
        self.random = RandomPolicy(5)

    def __call__(self, obs: Any, mask: Any, games: Any = None, players: Any = None) -> Any:
        t = self.trainer.tables[0]
        games, players = np.asarray(games), np.asarray(players)
        assert t.learns is not None
        assert not t.learns[games, players].any(), "the League moved a learner seat"
        self.moved.update(zip(games.tolist(), players.tolist(), strict=True))
        return self.random(obs, mask)


def test_the_learner_moves_its_k_seats_and_the_league_every_other(tmp_path: Path) -> None:
    spy = LeagueSpy()
    tr = Trainer(_ppo(tmp_path / "run", rollout_steps=30), opponents={"spy": spy})
    spy.trainer = tr
    t = tr.tables[0]
    assert t.learns is not None and (t.learns.sum(axis=1) == 3).all()
    assert t.learns[np.arange(12), t.learner_seat].all()
    before = t.learns.copy()
    tr.rollout()
    buf = t.buf
    assert buf is not None
    learner = {(int(g), int(s)) for g, s in zip(*np.nonzero(before), strict=True)}
    # no game ended in 30 steps of an 8-player tournament, so the seats held all along
    recorded = {(int(g), int(s)) for g, s in zip(*np.nonzero(buf.last_t.numpy() >= 0),
                                                   strict=True)}  # fmt: skip
    assert recorded and recorded <= learner
    assert len({s for _, s in recorded}) > 3  # the seats differ from game to game
    assert spy.moved and not (spy.moved & learner)
    # 8 seats, 3 of them the learner's: about 3/8 of the 12 x 30 moves are the learner's
    assert 0.2 < tr.step / (12 * 30) < 0.55


def test_finished_games_redraw_k_seats(tmp_path: Path) -> None:
    tr = Trainer(_ppo(tmp_path / "run"))
    t = tr.tables[0]
    done = np.zeros(12, dtype=bool)
    done[[1, 4, 9]] = True
    rewards = np.zeros((12, 8))
    rewards[:, 0] = 1.0
    t.learns[done] = False
    t.finish_games(done, rewards, np.random.default_rng(0))
    assert (t.learns.sum(axis=1) == 3).all()
    assert t.learns[np.arange(12), t.learner_seat].all()


def test_a_run_with_k_seats_resumes_exactly(tmp_path: Path) -> None:
    whole = Trainer(_ppo(tmp_path / "whole"))
    whole.train()
    first = Trainer(_ppo(tmp_path / "split", total_steps=120, checkpoint_every=0))
    first.train()
    resumed = Trainer(_ppo(tmp_path / "split", resume=str(tmp_path / "split")))
    assert resumed.games_restored
    assert np.array_equal(resumed.tables[0].learns, first.tables[0].learns)
    resumed.train()
    assert resumed.step == whole.step
    for name, value in whole.net.state_dict().items():
        assert torch.equal(value, resumed.net.state_dict()[name]), name


def test_a_resume_cannot_change_the_learner_seats(tmp_path: Path) -> None:
    Trainer(_ppo(tmp_path / "run", total_steps=60)).train()
    with pytest.raises(CheckpointError, match="learner_seats"):
        Trainer(_ppo(tmp_path / "run", learner_seats=2, resume=str(tmp_path / "run")))


def test_deep_monte_carlo_takes_k_seats_and_resumes_them(tmp_path: Path) -> None:
    cfg: dict[str, Any] = {
        "game": "scum_party", "num_players": 8, "num_games": 8, "rollout_steps": 16,
        "total_steps": 200, "hidden": 16, "layers": 1, "eval_deals": 2, "eval_every": 0,
        "snapshot_every": 0, "checkpoint_every": 0, "tensorboard": False, "quiet": True,
        "self_play": 0.0, "learner_seats": 2, "batch_size": 32, "run_dir": str(tmp_path / "r"),
    }  # fmt: skip
    tr = DMCTrainer(DMCConfig.from_dict({**cfg, "total_steps": 80}))
    t = tr.tables[0]
    assert t.learns is not None and (t.learns.sum(axis=1) == 2).all()
    tr.train()
    again = DMCTrainer(DMCConfig.from_dict({**cfg, "resume": str(tmp_path / "r")}))
    assert np.array_equal(again.tables[0].learns, tr.tables[0].learns)


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"learner_seats": 0}, "learner_seats"),
        ({"learner_seats": 8}, r"learner_seats: must leave the league a seat: below 8 players"),
        ({"sizes": "5,20", "learner_seats": 5}, "below 5 players"),
    ],
)
def test_bad_learner_seats_are_named(tmp_path: Path, changes: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        _ppo(tmp_path / "run", **changes)
