"""Checkpoints: exact resume, atomic writes, and named errors for bad ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.core.rundir import check_run_dir
from cardsuite.train.sb3.checkpoint import (
    capture_rng,
    find_checkpoint,
    load_checkpoint,
    read_state,
    restore_rng,
)
from tests.train.conftest import tiny_config


def tensors_equal(a: Any, b: Any) -> bool:
    """Deep equality of nested dicts/lists of tensors and scalars."""
    import torch

    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(tensors_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(tensors_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


def test_interrupt_then_resume_restores_everything_and_continues(tmp_path: Path) -> None:
    import copy

    from cardsuite.train.sb3.trainer import Trainer

    config = tiny_config(total_steps=512, checkpoint_every=0)
    run = tmp_path / "run"
    trainer = Trainer(config, run)
    saved: list[Any] = []
    real_schedules, real_state = trainer.run_schedules, trainer.state

    def schedules_then_ctrl_c() -> None:
        real_schedules()
        if trainer.step >= 256:
            assert trainer.stop is not None
            trainer.stop.requested = True  # what the SIGINT handler does

    def recording_state() -> Any:
        state = real_state()
        saved.append(
            (
                state,
                copy.deepcopy(trainer.model.policy.state_dict()),
                copy.deepcopy(trainer.model.policy.optimizer.state_dict()),
            )
        )
        return state

    trainer.run_schedules = schedules_then_ctrl_c  # type: ignore[method-assign]
    trainer.state = recording_state  # type: ignore[method-assign]
    result = trainer.train()
    assert result.interrupted
    assert result.step == 256  # stopped at the rollout boundary after the 2nd update
    assert result.report == []
    state, weights, optimizer = saved[-1]
    assert state.step == 256
    assert [s.step for s in state.snapshots] == [128, 256]  # max_snapshots = 2

    import random

    import torch

    random.seed(1), np.random.seed(2), torch.manual_seed(3)  # other states than the saved ones
    assert capture_rng() != state.rng
    resumed = Trainer(config, run, resume=run)
    try:
        assert resumed.step == 256
        assert tensors_equal(resumed.model.policy.state_dict(), weights)
        assert tensors_equal(resumed.model.policy.optimizer.state_dict(), optimizer)
        assert [s.step for s in resumed.league.snapshots()] == [128, 256]
        # the core League comes back with its ids and PFSP counts
        assert state.league is not None
        assert resumed.league.state()["members"] == state.league["members"]
        assert any(e["games"] > 2.0 for e in state.league["members"])  # games were recorded
        for a, b in zip(resumed.league.snapshots(), state.snapshots, strict=True):
            assert a.params.keys() == b.params.keys()
            assert all(np.array_equal(a.params[k], b.params[k]) for k in a.params)
        assert capture_rng() == state.rng
        assert resumed.due == state.schedule
        assert resumed.config == config
        resumed_result = resumed.train()
    finally:
        resumed.close()
    assert not resumed_result.interrupted
    assert resumed_result.step == 512
    assert [r.against for r in resumed_result.report] == ["random"]
    assert (run / "report.md").is_file() and (run / "curves.png").is_file()
    _, final = read_state(run)
    assert final.step == 512


def test_rng_capture_round_trips() -> None:
    import random

    import torch

    state = capture_rng()
    first = (random.random(), np.random.random(), torch.rand(1).item())
    restore_rng(json.loads(json.dumps(state)))
    assert (random.random(), np.random.random(), torch.rand(1).item()) == first


@pytest.fixture
def run_copy(trained_run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(trained_run, copy)
    return copy


def test_checksum_mismatch_is_named(run_copy: Path) -> None:
    model = run_copy / "checkpoint" / "optimizer.safetensors"
    data = bytearray(model.read_bytes())
    data[-3] ^= 0xFF
    model.write_bytes(bytes(data))
    with pytest.raises(
        CheckpointError, match=r"file optimizer\.safetensors does not match its checksum"
    ):
        read_state(run_copy)


def test_bad_json_missing_file_and_format_are_named(run_copy: Path) -> None:
    state_file = run_copy / "checkpoint" / "state.json"
    doc = json.loads(state_file.read_text())
    snapshot = run_copy / "checkpoint" / doc["pool"]["snapshots"][0]["file"]
    snapshot.unlink()
    with pytest.raises(CheckpointError, match=r"file pool/snapshot_00_\d+\.safetensors is missing"):
        read_state(run_copy)
    state_file.write_text(json.dumps({**doc, "format": 99}))
    with pytest.raises(CheckpointError, match="format 99 is not the supported format 2"):
        read_state(run_copy)
    state_file.write_text('{"format": 1, "step": ')
    with pytest.raises(CheckpointError, match=r"state\.json.*: not valid JSON"):
        read_state(run_copy)
    with pytest.raises(CheckpointError, match="does not exist"):
        read_state(run_copy / "elsewhere")


def test_config_mismatch_is_named(run_copy: Path) -> None:
    from cardsuite.train.sb3.trainer import Trainer

    with pytest.raises(CheckpointError, match=r"hidden was 16, now 32"):
        Trainer(tiny_config(hidden=32), run_copy, resume=run_copy)
    with pytest.raises(CheckpointError, match=r"num_players was 4, now 5"):
        Trainer(tiny_config(num_players=5), run_copy, resume=run_copy)


def test_a_new_run_never_overwrites_a_checkpoint(run_copy: Path) -> None:
    from cardsuite.train.sb3.trainer import Trainer

    with pytest.raises(
        ConfigError, match=r"already holds files \(checkpoint.*continue it with --resume"
    ):
        Trainer(tiny_config(), run_copy)


def test_failed_save_keeps_the_previous_checkpoint(run_copy: Path) -> None:
    from cardsuite.train.sb3.checkpoint import save_checkpoint

    before = (run_copy / "checkpoint" / "state.json").read_text()
    _, state = read_state(run_copy)

    loaded = load_checkpoint(run_copy)

    class Exploding(dict):  # type: ignore[type-arg]
        def items(self) -> Any:
            raise KeyboardInterrupt  # Ctrl-C in the middle of writing

    optimizer = {"state": Exploding(), "param_groups": []}
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint(run_copy, loaded.weights, loaded.meta, optimizer, state)
    assert (run_copy / "checkpoint" / "state.json").read_text() == before
    assert read_state(run_copy)[1].step == state.step
    assert not [p for p in run_copy.iterdir() if p.name.startswith(".checkpoint-")]


def test_save_interrupted_between_renames_is_recovered(run_copy: Path) -> None:
    from cardsuite.train.sb3.checkpoint import PREVIOUS_DIR

    (run_copy / "checkpoint").rename(run_copy / PREVIOUS_DIR)
    assert find_checkpoint(run_copy) == run_copy / PREVIOUS_DIR
    assert read_state(run_copy)[1].step == 256


def _tamper(run: Path, change: Any) -> None:
    """Edit ``state.json`` of a run's checkpoint with ``change(doc)``."""
    state_file = run / "checkpoint" / "state.json"
    doc = json.loads(state_file.read_text())
    change(doc)
    state_file.write_text(json.dumps(doc))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d.update(schedule={"snapshot": "soon", "eval": -1, "checkpoint": -1}),
            r"field 'schedule\.snapshot' must be a step",
        ),
        (lambda d: d.update(schedule={"snapshot": 1}), r"field 'schedule' must map"),
        (lambda d: d.update(schedule="soon"), r"field 'schedule' must map"),
        (lambda d: d.update(files=list(d["files"])), r"field 'files' must map file names"),
        (
            lambda d: d["files"].update({"../../etc/passwd": "0" * 64}),
            r"field 'files\.\.\./\.\./etc/passwd' names a file a checkpoint does not hold",
        ),
        (
            lambda d: d["files"].pop("optimizer.safetensors"),
            r"field 'files' does not list optimizer\.safetensors",
        ),
        (
            lambda d: d["files"].update({"optimizer.safetensors": "xyz"}),
            r"field 'files\.optimizer\.safetensors' must be a SHA-256",
        ),
        (lambda d: d.update(step=-3), r"field 'step' must be an integer >= 0"),
        (lambda d: d.update(step="256"), r"field 'step' must be an integer"),
        (lambda d: d.update(history={"a": 1}), r"field 'history' must be a list"),
        (lambda d: d.update(counters={"n_updates": 1.5}), r"field 'counters'"),
        (lambda d: d.update(config=[1]), r"field 'config' must be a mapping"),
        (
            lambda d: d["config"].update(learning_rate="fast"),
            r"field 'config' is invalid: .*learning_rate",
        ),
        (lambda d: d.update(rng={"python": 1}), r"field 'rng' must hold"),
        (lambda d: d["rng"]["numpy"].__setitem__(0, "PCG64"), r"field 'rng\.numpy' is malformed"),
        (lambda d: d["rng"].update(torch="not base64!"), r"field 'rng\.torch' is malformed"),
        (lambda d: d["pool"].update(snapshots="all"), r"field 'pool' must hold a list"),
        (
            lambda d: d["pool"]["snapshots"][0].update(activation="gelu"),
            r"field 'pool\.snapshots\[0\]\.activation'",
        ),
        (
            lambda d: d["pool"]["snapshots"][0].update(file="agent/agent.json"),
            r"field 'pool\.snapshots\[0\]\.file' 'agent/agent\.json' is not a listed pool file",
        ),
    ],
)
def test_tampered_state_json_is_named(run_copy: Path, change: Any, message: str) -> None:
    _tamper(run_copy, change)
    with pytest.raises(CheckpointError, match=message):
        read_state(run_copy)


def test_a_pickled_pt_in_the_pool_is_refused_unread(run_copy: Path, tmp_path: Path) -> None:
    """A pool file swapped for a pickle (with a recomputed sum) is refused by its kind."""
    import pickle

    from cardsuite.agents.learned.files import sha256_file

    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (exec, (f"open({str(marker)!r}, 'w').write('x')",))

    ckpt = run_copy / "checkpoint"
    evil = ckpt / "pool" / "snapshot_00_128.pt"
    evil.write_bytes(pickle.dumps(Payload()))

    def swap(doc: dict[str, Any]) -> None:
        old = doc["pool"]["snapshots"][0]["file"]
        (ckpt / old).unlink()
        del doc["files"][old]
        doc["files"]["pool/snapshot_00_128.pt"] = sha256_file(evil)
        doc["pool"]["snapshots"][0]["file"] = "pool/snapshot_00_128.pt"

    _tamper(run_copy, swap)
    with pytest.raises(CheckpointError, match=r"files\.pool/snapshot_00_128\.pt' names a file"):
        read_state(run_copy)
    (ckpt / "pool" / "snapshot_00_128.safetensors").write_bytes(evil.read_bytes())
    evil.unlink()

    def rename(doc: dict[str, Any]) -> None:
        name = "pool/snapshot_00_128.safetensors"
        doc["files"] = {k: v for k, v in doc["files"].items() if not k.endswith(".pt")}
        doc["files"][name] = sha256_file(ckpt / name)
        doc["pool"]["snapshots"][0]["file"] = name

    _tamper(run_copy, rename)
    with pytest.raises(CheckpointError, match="not a safetensors file"):
        read_state(run_copy)
    assert not marker.exists()


def test_train_resume_of_a_tampered_state_exits_2_naming_the_field(
    run_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cardsuite.cli import main

    _tamper(run_copy, lambda d: d["schedule"].update(eval="soon"))
    assert main(["train", "--resume", str(run_copy)]) == 2
    assert "field 'schedule.eval'" in capsys.readouterr().err


# ------------------------------------------------- runs are never overwritten
def test_new_run_refuses_any_used_directory(tmp_path: Path, trained_run: Path) -> None:
    from cardsuite.cli import main
    from cardsuite.train.sb3.trainer import Trainer

    config = tmp_path / "c.yaml"
    config.write_text("game: scum\nnum_players: 4\ntotal_steps: 64\n")
    a_file = tmp_path / "file.txt"
    a_file.write_text("keep me")
    only_prev = tmp_path / "only_prev"
    shutil.copytree(trained_run / "checkpoint", only_prev / "checkpoint.prev")
    killed_early = tmp_path / "killed"  # config.yaml and tb/ of a run killed before a checkpoint
    (killed_early / "tb").mkdir(parents=True)
    (killed_early / "config.yaml").write_text("game: scum\n")
    for out, message in (
        (a_file, "is an existing file"),
        (only_prev, r"already holds files \(checkpoint\.prev\).*--resume"),
        (killed_early, r"already holds files \(config\.yaml, tb\)"),
        (trained_run, "already holds files"),
    ):
        before = sorted(p.name for p in out.iterdir()) if out.is_dir() else out.read_text()
        with pytest.raises(ConfigError, match=message):
            Trainer(tiny_config(), out)
        assert main(["train", "--config", str(config), "--out", str(out)]) == 2
        after = sorted(p.name for p in out.iterdir()) if out.is_dir() else out.read_text()
        assert after == before
    (tmp_path / "empty").mkdir()
    check_run_dir(tmp_path / "empty", None)  # an empty directory is fine
    under_a_file = a_file / "run"
    with pytest.raises(ConfigError, match="cannot create the run directory"):
        check_run_dir(under_a_file, None)
    assert main(["train", "--config", str(config), "--out", str(under_a_file)]) == 2


def test_resume_into_another_run_never_replaces_its_checkpoint(
    trained_run: Path, tmp_path: Path
) -> None:
    from cardsuite.cli import main

    run1, run2 = tmp_path / "run1", tmp_path / "run2"
    shutil.copytree(trained_run, run1)
    shutil.copytree(trained_run, run2)
    before = (run2 / "checkpoint" / "state.json").read_bytes()
    assert main(["train", "--resume", str(run1), "--out", str(run2)]) == 2
    assert (run2 / "checkpoint" / "state.json").read_bytes() == before
    with pytest.raises(ConfigError, match="already holds files"):
        check_run_dir(run2, find_checkpoint(run1))
    assert check_run_dir(run1, find_checkpoint(run1)) is True  # in place
    assert check_run_dir(tmp_path / "branch", find_checkpoint(run1)) is False  # a new branch


def _steps(path: Path) -> list[int]:
    import csv

    with open(path, newline="") as fh:
        return [int(r["step"]) for r in csv.DictReader(fh)]


def _tb_scalar_steps(folder: Path, tag: str) -> list[int]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(folder), purge_orphaned_data=True)
    acc.Reload()
    return [e.step for e in acc.Scalars(tag)]


def test_resume_after_a_kill_keeps_each_step_once(tmp_path: Path) -> None:
    """Killed at step 384 with the last checkpoint at 256: the resume drops 257..384 once."""
    from cardsuite.train.sb3.trainer import Trainer

    config = tiny_config(total_steps=512, checkpoint_every=128, eval_every=128)
    run = tmp_path / "run"
    trainer = Trainer(config, run)
    real_save = trainer.save

    def killed_at_384() -> Path:
        if trainer.step >= 384:
            raise SystemExit("killed")  # like SIGKILL: no checkpoint, the logs so far stay
        return real_save()

    trainer.save = killed_at_384  # type: ignore[method-assign]
    with pytest.raises(SystemExit):
        trainer.train()
    trainer.close()
    tag = "rollout/ep_rew_mean"
    assert _steps(run / "curve.csv") == [128, 256, 384]
    assert _steps(run / "eval.csv") == [128, 256, 384]
    assert _tb_scalar_steps(run / "tb", tag) == [128, 256, 384]
    assert read_state(run)[1].step == 256

    resumed = Trainer(config, run, resume=run)
    try:
        assert _steps(run / "curve.csv") == [128, 256]  # the killed stretch is gone
        assert _steps(run / "eval.csv") == [128, 256]
        result = resumed.train()
    finally:
        resumed.close()
    assert result.step == 512 and not result.interrupted
    assert _steps(run / "curve.csv") == [128, 256, 384, 512]
    assert _steps(run / "eval.csv") == [128, 256, 384, 512]
    assert _tb_scalar_steps(run / "tb", tag) == [128, 256, 384, 512]
    assert _tb_scalar_steps(run / "tb", "eval/beats_random") == [128, 256, 384, 512]
    assert (run / "curves.png").is_file()


def test_resume_into_a_new_directory_branches_with_the_logs_up_to_the_checkpoint(
    trained_run: Path, tmp_path: Path
) -> None:
    from cardsuite.train.core.rundir import start_logs

    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    (run / "curve.csv").write_text("step,ep_rew_mean,episodes\n128,0.1,3\n256,0.2,3\n384,0.3,3\n")
    branch = tmp_path / "branch"
    start_logs(branch, find_checkpoint(run), 256, in_place=False)
    assert _steps(branch / "curve.csv") == [128, 256]
    assert _steps(run / "curve.csv") == [128, 256, 384]  # the source run is untouched


def test_any_json_in_any_state_field_gives_a_named_error(
    trained_run: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Fuzzed state.json fields: read_state raises CheckpointError or reads a valid state."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    original = json.loads((trained_run / "checkpoint" / "state.json").read_text())
    scalars = (
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6)
    )
    values = st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
        ),
        max_leaves=6,
    )
    paths = [
        ("step",),
        ("schedule",),
        ("schedule", "eval"),
        ("files",),
        ("history",),
        ("counters",),
        ("config",),
        ("config", "learning_rate"),
        ("rng",),
        ("rng", "numpy"),
        ("pool",),
        ("pool", "snapshots"),
        ("optimizer",),
        ("format",),
    ]

    @settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
    @given(path=st.sampled_from(paths), value=values)
    def check(path: tuple[str, ...], value: object) -> None:
        run = tmp_path_factory.mktemp("case")
        shutil.copytree(trained_run / "checkpoint", run / "checkpoint")
        doc = json.loads(json.dumps(original))
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        (run / "checkpoint" / "state.json").write_text(json.dumps(doc))
        try:
            _, state = read_state(run)
        except CheckpointError:
            return
        assert isinstance(state.step, int) and set(state.schedule) == {
            "snapshot",
            "eval",
            "checkpoint",
        }

    check()
