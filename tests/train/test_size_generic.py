"""Size-generic learned agents (``agents/learned/size_generic.py``) and mixed-size Deep Monte-Carlo.

One network on the game's generic layout (``agents/learned/layout.py``) takes a
seat at every table size: its metadata says ``network.layout: generic``.
"""

from __future__ import annotations

import dataclasses
import json
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cardsuite.agents.base import table_info
from cardsuite.agents.learned.layout import generic_spec, layout_of, pad_mask, pad_observation
from cardsuite.agents.learned.netspec import NetworkSpec, actor_logits, obs_scale
from cardsuite.agents.learned.policy import PPOAgent
from cardsuite.agents.learned.pretrained import ROOT
from cardsuite.agents.learned.safe_io import AgentMeta, load_agent_numpy, read_meta, save_agent
from cardsuite.agents.learned.size_generic import (
    SizeGenericAgent,
    TrainedAgent,
    generic_scale,
)
from cardsuite.agents.registry import make_agent
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.games import get_game
from cardsuite.train.dmc.config import DMCConfig
from cardsuite.train.dmc.trainer import DMCTrainer, train
from cardsuite.train.tools.sizes import evaluate_sizes

SIZES = [("scum_party", n) for n in (5, 8, 20, 50)] + [("scandal", n) for n in range(2, 7)]


def _generic_agent(path: Path, game: str, *, seed: int = 0, **meta_changes: Any) -> Path:
    """A random 2-layer size-generic network for ``game`` saved at ``path``."""
    rng = np.random.default_rng(seed)
    size, actions = generic_spec(game).size, layout_of(game).num_actions
    arrays = {"actor.0.weight": rng.normal(size=(16, size)).astype(np.float32),
              "actor.0.bias": np.zeros(16, np.float32),
              "actor.2.weight": rng.normal(size=(actions, 16)).astype(np.float32),
              "actor.2.bias": rng.normal(size=actions).astype(np.float32)}  # fmt: skip
    meta = {"game": game, "options": {}, "obs_size": size, "num_actions": actions,
            "network": NetworkSpec("relu", ("actor.0", "actor.2"), layout="generic"),
            **meta_changes}  # fmt: skip
    return save_agent(path, arrays, AgentMeta(**meta))


@pytest.mark.parametrize(("game", "players"), SIZES)
def test_one_network_plays_legal_moves_at_every_table_size(
    tmp_path: Path, game: str, players: int
) -> None:
    """Every seat played by the generic agent: each move is legal and is the masked argmax
    of the network on the padded, generically scaled observation (a differential check)."""
    path = _generic_agent(tmp_path / "agent", game)
    agent = make_agent(f"ppo:{path}", game, seed=0)
    assert isinstance(agent, SizeGenericAgent)
    arrays, meta = load_agent_numpy(path)
    env = get_game(game).make(num_players=players)
    env.reset(seed=11)
    spec = env.unwrapped.obs_spec
    agent.reset(table_info(env, game, env.agent_selection), seed=0)
    for _ in range(60):
        if not env.agents:
            break
        o = env.observe(env.agent_selection)
        obs, mask = o["observation"], o["action_mask"].astype(bool)
        action = agent.act(obs, mask, {})
        assert mask[action]
        x = pad_observation(obs, spec, game) * generic_scale(game)
        logits = np.where(pad_mask(mask, game), actor_logits(arrays, meta.network, x), -np.inf)
        assert action == int(np.argmax(logits))
        env.step(action)
    env.close()


def test_a_table_agent_still_refuses_another_size_and_a_generic_one_accepts_it(
    tmp_path: Path,
) -> None:
    env = get_game("scum_party").make(num_players=20)
    env.reset(seed=0)
    table = table_info(env, "scum_party", env.agent_selection)
    arrays, meta = load_agent_numpy(ROOT / "party8")  # a plain table-sized copy of party8
    plain = save_agent(tmp_path / "party8", arrays, dataclasses.replace(
        meta, network=dataclasses.replace(meta.network, layout="table")))  # fmt: skip
    party8 = make_agent(f"ppo:{plain}", "scum_party", seed=0)
    assert type(party8) is PPOAgent
    with pytest.raises(CheckpointError, match=r"expects observations \(184,\)"):
        party8.reset(table)
    generic = make_agent(f"ppo:{_generic_agent(tmp_path / 'a', 'scum_party')}", "scum_party")
    generic.reset(table)  # no error: any table of its game
    scum = get_game("scum").make(num_players=4)
    scum.reset(seed=0)
    with pytest.raises(CheckpointError, match="trained on 'scum_party', not 'scum'"):
        generic.reset(table_info(scum, "scum", scum.agent_selection))


@pytest.mark.parametrize(
    ("game", "changes", "field"),
    [
        ("scum_party", {"obs_size": 184}, "obs_size"),
        ("scandal", {"num_actions": 300}, "num_actions"),
        ("scum", {}, "game"),
    ],
)
def test_generic_metadata_that_does_not_fit_its_layout_is_named(
    tmp_path: Path, game: str, changes: dict[str, Any], field: str
) -> None:
    if game == "scum":  # no generic layout: a plausible Scum network marked generic
        arrays = {"actor.0.weight": np.zeros((4, 10), np.float32),
                  "actor.0.bias": np.zeros(4, np.float32)}  # fmt: skip
        path = save_agent(tmp_path / "a", arrays, AgentMeta(
            game="scum", options={}, obs_size=10, num_actions=4,
            network=NetworkSpec("relu", ("actor.0",), layout="generic")))  # fmt: skip
    else:
        rng = np.random.default_rng(0)
        size = changes.get("obs_size", generic_spec(game).size)
        actions = changes.get("num_actions", layout_of(game).num_actions)
        arrays = {"actor.0.weight": rng.normal(size=(actions, size)).astype(np.float32),
                  "actor.0.bias": np.zeros(actions, np.float32)}  # fmt: skip
        path = save_agent(tmp_path / "a", arrays, AgentMeta(
            game=game, options={}, obs_size=size, num_actions=actions,
            network=NetworkSpec("relu", ("actor.0",), layout="generic")))  # fmt: skip
    with pytest.raises(CheckpointError, match=f"field '{field}'"):
        TrainedAgent.load(path, game)


def test_an_unknown_layout_is_refused_by_name_and_loading_runs_no_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_pickle(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("loading an agent must not unpickle")

    monkeypatch.setattr(pickle, "load", no_pickle)
    monkeypatch.setattr(pickle, "loads", no_pickle)
    path = _generic_agent(tmp_path / "ok", "scandal")
    assert isinstance(TrainedAgent.load(path, "scandal"), SizeGenericAgent)
    doc = json.loads((path / "agent.json").read_text())
    marker = tmp_path / "pwned"
    doc["network"]["layout"] = f"__import__('os').system('touch {marker}')"
    (path / "agent.json").write_text(json.dumps(doc))
    with pytest.raises(CheckpointError, match=r"field 'network\.layout' must be one of"):
        TrainedAgent.load(path, "scandal")
    assert not marker.exists()


@pytest.mark.slow
def test_the_batch_evaluator_plays_a_generic_agent_at_two_sizes(tmp_path: Path) -> None:
    path = _generic_agent(tmp_path / "a", "scandal")
    rows = evaluate_sizes(f"ppo:{path}", "scandal", [2, 4], against="random", deals=2, seed=3)
    assert [(r["players"], r["against"], r["deals"]) for r in rows] == [
        (2, "random", 2), (4, "random", 2)]  # fmt: skip
    assert all(0.0 <= r["beats"] <= 1.0 for r in rows)


# ------------------------------------------------------------- the trainer
def plays_legal_moves(agent_dir: Path, game: str, players: int, *, seed: int,
                      moves: int = 40) -> Any:  # fmt: skip
    """The agent saved at ``agent_dir`` takes ``moves`` seats' turns at a ``players`` table of
    ``game`` (every seat), each move legal; the agent."""
    agent = make_agent(f"ppo:{agent_dir}", game, seed=0)
    env = get_game(game).make(num_players=players)
    env.reset(seed=seed)
    agent.reset(table_info(env, game, env.agent_selection))
    for _ in range(moves):
        o = env.observe(env.agent_selection)
        action = agent.act(o["observation"], o["action_mask"].astype(bool), {})
        assert o["action_mask"][action]
        env.step(action)
    return agent


def _tiny(run: Path, **changes: Any) -> DMCConfig:
    base: dict[str, Any] = {
        "game": "scandal", "sizes": "2,3", "total_steps": 500, "num_games": 4,
        "rollout_steps": 16, "hidden": 16, "layers": 1, "batch_size": 32, "buffer_size": 1024,
        "replay_ratio": 2.0, "bc_steps": 130, "bc_games": 4, "bc_epochs": 1, "eval_every": 0,
        "eval_deals": 2, "eval_against": "heuristic", "checkpoint_every": 0,
        "relative_reward": True, "tensorboard": False, "quiet": True, "run_dir": str(run),
    }  # fmt: skip
    return DMCConfig.from_dict({**base, **changes})


@pytest.mark.slow
def test_mixed_size_dmc_trains_one_generic_network_end_to_end(tmp_path: Path) -> None:
    result = train(_tiny(tmp_path / "run"))
    assert result["step"] >= 500
    assert [r["against"] for r in result["eval"]] == ["heuristic@2p", "heuristic@3p"]
    meta = read_meta(tmp_path / "run" / "agent")
    assert meta.network.layout == "generic" and "num_players" not in meta.options
    assert (meta.obs_size, meta.num_actions) == (generic_spec("scandal").size, 338)
    plays_legal_moves(tmp_path / "run" / "agent", "scandal", 6, seed=2)  # never trained at 6


@pytest.mark.slow
def test_mixed_size_replay_holds_padded_rows_from_every_size(tmp_path: Path) -> None:
    tr = DMCTrainer(_tiny(tmp_path / "run", bc_steps=0, rollout_steps=300))
    assert [t.players for t in tr.tables] == [2, 3]
    tr.rollout()
    assert tr.replay.size > 0
    assert tr.replay.obs.shape[1] == generic_spec("scandal").size
    present = generic_spec("scandal").slices["seat_present"]
    seats = tr.replay.obs[: tr.replay.size, present].sum(dim=1)
    scale = obs_scale(generic_spec("scandal"))[present][0]
    assert set(np.round(seats.numpy() / scale).astype(int).tolist()) == {2, 3}


@pytest.mark.slow
def test_a_mixed_size_run_resumes_exactly(tmp_path: Path) -> None:
    import torch

    whole = DMCTrainer(_tiny(tmp_path / "whole", bc_steps=0, total_steps=900))
    whole.train()
    first = DMCTrainer(_tiny(tmp_path / "split", bc_steps=0, total_steps=400))
    first.train()
    resumed = DMCTrainer(_tiny(tmp_path / "split", bc_steps=0, total_steps=900,
                               resume=str(tmp_path / "split")))  # fmt: skip
    resumed.train()
    assert resumed.step == whole.step
    for name, value in whole.net.state_dict().items():
        assert torch.equal(value, resumed.net.state_dict()[name]), name


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"game": "scum", "sizes": "4,6"}, "sizes"),
        ({"sizes": "2,x"}, "sizes"),
        ({"sizes": "2,2"}, "sizes"),
        ({"game": "scum_party", "sizes": "3,8"}, "sizes"),
        ({"snapshot_every": 1000}, "snapshot_every"),
    ],
)
def test_bad_sizes_are_named(tmp_path: Path, changes: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError, match=field):
        _tiny(tmp_path / "run", **changes)


def test_the_generic_presets_load() -> None:
    root = Path(__file__).resolve().parents[2] / "configs" / "train"
    for name, game in (("dmc_party_generic", "scum_party"), ("dmc_scandal_generic", "scandal")):
        cfg = DMCConfig.from_yaml(root / f"{name}.yaml")
        assert cfg.game == game and len(cfg.size_list()) >= 3 and cfg.relative_reward
