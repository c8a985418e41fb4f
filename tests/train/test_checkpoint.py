"""Checkpoints: exact resume, atomic writes, and named errors for bad ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.checkpoint import (
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

    from cardsuite.train.trainer import Trainer

    config = tiny_config(total_steps=512, checkpoint_every=0)
    run = tmp_path / "run"
    trainer = Trainer(config, run)
    saved: list[Any] = []
    real_schedules, real_state = trainer.run_schedules, trainer.state

    def schedules_then_ctrl_c() -> None:
        real_schedules()
        if trainer.step >= 256:
            trainer.stop_requested = True  # what the SIGINT handler does

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
        assert [s.step for s in resumed.snapshots] == [128, 256]
        for a, b in zip(resumed.snapshots, state.snapshots, strict=True):
            assert a.params.keys() == b.params.keys()
            assert all(np.array_equal(a.params[k], b.params[k]) for k in a.params)
        assert capture_rng() == state.rng
        assert resumed.schedule == state.schedule
        assert resumed.config == config
        resumed_result = resumed.train()
    finally:
        resumed.close()
    assert not resumed_result.interrupted
    assert resumed_result.step == 512
    assert [r.baseline for r in resumed_result.report] == ["random"]
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
    with pytest.raises(CheckpointError, match=r"state\.json is not valid JSON"):
        read_state(run_copy)
    with pytest.raises(CheckpointError, match="does not exist"):
        read_state(run_copy / "elsewhere")


def test_config_mismatch_is_named(run_copy: Path) -> None:
    from cardsuite.train.trainer import Trainer

    with pytest.raises(CheckpointError, match=r"hidden_size was 16, now 32"):
        Trainer(tiny_config(hidden_size=32), run_copy, resume=run_copy)
    with pytest.raises(
        CheckpointError, match=r"options was .*'num_players': 4.*now .*'num_players': 5"
    ):
        Trainer(
            tiny_config(options={"num_players": 5, "reward": "centered"}), run_copy, resume=run_copy
        )


def test_a_new_run_never_overwrites_a_checkpoint(run_copy: Path) -> None:
    from cardsuite.train.trainer import Trainer

    with pytest.raises(
        ConfigError, match="already holds a checkpoint; continue it with --resume"
    ):
        Trainer(tiny_config(), run_copy)


def test_failed_save_keeps_the_previous_checkpoint(run_copy: Path) -> None:
    from cardsuite.train.checkpoint import save_checkpoint

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
    from cardsuite.train.checkpoint import PREVIOUS_DIR

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

    from cardsuite.train.safe_io import sha256_file

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
