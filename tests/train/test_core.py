"""Every trainer stands on the one training core: no copies of its parts are left beside it.

Identity checks (the class or function a trainer uses is the core's) and a
scan of the source of ``train/`` (outside ``train/core``) for definitions and
idioms that belong to the core only.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import cardsuite.train
from cardsuite.agents.learned import netspec
from cardsuite.train.core import checkpoint, evaluate, league, log, rundir

TRAIN = Path(cardsuite.train.__file__).parent
CORE = TRAIN / "core"
OUTSIDE = sorted(p for p in TRAIN.rglob("*.py") if CORE not in p.parents)

#: Names only the core may define (class or function), by the core module that owns them.
CORE_ONLY = {
    "League": league, "SnapshotPolicy": league, "SnapshotAgent": league, "SeatMember": league,
    "draw_seat": league, "seat_agent": league,
    "Snapshot": netspec, "NetworkSpec": netspec, "actor_logits": netspec, "obs_scale": netspec,
    "masked_logits": netspec, "actor_prefixes": netspec,
    "duplicate_match": evaluate, "EvalRow": evaluate, "GreedyPolicy": evaluate,
    "spec_policy": evaluate, "RowByRow": evaluate,
    "write_checkpoint": checkpoint, "find_checkpoint": checkpoint, "check_files": checkpoint,
    "plan_run": rundir, "check_run_dir": rundir, "check_new_run_dir": rundir,
    "start_logs": rundir, "RunLog": log, "open_log": log, "summary_writer": log,
}  # fmt: skip


def _definitions(path: Path) -> set[str]:
    """Classes and functions ``path`` defines; a class's methods (``PPOAgent.obs_scale``,
    a property) are its own attributes, not copies of a core function."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    methods = {
        id(item)
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and id(node) not in methods
    }


def test_the_core_defines_each_part_it_owns() -> None:
    for name, module in CORE_ONLY.items():
        assert hasattr(module, name), f"{module.__name__} lacks {name}"


@pytest.mark.parametrize("path", OUTSIDE, ids=lambda p: str(p.relative_to(TRAIN)))
def test_no_trainer_keeps_a_copy_of_a_core_part(path: Path) -> None:
    copies = _definitions(path) & set(CORE_ONLY)
    assert not copies, f"{path.name} defines {sorted(copies)}: use cardsuite.train.core"
    text = path.read_text(encoding="utf-8")
    assert "np.tanh" not in text, "a numpy forward pass outside core/netspec.py"
    assert '"checkpoint.prev"' not in text, "a checkpoint swap outside core/checkpoint.py"
    assert "SummaryWriter(" not in text, "TensorBoard opened outside core/log.py"
    assert not re.search(r"\bLeague\(", text), "a League built outside League.of"
    handler = re.search(r"signal\.signal\(signal\.SIGINT, (?!signal\.SIG_IGN)", text)
    assert not handler, "a Ctrl-C handler outside core/loop.py (workers may only ignore it)"


def test_the_old_modules_are_gone() -> None:
    for name in (
        "opponents",
        "league",
        "duplicate",
        "rundir",
        "ppo_log",
        "ppo_args",
        "dmc_args",
        "runtime_state",
    ):
        assert not (TRAIN / f"{name}.py").exists(), name


def test_each_trainer_takes_its_opponents_and_evaluation_from_the_core() -> None:
    from cardsuite.train.dmc import trainer as dmc
    from cardsuite.train.ppo import trainer as ppo
    from cardsuite.train.rllib import batched_env
    from cardsuite.train.sb3 import report as sb3_report
    from cardsuite.train.sb3 import setup as sb3_setup
    from cardsuite.train.sb3 import single_seat as wrappers
    from cardsuite.train.sb3 import trainer

    assert ppo.League is dmc.League is batched_env.League is league.League
    # MaskablePPO: one League (the core's) in the trainer, its draw table in the envs
    from cardsuite.train.sb3 import batched

    assert not hasattr(league, "OpponentPool")
    assert trainer.League is sb3_setup.League is league.League
    assert trainer.make_league is sb3_setup.make_league
    assert wrappers.draw_seat is batched.draw_seat is league.draw_seat
    assert wrappers.seat_agent is league.seat_agent
    assert wrappers.SeatMember is batched.SeatMember is league.SeatMember
    # RLlib: both samplers draw from the driver's core League (per-game envs seat its
    # table's members, batched runners' Leagues follow it); no league of RLlib's own
    from cardsuite.train.rllib import env as rllib_env
    from cardsuite.train.rllib import league as rllib_league
    from cardsuite.train.rllib import trainer as rllib_trainer

    assert rllib_league.League is league.League
    assert rllib_env.draw_seat is league.draw_seat and rllib_env.seat_agent is league.seat_agent
    assert not hasattr(rllib_trainer, "LeagueMapping") and not hasattr(rllib_trainer, "LeagueState")
    # both batched trainers keep their games in the core's tables and evaluate through them
    from cardsuite.train.core import batched, loop, tables

    assert ppo.make_table is dmc.make_table is tables.make_table
    assert batched.evaluate_tables is tables.evaluate_tables
    assert tables.evaluate_against is evaluate.evaluate_against
    assert issubclass(ppo.PPOTable, tables.GameTable) and issubclass(dmc._Table, tables.GameTable)
    assert issubclass(ppo.Trainer, batched.BatchedTrainer)
    assert issubclass(dmc.DMCTrainer, batched.BatchedTrainer)
    assert sb3_report.evaluate_specs is evaluate.evaluate_specs
    assert batched.open_log is log.open_log and batched.plan_run is rundir.plan_run
    assert trainer.check_run_dir is rundir.check_run_dir
    # one scheduler: every trainer runs on the core's loop
    assert issubclass(batched.BatchedTrainer, loop.TrainLoop)
    assert issubclass(trainer.Trainer, loop.TrainLoop)
    assert issubclass(rllib_trainer.Trainer, loop.TrainLoop)
    assert rllib_trainer.evaluate_against is evaluate.evaluate_against
    assert "run_tournament" not in (TRAIN / "rllib" / "trainer.py").read_text(encoding="utf-8")


def test_every_checkpoint_goes_through_the_one_writer() -> None:
    from cardsuite.train.core import batched
    from cardsuite.train.dmc import trainer as dmc
    from cardsuite.train.ppo import trainer as ppo
    from cardsuite.train.sb3 import checkpoint as sb3_checkpoint

    assert sb3_checkpoint.save_run is batched.save_checkpoint is checkpoint.save_checkpoint
    assert sb3_checkpoint.write_checkpoint is checkpoint.write_checkpoint
    assert sb3_checkpoint.find_checkpoint is checkpoint.find_checkpoint
    for module in (ppo, dmc):  # their own parts only: the core writes and reads
        assert not hasattr(module, "write_checkpoint") and not hasattr(module, "read_checkpoint")


def test_the_writer_finishes_a_swap_a_crash_left_half_done(tmp_path: Path) -> None:
    """Only ``checkpoint.prev`` is left (killed between the renames): it is found, then
    replaced by the next write, which leaves exactly one good checkpoint."""
    run = tmp_path / "run"
    first = checkpoint.write_checkpoint(run, lambda d: (d / "a.bin").write_bytes(b"1") and {"n": 1})
    first.rename(run / checkpoint.PREVIOUS_DIR)
    assert checkpoint.find_checkpoint(run) == run / checkpoint.PREVIOUS_DIR
    checkpoint.write_checkpoint(run, lambda d: (d / "a.bin").write_bytes(b"2") and {"n": 2})
    assert sorted(p.name for p in run.iterdir()) == [checkpoint.CHECKPOINT_DIR]
    ckpt, doc = checkpoint.read_checkpoint(run, lambda n: n == "a.bin", "a.bin")
    assert doc["n"] == 2 and (ckpt / "a.bin").read_bytes() == b"2"
    (ckpt / "a.bin").write_bytes(b"3")
    with pytest.raises(Exception, match="checksum"):
        checkpoint.read_checkpoint(run, lambda n: n == "a.bin", "a.bin")


@pytest.mark.parametrize(("game", "players"), [("scum", 4), ("scum_party", 6), ("scandal", 2)])
def test_a_restored_engine_plays_on_exactly_like_the_saved_one(game: str, players: int) -> None:
    """`engine_state` / `restore_engine_state`: the games in flight go on move for move."""
    import numpy as np

    from cardsuite.train.core.games import train_game

    tg = train_game(game)
    config = tg.config(players, {})
    rng = np.random.default_rng(0)

    def moves(mask: np.ndarray) -> np.ndarray:
        u = rng.random(mask.shape)
        u[~np.asarray(mask).astype(bool)] = -1.0
        return u.argmax(axis=1)

    a = tg.make_engine(8, config)
    _obs, mask, _to_act = a.reset(1)
    for _ in range(40):
        mask = a.step(moves(mask)).mask
    saved = {k: v.copy() for k, v in checkpoint.engine_state(a).items()}
    saved_mask, saved_rng = np.array(mask), rng.bit_generator.state
    expected = []
    for _ in range(60):
        res = a.step(moves(mask))
        mask = res.mask
        expected.append((np.array(res.obs), np.array(res.rewards), np.array(res.done)))
    b = tg.make_engine(8, config)
    b.reset(99)  # other deals: everything must come from the saved state
    checkpoint.restore_engine_state(b, saved)
    rng.bit_generator.state, mask = saved_rng, saved_mask
    for obs, rewards, done in expected:
        res = b.step(moves(mask))
        mask = res.mask
        assert np.array_equal(res.obs, obs) and np.array_equal(res.rewards, rewards)
        assert np.array_equal(res.done, done)


def test_maskable_ppo_draws_its_opponents_from_the_core_league(tmp_path: Path) -> None:
    """A MaskablePPO run's opponents are members of its core League: the envs seat what
    its draw table says, and every finished episode's outcomes reach `League.record`."""
    import numpy as np

    from cardsuite.train.sb3.trainer import SelfPlayCallback, Trainer
    from tests.train.conftest import tiny_config

    trainer = Trainer(tiny_config(), tmp_path / "run")
    try:
        assert type(trainer.league) is league.League
        assert [m.name for m in trainer.league.members] == ["random", "heuristic"]
        random_member = trainer.league.members[0]
        assert random_member.games == 2.0  # the prior: no game recorded yet
        trainer.model.learn(256, callback=SelfPlayCallback(trainer), reset_num_timesteps=False)
        # the snapshot due at the boundary (step 128) joined the League
        assert [m.name for m in trainer.league.members][2:] == ["snapshot@128"]
        assert random_member.games > 2.0  # finished episodes were recorded against it
        trainer.add_snapshot()
        trainer.sync()
        env = trainer.venv.envs[0].unwrapped
        assert [m.name for m in env.table] == [m.name for m in trainer.league.members]
        assert [m.name for m in env.table][2:] == ["snapshot@128", "snapshot@256"]
        np.testing.assert_allclose([m.prob for m in env.table], trainer.league.probabilities())
        assert env.table[1].prob == 0.0  # opponent_heuristic: 0 in the tiny config
    finally:
        trainer.close()
