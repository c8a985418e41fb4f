"""Card-counting network inputs (``cardsuite ppo --features counts``): the counts on a
scripted hand, one numpy implementation shared by the trainer's torch network and the
saved agent, the agent.json field's validation, and the config and resume rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from cardsuite.agents.learned.netspec import obs_scale
from cardsuite.agents.learned.policy import PPOAgent
from cardsuite.agents.learned.safe_io import load_agent_numpy
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.core.games import train_game
from cardsuite.train.core.learned import count_inputs
from cardsuite.train.ppo.config import PPOConfig
from cardsuite.train.ppo.trainer import Trainer, train


def _table(game: str, players: int) -> tuple:
    spec = train_game(game)
    eng = spec.make_engine(4, spec.config(players, {}))
    return eng, spec.heuristic(eng)


def check_scripted_party_hand(feats: Any, spec: Any, scale: np.ndarray) -> np.ndarray:
    """Two decks at 5-8 players (8 per rank, 4 Jokers: scum-party.txt, "The Cards").

    Hand: 2 fives, 1 king, 3 aces; every other king and ace played, and every
    Joker (row 0) or all but one (row 1). ``feats`` reads the observation
    scaled by ``scale``; returns the (scaled) observations it was handed.
    """
    sl = spec.slices
    raw = np.zeros((2, spec.size), dtype=np.float32)
    raw[:, sl["hand"]] = np.bincount([3, 11, 12], weights=[2, 1, 3], minlength=14)
    raw[:, sl["played"]] = np.bincount([11, 12, 13], weights=[7, 5, 4], minlength=14)
    raw[1, sl["played"].start + 13] = 3
    out, sup, spec_above, boss = np.split(feats(raw * scale), 4, axis=1)
    assert feats.size == 56
    np.testing.assert_allclose(out[0] * 8, [8, 8, 8, 6, 8, 8, 8, 8, 8, 8, 8, 0, 0, 0])
    assert out[1, 13] * 8 == 1
    # Row 0: nothing above the king or the ace is out, so both groups are bosses; eight of
    # each rank from six to queen are out, enough to beat the pair of fives.
    assert sup[0, 11] == 0 and sup[0, 3] == 1.0
    assert boss[0].tolist() == [0] * 11 + [1, 1, 0]
    # Row 1: one Joker out beats anything (scum-party.txt), so no group is safe.
    assert spec_above[1, :13].all() and not spec_above[0].any()
    assert boss[1].tolist() == [0] * 14
    return raw * scale


def test_party_counts_read_the_scaled_observation() -> None:
    """The network sees the observation scaled by `obs_scale`; the features undo that
    scaling exactly (the scripted hand of `check_scripted_party_hand`)."""
    eng, heur = _table("scum_party", 8)
    scale = obs_scale(eng.obs_spec)
    feats = count_inputs(heur, eng.obs_spec, 8, scale)
    scaled = check_scripted_party_hand(feats, eng.obs_spec, scale)
    x = feats.extend(scaled)
    assert x.shape == (2, eng.obs_spec.size + 56)
    np.testing.assert_array_equal(x[:, : eng.obs_spec.size], scaled)


def test_counts_need_a_climbing_game() -> None:
    eng, heur = _table("scandal", 2)
    with pytest.raises(ConfigError, match="features"):
        count_inputs(heur, eng.obs_spec, 2, obs_scale(eng.obs_spec))


def _tiny(run_dir: Path, **changes: object) -> PPOConfig:
    base: dict[str, object] = dict(
        num_games=16, rollout_steps=8, total_steps=300, hidden=16, layers=1, eval_deals=4,
        eval_every=0, snapshot_every=150, checkpoint_every=0, tensorboard=False, quiet=True,
        threads=1, self_play=0.5, baselines="heuristic", run_dir=str(run_dir),
        features="counts", bc_steps=120, bc_games=16, bc_epochs=1,
    )  # fmt: skip
    base.update(changes)
    return PPOConfig(**base)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def counted_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Scum 4p run with counting inputs: warm start, league snapshots, checkpoint."""
    run = tmp_path_factory.mktemp("counts") / "run"
    train(_tiny(run))
    return run


def test_the_saved_agent_plays_exactly_what_the_trainer_trained(counted_run: Path) -> None:
    """Differential: the numpy agent (`PPOAgent`) and the torch network give the same logits."""
    from cardsuite.train.ppo.network import load_network

    arrays, meta = load_agent_numpy(counted_run / "agent")
    assert meta.network.features is not None and meta.network.features.size == 4 * 14
    assert arrays["actor.0.weight"].shape[1] == meta.obs_size + meta.network.features.size
    doc = json.loads((counted_run / "agent" / "agent.json").read_text())
    assert doc["network"]["features"]["kind"] == "counts"
    net, _ = load_network(counted_run / "agent")
    eng, _heur = _table("scum", 4)
    obs, mask, _ = eng.reset(3)
    for _ in range(20):  # into the hand: cards played, so every count block is in use
        res = eng.step(np.argmax(mask, axis=1))
        obs, mask = res.obs, res.mask
    scaled = np.asarray(obs, np.float32) * obs_scale(eng.obs_spec)
    agent = PPOAgent.load(counted_run / "agent")
    with torch.no_grad():
        want = net.actor(net.inputs(torch.from_numpy(scaled))).numpy()
    np.testing.assert_allclose(agent.logits(scaled), want, atol=1e-5)
    # the batch path (the evaluator's and the benchmark's `GreedyPolicy`) reads them too
    np.testing.assert_allclose(agent.snapshot.logits(scaled), want, atol=1e-5)
    # the counting columns are read: the features of these states are not all zero
    assert np.abs(meta.network.features(scaled)).sum() > 0


def assert_tampered_features_refused(
    agent: Path, tmp_path: Path, cases: dict[str, Any], load: Any
) -> None:
    """Each case edits a copy of ``agent``'s ``network.features``; ``load`` must refuse the
    copy with a `CheckpointError` naming the case's field."""
    import shutil

    for i, (field, change) in enumerate(cases.items()):
        d = tmp_path / f"a{i}"
        shutil.copytree(agent, d)
        doc = json.loads((d / "agent.json").read_text())
        change(doc["network"]["features"])
        (d / "agent.json").write_text(json.dumps(doc))
        with pytest.raises(CheckpointError, match=field.replace(".", r"\.")):
            load(d)


def test_a_tampered_features_field_is_refused_naming_it(counted_run: Path, tmp_path: Path) -> None:
    cases = {
        "network.features.hand": lambda f: f.update(hand=[0, 3]),
        "network.features.kind": lambda f: f.update(kind="oracle"),
        "network.features.deck": lambda f: f.update(deck="many"),
        "network.features.code": lambda f: f.update(code="import os"),
        "network.features.hand_scale": lambda f: f.update(hand_scale=[0.0] * 14),
        "network.features.ends": lambda f: f.update(ends=[1] * 14),
    }
    assert_tampered_features_refused(counted_run / "agent", tmp_path, cases, PPOAgent.load)


def test_resume_keeps_the_features_and_refuses_to_drop_them(counted_run: Path) -> None:
    tr = Trainer(_tiny(counted_run, total_steps=450, resume=str(counted_run)))
    snaps = [m.snapshot for m in tr.league.members if m.snapshot is not None]
    assert snaps and all(s.features == tr.net.features for s in snaps)
    with pytest.raises(CheckpointError, match="features"):
        Trainer(_tiny(counted_run, features="", resume=str(counted_run)))


def test_features_are_refused_where_no_layout_reads_them() -> None:
    with pytest.raises(ConfigError, match="features"):
        PPOConfig(game="scandal", num_players=2, features="counts")
    # the size-generic layout reads them (tests/train/test_count_inputs_generic.py)
    assert PPOConfig(game="scum_party", sizes="8,12", snapshot_every=0, features="counts")
    with pytest.raises(ConfigError, match="features"):
        PPOConfig(game="scum", features="oracle")  # type: ignore[arg-type]


def test_deep_monte_carlo_trains_and_saves_the_same_inputs(tmp_path: Path) -> None:
    """`cardsuite dmc --features counts`: the Q-network reads them, the saved agent too, and
    a resume keeps them (checked against the config like every must-match field)."""
    from cardsuite.train.dmc.config import DMCConfig
    from cardsuite.train.dmc.trainer import DMCTrainer

    base = {"total_steps": 600, "num_games": 16, "rollout_steps": 16, "hidden": 16,
            "layers": 1, "batch_size": 64, "buffer_size": 2048, "eval_every": 0,
            "eval_deals": 4, "quiet": True, "run_dir": str(tmp_path / "run"),
            "features": "counts", "snapshot_every": 300, "baselines": "heuristic"}  # fmt: skip
    tr = DMCTrainer(DMCConfig.from_dict(base))
    tr.train()
    _arrays, meta = load_agent_numpy(tmp_path / "run" / "agent")
    assert meta.network.features == tr.net.features is not None
    eng, _ = _table("scum", 4)
    obs, _mask, _ = eng.reset(5)
    scaled = np.asarray(obs, np.float32) * obs_scale(eng.obs_spec)
    with torch.no_grad():
        want = tr.net(torch.from_numpy(scaled)).numpy()
    np.testing.assert_allclose(PPOAgent.load(tmp_path / "run" / "agent").logits(scaled), want,
                               atol=1e-5)  # fmt: skip
    again = DMCTrainer(DMCConfig.from_dict({**base, "total_steps": 900,
                                            "resume": str(tmp_path / "run")}))  # fmt: skip
    assert again.step == tr.step and again.net.features == tr.net.features
    with pytest.raises(CheckpointError, match="features"):
        DMCTrainer(DMCConfig.from_dict({**base, "features": "", "resume": str(tmp_path / "run")}))
