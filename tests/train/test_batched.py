"""Training on a batched engine (``vec_env: batched``): scaling, opponents, League outcomes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cardsuite.agents.learned.netspec import Snapshot, obs_scale
from cardsuite.errors import ConfigError
from cardsuite.train.core.league import SeatMember
from cardsuite.train.sb3.batched import BatchedSelfPlayEnv, make_batched_vec_env
from cardsuite.train.sb3.single_seat import fixed_seats
from cardsuite.train.sb3.trainer import SelfPlayCallback, train
from scum_env import scum_v0
from tests.train.conftest import tiny_config

TABLE = fixed_seats({"random": 0.5, "heuristic": 0.5})


def _snapshot(obs_dim: int, num_actions: int, seed: int = 0) -> Snapshot:
    rng = np.random.default_rng(seed)
    params = {
        "mlp_extractor.policy_net.0.weight": rng.normal(size=(8, obs_dim)).astype(np.float32),
        "mlp_extractor.policy_net.0.bias": np.zeros(8, np.float32),
        "action_net.weight": rng.normal(size=(num_actions, 8)).astype(np.float32),
        "action_net.bias": np.zeros(num_actions, np.float32),
    }
    return Snapshot(step=0, params=params, activation="tanh")


def test_batched_observations_are_scaled_like_the_per_game_wrapper() -> None:
    venv = make_batched_vec_env(
        "scum",
        {"num_players": 4},
        num_envs=8,
        learner=0,
        table=TABLE,
        seed=1,
    )
    obs = venv.reset()
    spec = scum_v0.env(num_players=4).obs_spec
    scale = obs_scale(spec)
    assert obs.shape == (8, spec.size)
    assert np.all(np.abs(obs) <= 1.0 + 1e-6)
    raw = venv.venv.inner._host(venv.venv.inner._obs)
    np.testing.assert_allclose(obs, raw * scale, rtol=1e-6)
    masks = np.stack(venv.env_method("action_masks"))
    assert masks.shape == (8, venv.action_space.n)
    assert masks.any(axis=1).all()


def test_snapshot_opponents_play_only_legal_actions() -> None:
    env = BatchedSelfPlayEnv(16, learner=0, table=TABLE, num_players=4, seed=3)
    snap = _snapshot(env.engine.obs_dim, env.engine.num_actions)
    env.set_league([SeatMember(5, "snapshot@0", 1.0, snap)])
    assert env.seated_ids() == [5] * 4
    assert all(p is not None and type(p).__name__ == "SnapshotPolicy" for p in env.opponents)
    env.reset(seed=3)
    for _ in range(200):  # the engine raises IllegalActionError on any illegal opponent move
        masks = env.action_masks()
        actions = np.array([np.flatnonzero(m)[0] for m in masks])
        env.step(actions)


def test_batched_needs_the_records_vec_env_and_names_the_choices() -> None:
    """Only a record naming ``sb3_vec_env`` (Scum's) trains batched; the error says what to use."""
    choices = r"sb3_vec_env: scum\); game 'scandal' has none: choose 'auto', 'subproc' or 'dummy'"
    with pytest.raises(ConfigError, match=rf"TrainConfig.vec_env.*{choices}"):
        tiny_config(game="scandal", num_players=2, options={}, vec_env="batched")
    with pytest.raises(ConfigError, match=rf"vec_env 'batched'.*{choices}"):
        BatchedSelfPlayEnv(2, learner=0, table=TABLE, game="scandal", num_players=2)


def _independent_returns(env: BatchedSelfPlayEnv) -> tuple[np.ndarray, list[np.ndarray]]:
    """Sum every player's rewards on the raw engine, apart from the env's own tally:
    the running sums and, per restart, the sums of the games it restarted."""
    raw = env.engine.inner
    running = np.zeros((raw.num_games, raw.num_players))
    finished: list[np.ndarray] = []
    step, restart = raw.step, raw.restart_games

    def counted_step(*args: object, **kwargs: object) -> object:
        res = step(*args, **kwargs)
        running[...] += raw.xp.to_numpy(res.rewards)
        return res

    def counted_restart(ended: np.ndarray) -> object:
        done = np.asarray(ended, dtype=bool)
        finished.append(np.where(done[:, None], running, np.nan))
        running[done] = 0.0
        return restart(ended)

    raw.step, raw.restart_games = counted_step, counted_restart
    return running, finished


def test_each_finished_game_reports_the_learners_outcome_against_every_seat() -> None:
    """As the per-game env does: ids of the other seats' members, 1/0.5/0 by episode reward."""
    table = [SeatMember(7, "random", 0.5, None), SeatMember(9, "heuristic", 0.5, None)]
    venv = make_batched_vec_env(
        "scum", {"num_players": 4}, num_envs=6, learner=1, table=table, seed=5
    )
    inner = venv.inner
    venv.reset()
    _, finished = _independent_returns(inner)
    reported = 0
    for _ in range(300):
        finished.clear()
        masks = np.stack(venv.env_method("action_masks"))
        _obs, _reward, done, infos = venv.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        seats = inner.seated_ids()
        for g in range(6):
            if not done[g]:
                assert "league_ids" not in infos[g]
                continue
            final = next(f[g] for f in finished if not np.isnan(f[g, 0]))
            expected = [0.5 + 0.5 * np.sign(final[1] - final[p]) for p in (0, 2, 3)]
            assert infos[g]["league_ids"] == [seats[0], seats[2], seats[3]]
            assert infos[g]["league_outcomes"] == expected
            assert infos[g]["episode"]["r"] == pytest.approx(final[1], abs=1e-5)
            reported += 1
    assert reported >= 6  # every slot finished at least one game
    assert {o for info in infos for o in info.get("league_outcomes", [])} <= {0.0, 0.5, 1.0}


def test_batched_training_moves_the_pfsp_counts(tmp_path: Path) -> None:
    """The batched VecEnv reports outcomes to the core League: its PFSP counts leave the prior."""
    from cardsuite.train.sb3.trainer import Trainer

    config = tiny_config(vec_env="batched", num_games=16, rollout_steps=16, batch_size=64,
                         opponent_heuristic=0.5, opponent_random=0.5, opponent_snapshot=0.0,
                         pfsp="hard", total_steps=512)  # fmt: skip
    trainer = Trainer(config, tmp_path / "run")
    prior = {m.name: (m.wins, m.games) for m in trainer.league.members}
    assert prior == {"random": (1.0, 2.0), "heuristic": (1.0, 2.0)}
    recorded: list[int] = []
    record = trainer.league.record
    trainer.league.record = lambda ids, out: (recorded.extend(ids.tolist()), record(ids, out))[1]
    trainer.model.learn(total_timesteps=512, callback=SelfPlayCallback(trainer))
    trainer.close()
    assert recorded and set(recorded) <= {m.id for m in trainer.league.members}
    moved = {m.name: (m.wins, m.games) for m in trainer.league.members}
    assert all(moved[name] != prior[name] for name in moved)
    probs = trainer.league.probabilities()
    assert not np.allclose(probs, probs[0])  # PFSP ("hard") now weighs them apart


def test_trainer_learns_on_the_batched_engine(tmp_path: Path) -> None:
    config = tiny_config(vec_env="batched", num_games=16, rollout_steps=16, batch_size=64)
    result = train(config, tmp_path / "run")
    assert result.step >= config.total_steps
    assert (Path(result.checkpoint) / "agent" / "agent.json").exists()


def test_batched_heuristic_seats_play_the_real_heuristic() -> None:
    """The League's ``heuristic`` member is the game's real heuristic (its batched twin)."""
    from cardsuite.agents.baselines.batched_scum import BatchedScumHeuristic

    env = BatchedSelfPlayEnv(4, learner=0, table=fixed_seats({"heuristic": 1.0}), num_players=4)
    assert all(type(p) is BatchedScumHeuristic for p in env.opponents)
