"""The PFSP league: draw probabilities, outcome bookkeeping, snapshots, per-row routing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from cardsuite.agents.learned.netspec import Snapshot
from cardsuite.errors import ConfigError
from cardsuite.train.core.league import League, SnapshotPolicy


def const(value: int) -> Any:
    """A batch policy that always answers ``value``."""
    return lambda obs, mask: np.full(len(obs), value, dtype=np.int64)


def test_hard_pfsp_prefers_members_that_beat_the_learner() -> None:
    league = League({"a": const(1), "b": const(2)}, weighting="hard", decay=1.0)
    a, b = league.members
    league.record(np.full(100, a.id), np.ones(100))  # the learner beat a every time
    league.record(np.full(100, b.id), np.zeros(100))  # b beat the learner every time
    pa, pb = league.probabilities()
    assert b.win_rate > 0.95 > 0.05 > a.win_rate
    assert pb > 0.99 and pa < 0.01
    draws = league.draw(2000)
    assert (draws == b.id).mean() > 0.97


def test_record_known_skips_members_the_league_does_not_know() -> None:
    """Outcomes a stale env reports against a member the League forgot are dropped, the
    others recorded in one batch (each member's counts decay once per game)."""
    league = League({"a": const(1), "b": const(2)}, weighting="hard", decay=0.5)
    a, b = league.members
    assert league.record_known([a.id, 99, a.id, b.id], [1.0, 0.0, 0.0, 0.5]) == 3
    assert (a.wins, a.games) == (1.0 * 0.25 + 1.0, 2.0 * 0.25 + 2)
    assert (b.wins, b.games) == (1.0 * 0.5 + 0.5, 2.0 * 0.5 + 1)
    assert league.record_known([], []) == 0


def test_variance_weighting_prefers_even_members() -> None:
    league = League({"a": const(1), "b": const(2)}, weighting="variance", decay=1.0)
    a, b = league.members
    league.record(np.full(50, a.id), np.r_[np.ones(25), np.zeros(25)])
    league.record(np.full(50, b.id), np.ones(50))
    pa, pb = league.probabilities()
    assert pa > 0.9 > pb


def test_uniform_weighting_and_ties_count_half() -> None:
    league = League({"a": const(1), "b": const(2)}, weighting="uniform", decay=1.0)
    a, _b = league.members
    league.record(np.full(10, a.id), np.full(10, 0.5))
    assert a.win_rate == pytest.approx(0.5)
    assert league.probabilities().tolist() == [0.5, 0.5]


def test_decay_follows_the_recent_games() -> None:
    league = League({"a": const(1)}, decay=0.9)
    (a,) = league.members
    league.record(np.full(200, a.id), np.zeros(200))
    league.record(np.full(200, a.id), np.ones(200))
    assert a.win_rate < 0.01  # the old losses are forgotten


def test_act_routes_each_row_to_its_games_member() -> None:
    league = League({"a": const(7), "b": const(9)})
    a, b = league.members
    ids = np.array([a.id, b.id, b.id, a.id])
    out = league.act(ids, np.zeros((4, 3)), np.ones((4, 5)))
    assert out.tolist() == [7, 9, 9, 7]


def test_snapshots_are_frozen_capped_and_retired_ones_still_play() -> None:
    actor = torch.nn.Sequential(torch.nn.Linear(3, 4))
    league = League({"h": const(0)}, max_snapshots=2, scale=torch.ones(3))
    first = league.add_snapshot(Snapshot.of(actor, 10, "tanh"))
    league.add_snapshot(Snapshot.of(actor, 20, "tanh"))
    with torch.no_grad():
        actor[0].weight.add_(1.0)  # the learner moves on; the snapshot must not
    snap = first.policy
    assert isinstance(snap, SnapshotPolicy)
    assert not np.array_equal(snap.snapshot.params["0.weight"], actor[0].weight.detach().numpy())
    league.add_snapshot(Snapshot.of(actor, 30, "tanh"))
    names = [m.name for m in league.members]
    assert names == ["h", "snapshot@20", "snapshot@30"]
    mask = np.zeros((2, 4), dtype=np.int8)
    mask[:, 2] = 1
    got = league.act(np.array([first.id, first.id]), np.zeros((2, 3), np.float32), mask)
    assert got.tolist() == [2, 2]  # a retired member still plays its games (legal only)
    league.prune(np.array([league.members[0].id]))
    with pytest.raises(ConfigError, match="no league member"):
        league.member(first.id)


def test_bad_settings_are_named() -> None:
    with pytest.raises(ConfigError, match="weighting"):
        League({"a": const(0)}, weighting="greedy")
    with pytest.raises(ConfigError, match="decay"):
        League({"a": const(0)}, decay=0.0)


def test_one_batch_faces_several_opponents() -> None:
    import tempfile

    from cardsuite.train.ppo.config import PPOConfig
    from cardsuite.train.ppo.trainer import Trainer

    with tempfile.TemporaryDirectory() as d:
        args = PPOConfig(
            num_games=64,
            rollout_steps=4,
            self_play=0.25,
            baselines="heuristic,random",
            tensorboard=False,
            quiet=True,
            run_dir=d,
        )
        tr = Trainer(args)
        league_games = ~tr.selfplay
        assert tr.selfplay.sum() == 16
        assert set(np.unique(tr.opp[league_games]).tolist()) == {m.id for m in tr.league.members}
        assert (tr.learner_seat[tr.selfplay] == -1).all()
        stats = tr.rollout()
        assert stats["league_games"] >= 0
        assert tr.buf.valid.any()


def test_state_and_restore_round_trip_members_ids_counts_and_draws() -> None:
    """A checkpointed league (members, retired ones still playing, RNG) draws on identically."""
    actor = torch.nn.Sequential(torch.nn.Linear(3, 4))
    league = League({"h": const(0)}, max_snapshots=1, scale=np.ones(3), seed=4)
    first = league.add_snapshot(Snapshot.of(actor, 10, "relu"))
    league.add_snapshot(Snapshot.of(actor, 20, "relu"))  # first retires, still referenced
    league.record(np.array([league.members[0].id] * 3), np.array([1.0, 0.0, 0.5]))
    saved = league.state()
    params = {s.step: dict(s.params) for s in league.snapshots()}
    expected = league.draw(50)
    other = League({"h": const(0)}, max_snapshots=1, scale=np.ones(3), seed=99)
    other.restore(saved, lambda name: params[int(name.split("@")[1])], "relu")
    assert [(m.id, m.name, m.wins, m.games) for m in other.members] == [
        (m.id, m.name, m.wins, m.games) for m in league.members
    ]
    assert other.member(first.id).name == "snapshot@10"
    assert other.draw(50).tolist() == expected.tolist()
