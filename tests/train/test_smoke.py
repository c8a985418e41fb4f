"""Training smoke runs through the CLI: a tiny one by default, a real one marked slow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsuite.cli import main


def _train(out: Path, *sets: str) -> int:
    """``cardsuite train`` of the quick preset into ``out``, with these ``--set`` items."""
    return main(["train", "--config", "configs/train/scum_quick.yaml", "--out", str(out),
                 *(token for item in sets for token in ("--set", item))])  # fmt: skip


def test_cli_trains_with_worker_processes_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two SubprocVecEnv workers, a periodic evaluation, the final report."""
    out = tmp_path / "run"
    with pytest.warns(FutureWarning, match="'n_epochs' is now 'update_epochs'"):
        status = _train(out, "total_steps=512", "rollout_steps=128", "batch_size=128",
                        "n_epochs=1", "hidden=16", "snapshot_every=256", "eval_every=256",
                        "eval_deals=2", "final_eval_deals=3", "eval_against=random",
                        "opponent_heuristic=0", "opponent_random=0.5", "opponent_snapshot=0.5",
                        "progress=false")  # n_epochs: an old key, read as update_epochs  # fmt: skip
    assert status == 0
    printed = capsys.readouterr().out
    assert "scum: trained 512 steps" in printed
    assert "random" in printed and "beats (dup.)" in printed
    report = json.loads((out / "report.json").read_text())
    assert report["step"] == 512
    assert [row["against"] for row in report["final"]] == ["random"]
    assert report["final"][0]["deals"] == 3
    evals = (out / "eval.csv").read_text().splitlines()
    assert len(evals) == 1 + 1 + 1  # header, the evaluation at step 256, the final one
    assert evals[1].startswith("256,random,2,")
    assert (out / "curves.png").stat().st_size > 0
    assert list((out / "tb").glob("events.out.tfevents.*"))
    state = json.loads((out / "checkpoint" / "state.json").read_text())
    assert state["step"] == 512
    assert [s["step"] for s in state["pool"]["snapshots"]] == [0, 256]


def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train"]) == 2
    assert "give --config FILE" in capsys.readouterr().err
    assert (
        main(["train", "--config", "configs/train/scum_quick.yaml", "--set", "totl_steps=5"]) == 2
    )
    assert "unknown config key 'totl_steps'" in capsys.readouterr().err
    assert main(["train", "--resume", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["train", "--config", "configs/train/scum_quick.yaml", "--total_steps", "5"]) == 2
    assert (
        "unknown argument '--total_steps' (did you mean --total-steps?)" in capsys.readouterr().err
    )
    assert main(["trian", "--config", "configs/train/scum_quick.yaml"]) == 2
    assert "unknown command 'trian' (did you mean 'train'?)" in capsys.readouterr().err


@pytest.mark.slow
def test_quick_preset_beats_random(tmp_path: Path) -> None:
    """The scum quick preset, shortened to 40k steps, already wins most duplicate deals."""
    out = tmp_path / "quick"
    status = _train(out, "total_steps=40960", "eval_every=0", "final_eval_deals=40",
                    "eval_against=random", "progress=false")  # fmt: skip
    assert status == 0
    report = json.loads((out / "report.json").read_text())
    assert report["final"][0]["beats"] >= 0.8


def test_rllib_backend_without_ray_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib

    real = importlib.import_module

    def no_ray(name: str, package: str | None = None) -> object:
        if name == "ray":
            raise ModuleNotFoundError("No module named 'ray'", name="ray")
        return real(name, package)

    import cardsuite.train.sb3.cli as train_cli

    monkeypatch.setattr(train_cli.importlib, "import_module", no_ray)
    assert main(["train", "--backend", "rllib", "--config", "configs/train/rllib_scum.yaml"]) == 2
    assert "--backend rllib needs ray[rllib]" in capsys.readouterr().err


def test_a_run_that_died_before_its_first_checkpoint_starts_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``cardsuite train`` records its config (run.json) when the run folder is made; after a
    crash before any checkpoint, ``--resume RUN`` trains it again from the start (issue 59)."""
    from cardsuite.train.sb3 import trainer

    out = tmp_path / "run"
    real = trainer.Trainer.__init__

    def dies(self: trainer.Trainer, *args: object, **kwargs: object) -> None:
        real(self, *args, **kwargs)
        raise RuntimeError("power cut")

    monkeypatch.setattr(trainer.Trainer, "__init__", dies)
    sets = ("total_steps=256", "rollout_steps=128", "batch_size=128", "update_epochs=1",
            "hidden=16", "eval_every=0", "final_eval_deals=2", "eval_against=random",
            "progress=false", "vec_env=dummy", "num_games=1")  # fmt: skip
    with pytest.raises(RuntimeError, match="power cut"):
        _train(out, *sets)
    assert (out / "run.json").is_file() and not (out / "checkpoint").exists()
    monkeypatch.setattr(trainer.Trainer, "__init__", real)
    assert main(["train", "--resume", str(out)]) == 0
    assert "training it again from the start" in capsys.readouterr().err
    assert json.loads((out / "checkpoint" / "state.json").read_text())["step"] == 256
