"""Loading a file never runs code: the safe agent format and refusals of pickles (issue 12)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import strategies as st

from cardsuite.agents.learned.files import sha256_file
from cardsuite.agents.learned.meta import META_FILE, WEIGHTS_FILE, AgentMeta
from cardsuite.agents.learned.netspec import NetworkSpec, actor_logits
from cardsuite.agents.learned.safe_io import load_agent_numpy, read_meta, save_agent
from cardsuite.errors import CheckpointError
from cardsuite.train.core.learned import load_agent


def _tiny() -> tuple[dict[str, np.ndarray], AgentMeta]:
    rng = np.random.default_rng(0)
    tensors = {
        "h0.weight": rng.normal(size=(5, 3)).astype(np.float32),
        "h0.bias": rng.normal(size=5).astype(np.float32),
        "out.weight": rng.normal(size=(2, 5)).astype(np.float32),
        "out.bias": rng.normal(size=2).astype(np.float32),
        "critic.weight": rng.normal(size=(1, 3)).astype(np.float32),
    }
    meta = AgentMeta(
        game="scum",
        options={"num_players": 4},
        obs_size=3,
        num_actions=2,
        network=NetworkSpec(activation="relu", actor=("h0", "out")),
        step=7,
        trainer="test",
    )
    return tensors, meta


def test_round_trip_numpy_and_torch(tmp_path: Path) -> None:
    tensors, meta = _tiny()
    out = save_agent(tmp_path / "agent", tensors, meta)
    assert sorted(p.name for p in out.iterdir()) == sorted([META_FILE, WEIGHTS_FILE])
    arrays, loaded = load_agent_numpy(out)
    assert loaded.game == "scum" and loaded.step == 7 and loaded.network == meta.network
    assert loaded.versions["safetensors"]
    for name, value in tensors.items():
        np.testing.assert_array_equal(arrays[name], value)
    torch_tensors, _ = load_agent(out)
    np.testing.assert_array_equal(torch_tensors["out.bias"].numpy(), tensors["out.bias"])
    obs = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    hidden = np.maximum(tensors["h0.weight"] @ obs + tensors["h0.bias"], 0)
    expected = tensors["out.weight"] @ hidden + tensors["out.bias"]
    np.testing.assert_allclose(actor_logits(arrays, loaded.network, obs), expected, rtol=1e-6)


def test_a_saved_agent_has_the_modes_of_plain_files(tmp_path: Path) -> None:
    """Written through a temporary folder (owner-only modes) and renamed, an agent still
    gets the umask's modes: it is shared, shipped in the package and read by other users."""
    import os
    import stat

    tensors, meta = _tiny()
    old = os.umask(0o022)
    try:
        out = save_agent(tmp_path / "agent", tensors, meta)
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    assert {stat.S_IMODE(f.stat().st_mode) for f in out.iterdir()} == {0o644}


def test_never_overwrites_and_refuses_unloadable_weights(tmp_path: Path) -> None:
    tensors, meta = _tiny()
    save_agent(tmp_path / "a", tensors, meta)
    with pytest.raises(CheckpointError, match="already exists"):
        save_agent(tmp_path / "a", tensors, meta)
    with pytest.raises(CheckpointError, match="outputs 2 logits but num_actions is 3"):
        save_agent(tmp_path / "b", tensors, AgentMeta(**{**meta.__dict__, "num_actions": 3}))
    with pytest.raises(CheckpointError, match="has no weight/bias"):
        save_agent(tmp_path / "c", {"h0.weight": tensors["h0.weight"]}, meta)
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()
    (tmp_path / "file").write_text("x")
    with pytest.raises(CheckpointError, match="cannot write agent directory"):
        save_agent(tmp_path / "file" / "agent", tensors, meta)


def _tamper(tmp_path: Path, **changes: object) -> Path:
    tensors, meta = _tiny()
    out = save_agent(tmp_path / "agent", tensors, meta)
    doc = json.loads((out / META_FILE).read_text())
    for key, value in changes.items():
        if key.startswith("network_"):
            doc["network"][key.removeprefix("network_")] = value
        else:
            doc[key] = value
    (out / META_FILE).write_text(json.dumps(doc))
    return out


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"format": "pickle"}, "format"),
        ({"game": 5}, "game"),
        ({"game": "\x1b[31mscum"}, "game"),
        ({"options": [1, 2]}, "options"),
        ({"obs_size": "3"}, "obs_size"),
        ({"obs_size": True}, "obs_size"),
        ({"num_actions": -1}, "num_actions"),
        ({"step": 1.5}, "step"),
        ({"sha256": "abc"}, "sha256"),
        ({"versions": {"torch": 2}}, "versions"),
        ({"surprise": 1}, "surprise"),
        ({"network_activation": "gelu"}, "network.activation"),
        ({"network_kind": "transformer"}, "network.kind"),
        ({"network_actor": "h0"}, "network.actor"),
        ({"network_obs_scale": "magic"}, "network.obs_scale"),
        ({"network_code": "import os"}, "network.code"),
    ],
)
def test_every_meta_field_is_validated(tmp_path: Path, changes: dict, field: str) -> None:
    out = _tamper(tmp_path, **changes)
    with pytest.raises(CheckpointError, match=f"field '{field}'"):
        load_agent_numpy(out)


def test_meta_that_fits_other_weights_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="outputs 2 logits but num_actions is 9"):
        load_agent_numpy(_tamper(tmp_path, num_actions=9))


def test_missing_fields_nan_json_and_deep_json(tmp_path: Path) -> None:
    tensors, meta = _tiny()
    out = save_agent(tmp_path / "agent", tensors, meta)
    doc = json.loads((out / META_FILE).read_text())
    del doc["network"]
    (out / META_FILE).write_text(json.dumps(doc))
    with pytest.raises(CheckpointError, match="field 'network' is missing"):
        read_meta(out)
    (out / META_FILE).write_text('{"format": NaN}')
    with pytest.raises(CheckpointError, match="NaN is not allowed"):
        read_meta(out)
    (out / META_FILE).write_text('{"format": 1, "format": 2}')
    with pytest.raises(CheckpointError, match="duplicate key 'format'"):
        read_meta(out)
    (out / META_FILE).write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CheckpointError, match="JSON nested too deeply"):
        read_meta(out)
    (out / META_FILE).write_bytes(b"\xff\xfe")
    with pytest.raises(CheckpointError, match="not valid UTF-8"):
        read_meta(out)


def test_weights_checksum_size_and_extra_files(tmp_path: Path) -> None:
    tensors, meta = _tiny()
    out = save_agent(tmp_path / "agent", tensors, meta)
    weights = out / WEIGHTS_FILE
    with pytest.raises(CheckpointError, match="over the 10 limit"):
        load_agent_numpy(out, limit=10)
    data = bytearray(weights.read_bytes())
    data[-1] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"does not match agent\.json sha256"):
        load_agent_numpy(out)
    (out / "extra.pkl").write_bytes(b"cos\nsystem\n")
    with pytest.raises(CheckpointError, match=r"unexpected file\(s\) extra.pkl"):
        load_agent_numpy(out)


def test_garbage_weights_with_a_recomputed_checksum_are_refused(tmp_path: Path) -> None:
    """The checksum is for corruption; a matching sum over junk still fails cleanly."""
    out = _tamper(tmp_path)
    weights = out / WEIGHTS_FILE
    weights.write_bytes(b"\x80\x04\x95" + b"cos\nsystem\n(S'touch /tmp/x'\ntR." * 3)
    doc = json.loads((out / META_FILE).read_text())
    doc["sha256"] = sha256_file(weights)
    (out / META_FILE).write_text(json.dumps(doc))
    with pytest.raises(CheckpointError, match="not a safetensors file"):
        load_agent_numpy(out)


# ------------------------------------------------------------- crafted SB3 zips
class _WritesMarker:
    """Unpickling this writes a marker file: the attack a crafted zip carries."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (exec, (f"open({str(self.marker)!r}, 'w').write('pwned')",))


def crafted_zip(path: Path, marker: Path) -> Path:
    """An SB3-shaped zip whose ``data`` holds a ``:serialized:`` pickle that writes ``marker``."""
    import base64
    import pickle
    import zipfile

    payload = base64.b64encode(pickle.dumps(_WritesMarker(marker))).decode()
    data = {
        "policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": payload},
        "observation_space": {":type:": "x", ":serialized:": payload},
        "num_timesteps": 256,
    }
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data", json.dumps(data))
        zf.writestr("pytorch_variables.pth", b"")
        zf.writestr("policy.pth", b"")
        zf.writestr("_stable_baselines3_version", "2.9.2")
    return path


def test_the_crafted_zip_does_run_code_when_sb3_loads_it(tmp_path: Path) -> None:
    """The control: the test file is a real attack, so the refusals below mean something."""
    from stable_baselines3.common.save_util import load_from_zip_file

    marker = tmp_path / "pwned"
    zip_path = crafted_zip(tmp_path / "model.zip", marker)
    with contextlib.suppress(Exception):  # what it does after unpickling does not matter
        load_from_zip_file(zip_path, device="cpu")
    assert marker.exists()


def _old_run(tmp_path: Path, marker: Path) -> Path:
    """A run directory as cardsuite 0.1 wrote it (model.zip + state.json format 1)."""
    ckpt = tmp_path / "run" / "checkpoint"
    ckpt.mkdir(parents=True)
    crafted_zip(ckpt / "model.zip", marker)
    config = {"game": "scum", "options": {"num_players": 4}}
    files = {"model.zip": sha256_file(ckpt / "model.zip")}  # recomputed sums, as an attacker would
    (ckpt / "state.json").write_text(
        json.dumps({"format": 1, "step": 256, "config": config, "files": files})
    )
    return tmp_path / "run"


def test_ppo_agent_refuses_a_crafted_zip_and_runs_nothing(tmp_path: Path) -> None:
    from cardsuite.agents.registry import make_agent

    marker = tmp_path / "pwned"
    zip_path = crafted_zip(tmp_path / "model.zip", marker)
    run = _old_run(tmp_path, marker)
    for path in (zip_path, run, run / "checkpoint", run / "checkpoint" / "model.zip"):
        with pytest.raises(CheckpointError, match=r"':serialized:'.*cardsuite export") as err:
            make_agent(f"ppo:{path}", "scum", seed=0)
        assert "--trust-pickle-this-file-can-run-code" in str(err.value)
    renamed = tmp_path / "innocent.bin"
    renamed.write_bytes(zip_path.read_bytes())
    with pytest.raises(CheckpointError, match="stable-baselines3 zip"):
        make_agent(f"ppo:{renamed}", "scum", seed=0)
    assert not marker.exists()


def test_a_zip_slipped_into_a_safe_checkpoint_is_refused(trained_run: Path, tmp_path: Path) -> None:
    import shutil

    from cardsuite.agents.registry import make_agent
    from cardsuite.train.sb3.checkpoint import read_state

    marker = tmp_path / "pwned"
    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    ckpt = run / "checkpoint"
    crafted_zip(ckpt / "model.zip", marker)
    doc = json.loads((ckpt / "state.json").read_text())
    doc["files"]["model.zip"] = sha256_file(ckpt / "model.zip")
    (ckpt / "state.json").write_text(json.dumps(doc))
    with pytest.raises(CheckpointError, match="stable-baselines3 zip"):
        read_state(run)
    with pytest.raises(CheckpointError, match="stable-baselines3 zip"):
        make_agent(f"ppo:{run}", "scum", seed=0)
    assert not marker.exists()


def test_train_resume_refuses_a_crafted_zip_and_runs_nothing(tmp_path: Path) -> None:
    from cardsuite.cli import main
    from cardsuite.train.sb3.trainer import Trainer
    from tests.train.conftest import tiny_config

    marker = tmp_path / "pwned"
    run = _old_run(tmp_path, marker)
    with pytest.raises(CheckpointError, match="':serialized:'"):
        Trainer(tiny_config(), tmp_path / "new", resume=run)
    assert main(["train", "--resume", str(run)]) == 2
    assert main(["train", "--resume", str(run), "--out", str(tmp_path / "o")]) == 2
    config = tmp_path / "c.yaml"
    config.write_text("game: scum\noptions: {num_players: 4}\n")
    assert main(["train", "--config", str(config), "--resume", str(run / "checkpoint")]) == 2
    assert not marker.exists()


def test_export_needs_the_opt_in_flag(tmp_path: Path) -> None:
    from cardsuite.cli import main

    marker = tmp_path / "pwned"
    zip_path = crafted_zip(tmp_path / "model.zip", marker)
    out = tmp_path / "agent"
    assert main(["export", str(zip_path), "--out", str(out), "--game", "scum"]) == 2
    assert not marker.exists() and not out.exists()


def test_export_of_a_trusted_zip_plays_like_the_model(trained_run: Path, tmp_path: Path) -> None:
    from cardsuite.agents.base import table_info
    from cardsuite.agents.learned.policy import PPOAgent
    from cardsuite.cli import main
    from cardsuite.games import get_game
    from tests.train.test_policy import torch_model

    model = torch_model(trained_run)
    model.save(tmp_path / "model.zip")
    out = tmp_path / "exported"
    args = ["export", str(tmp_path / "model.zip"), "--out", str(out), "--game", "scum"]
    assert main([*args, "--trust-pickle-this-file-can-run-code", "--num_players", "5"]) == 2
    assert not out.exists()  # 5 players: other sizes than the policy's
    assert main([*args, "--trust-pickle-this-file-can-run-code", "--num_players", "4"]) == 0
    exported = PPOAgent.load(out, "scum")
    original = PPOAgent.load(trained_run, "scum")
    env = get_game("scum").make(num_players=4)
    env.reset(seed=5)
    obs = env.observe(env.agent_selection)
    for agent in (exported, original):
        agent.reset(table_info(env, "scum", env.agent_selection))
    assert exported.act(obs["observation"], obs["action_mask"], {}) == original.act(
        obs["observation"], obs["action_mask"], {}
    )
    np.testing.assert_array_equal(
        exported.logits(obs["observation"]), original.logits(obs["observation"])
    )


# ------------------------------------------------------------- RLlib checkpoints
def _rllib_checkpoint(folder: Path) -> tuple[Path, object]:
    """A checkpoint folder as the RLlib trainer writes it: run record + safe weights."""
    pytest.importorskip("ray.rllib")
    from cardsuite.agents.learned.rllib import RUN_RECORD, export_module
    from cardsuite.train.rllib.algorithm import module_spec
    from cardsuite.train.rllib.config import load_config

    config = load_config(None, game="scum", hidden=16, layers=1)
    module = module_spec(config, with_spaces=True).build()
    folder.mkdir(parents=True)
    record = {"game": "scum", "options": config.env_options(), "config": config.to_dict()}
    (folder / RUN_RECORD).write_text(json.dumps(record))
    export_module(module.state_dict(), folder)
    return folder, module


def test_rllib_agent_loads_the_safe_weights_only(tmp_path: Path) -> None:
    import pickle

    import torch

    from cardsuite.agents.base import table_info
    from cardsuite.agents.learned.netspec import obs_scale
    from cardsuite.agents.learned.rllib import RLlibAgent
    from cardsuite.games import get_game

    marker = tmp_path / "pwned"
    folder, module = _rllib_checkpoint(tmp_path / "iter_000001")
    for name in ("class_and_ctor_args.pkl", "state.pkl"):  # RLlib's own files, crafted
        (folder / name).write_bytes(pickle.dumps(_WritesMarker(marker)))
    agent = RLlibAgent.load(folder, "scum", seed=0)
    env = get_game("scum").make(num_players=4)
    env.reset(seed=0)
    agent.reset(table_info(env, "scum", env.agent_selection))
    obs = env.observe(env.agent_selection)
    x = torch.as_tensor(obs["observation"], dtype=torch.float32)
    with torch.no_grad():  # the safe weights: the module's own policy logits
        want = module.pi(x * module.obs_scale).numpy()  # type: ignore[attr-defined]
    scale = obs_scale(env.unwrapped.obs_spec)
    np.testing.assert_allclose(agent.logits(obs["observation"] * scale), want, atol=1e-4)
    assert obs["action_mask"][agent.act(obs["observation"], obs["action_mask"], {})] == 1
    assert not marker.exists()


def test_rllib_pickles_without_safe_weights_are_refused(tmp_path: Path) -> None:
    import pickle

    from cardsuite.agents.learned.rllib import MODULE_DIR, SAFE_MODULE_FILE
    from cardsuite.agents.registry import make_agent

    marker = tmp_path / "pwned"
    folder, _ = _rllib_checkpoint(tmp_path / "iter_000001")
    (folder / SAFE_MODULE_FILE).unlink()
    module_dir = folder / MODULE_DIR / "main"
    module_dir.mkdir(parents=True)
    for name in ("class_and_ctor_args.pkl", "state.pkl"):
        (module_dir / name).write_bytes(pickle.dumps(_WritesMarker(marker)))
    for path in (folder, module_dir):
        with pytest.raises(CheckpointError, match=r"cloudpickles .* can run arbitrary code"):
            make_agent(f"rllib:{path}", "scum", seed=0)
    doc = json.loads((folder / "cardsuite_run.json").read_text())
    doc["config"]["hidden"] = "big"
    (folder / "cardsuite_run.json").write_text(json.dumps(doc))
    with pytest.raises(CheckpointError, match="field 'config' is invalid"):
        make_agent(f"rllib:{folder}", "scum", seed=0)
    assert not marker.exists()


# ------------------------------------------------- fuzzed metadata: named errors only
def _json_values() -> st.SearchStrategy[object]:
    scalars = (
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
    )
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
        ),
        max_leaves=8,
    )


@pytest.fixture(scope="module")
def saved_agent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tensors, meta = _tiny()
    return save_agent(tmp_path_factory.mktemp("fuzz") / "agent", tensors, meta)


def test_any_json_in_any_meta_field_gives_a_named_error_or_a_valid_agent(
    saved_agent: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    import shutil

    from hypothesis import HealthCheck, given, settings

    original = json.loads((saved_agent / META_FILE).read_text())
    keys = [*original, *(f"network.{k}" for k in original["network"]), "extra"]

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(key=st.sampled_from(keys), value=_json_values())
    def check(key: str, value: object) -> None:
        work = tmp_path_factory.mktemp("case") / "agent"
        shutil.copytree(saved_agent, work)
        doc = json.loads(json.dumps(original))
        if key.startswith("network."):
            doc["network"][key.split(".", 1)[1]] = value
        else:
            doc[key] = value
        (work / META_FILE).write_text(json.dumps(doc))
        try:
            arrays, meta = load_agent_numpy(work)
        except CheckpointError:
            return
        assert isinstance(meta.obs_size, int) and meta.network.activation in ("tanh", "relu")
        assert actor_logits(arrays, meta.network, np.zeros(meta.obs_size)).shape == (
            meta.num_actions,
        )

    check()


def test_export_of_a_trusted_old_run_reads_its_game_from_state_json(
    trained_run: Path, tmp_path: Path
) -> None:
    """A cardsuite 0.1 run (model.zip + state.json format 1) converts without --game."""
    from cardsuite.agents.learned.policy import PPOAgent
    from cardsuite.cli import main
    from cardsuite.train.sb3.checkpoint import read_config
    from tests.train.test_policy import torch_model

    ckpt = tmp_path / "old" / "checkpoint"
    ckpt.mkdir(parents=True)
    torch_model(trained_run).save(ckpt / "model.zip")
    config = read_config(trained_run).to_dict()
    (ckpt / "state.json").write_text(json.dumps({"format": 1, "config": config}))
    out = tmp_path / "agent"
    flag = "--trust-pickle-this-file-can-run-code"
    assert main(["export", str(tmp_path / "old"), "--out", str(out), flag]) == 0
    agent = PPOAgent.load(out, "scum")
    assert agent.meta.options == {"num_players": 4, "reward": "centered"}
    assert agent.meta.step == 256
    assert main(["export", str(tmp_path / "old"), "--out", str(out), flag]) == 2  # never overwrites
