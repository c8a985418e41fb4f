"""Table-sized agents that sit at every table of their game (``agents/learned/any_table.py``).

Issue 21, item 2: a Scum Party agent takes a seat at any table of a 5-50
player party and a Scandal agent plays 2-6 players. ``pretrained:party8``
and ``pretrained:scandal2_table`` are table-sized networks marked
``network.layout: projected``: at their own table they play exactly as the
plain `PPOAgent`, at any other they read the table's observation projected
onto their own layout (P2 tables of 5-15 seats, S2 2-6 players).
"""

from __future__ import annotations

import dataclasses
import filecmp
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardsuite.agents.base import table_info
from cardsuite.agents.learned.any_table import FAR_BELOW, AnyTableAgent, ProjectedSnapshot
from cardsuite.agents.learned.netspec import obs_scale, pick
from cardsuite.agents.learned.policy import PPOAgent
from cardsuite.agents.learned.pretrained import ROOT, PretrainedAgent, ship
from cardsuite.agents.learned.safe_io import load_agent_numpy, save_agent
from cardsuite.agents.learned.size_generic import TrainedAgent
from cardsuite.agents.registry import make_agent
from cardsuite.errors import CheckpointError
from cardsuite.games import get_game


def _table_copy(name: str, path: Path) -> Path:
    """The shipped agent ``name`` saved again as a plain table-sized agent (``layout: table``)."""
    arrays, meta = load_agent_numpy(ROOT / name)
    network = dataclasses.replace(meta.network, layout="table")
    return save_agent(path, arrays, dataclasses.replace(meta, network=network))


def _play(game: str, players: int, agents: dict[str, Any], seed: int, limit: int = 20000) -> int:
    """One game with ``agents`` by seat; every action is checked legal. Returns the moves made."""
    env = get_game(game).make(num_players=players)
    env.reset(seed=seed)
    for name, agent in agents.items():
        agent.reset(table_info(env, game, name), seed)
    moves = 0
    for name in env.agent_iter(max_iter=limit):
        obs, _r, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = agents[name].act(obs["observation"], obs["action_mask"], info)
        assert obs["action_mask"][action], f"{name} chose illegal action {action}"
        env.step(action)
        moves += 1
    assert not env.agents, "the game did not finish"
    env.close()
    return moves


@pytest.mark.parametrize(("name", "game", "players"), [
    ("party8", "scum_party", 8), ("scandal2_table", "scandal", 2),
])  # fmt: skip
def test_at_its_own_table_it_is_the_table_agent_bit_for_bit(
    tmp_path: Path, name: str, game: str, players: int
) -> None:
    """Every decision of a whole game: the same action, and logits equal to the last bit."""
    projected = make_agent(f"pretrained:{name}", game, seed=0)
    plain = make_agent(f"ppo:{_table_copy(name, tmp_path / 'plain')}", game, seed=0)
    assert isinstance(projected, AnyTableAgent) and type(plain) is PPOAgent
    env = get_game(game).make(num_players=players)
    env.reset(seed=5)
    table = table_info(env, game, env.possible_agents[0])
    projected.reset(table)
    plain.reset(table)
    assert projected.snapshot.__class__ is plain.snapshot.__class__  # no projection here
    checked = 0
    for _seat in env.agent_iter(max_iter=3000):
        obs, _r, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        x, mask = obs["observation"], obs["action_mask"]
        assert projected.act(x, mask, info) == plain.act(x, mask, info)
        scale = obs_scale(table.obs_spec)
        assert np.array_equal(projected.logits(x * scale), plain.logits(x * scale))
        env.step(projected.act(x, mask, info))
        checked += 1
    assert checked > 50


@pytest.mark.parametrize(("name", "game", "players"), [
    ("party8", "scum_party", 5), ("party8", "scum_party", 13), ("party8", "scum_party", 20),
    ("party8", "scum_party", 50), ("scandal2_table", "scandal", 3),
    ("scandal2_table", "scandal", 4), ("scandal2_table", "scandal", 6),
])  # fmt: skip
def test_it_takes_a_seat_and_finishes_the_game_at_other_sizes(
    name: str, game: str, players: int
) -> None:
    """P2 / S2: every seat played by the shipped agent, every move legal, the game ends."""
    env = get_game(game).make(num_players=players)
    agents = {a: make_agent(f"pretrained:{name}", game, seed=0) for a in env.possible_agents}
    env.close()
    assert _play(game, players, agents, seed=3) > players


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(5, 24), seed=st.integers(0, 10_000))
def test_party8_plays_legal_moves_at_any_party_size(players: int, seed: int) -> None:
    """A property over party sizes (P2: 5-50 players; kept to 24 for time, 50 is above):
    the projected agent at every other seat of random players, always legal."""
    from cardsuite.agents.base import RandomAgent

    env = get_game("scum_party").make(num_players=players)
    agents: dict[str, Any] = {
        a: make_agent("pretrained:party8", "scum_party", seed=0) if i % 2 == 0
        else RandomAgent(seed=seed + i)
        for i, a in enumerate(env.possible_agents)
    }  # fmt: skip
    env.close()
    _play("scum_party", players, agents, seed=seed)


def test_off_its_size_it_reads_the_tables_pieces_cut_to_its_own_seats() -> None:
    """The projection at a 20-player party (tables of 10) onto party8's 8 seats: the hand is
    copied, per-seat pieces keep the first 8 relative seats, the observer's table flag keeps
    the first table entry; every entry as the table scales it (three decks' counts as shares
    of three decks)."""
    agent = make_agent("pretrained:party8", "scum_party", seed=0)
    env = get_game("scum_party").make(num_players=20)
    env.reset(seed=2)
    seat = env.agent_selection
    table = table_info(env, "scum_party", seat)
    agent.reset(table)
    view = agent.snapshot
    assert isinstance(view, ProjectedSnapshot)
    scaled = np.asarray(env.observe(seat)["observation"], np.float32) * obs_scale(table.obs_spec)
    mine = view.project(scaled)
    src, own = table.obs_spec, view.own
    assert own is not None
    raw = scaled  # each entry keeps the table's scaling: a share of its bound at this table
    part = lambda spec, x, name: x[spec.slices[name]]  # noqa: E731
    np.testing.assert_allclose(part(own, mine, "hand"), part(src, raw, "hand"), rtol=1e-6)
    np.testing.assert_allclose(part(own, mine, "cards_left"), part(src, raw, "cards_left")[:8],
                               rtol=1e-6)  # fmt: skip
    np.testing.assert_allclose(part(own, mine, "roles"), part(src, raw, "roles")[: 8 * 5],
                               rtol=1e-6)  # fmt: skip
    np.testing.assert_allclose(part(own, mine, "table"), part(src, raw, "table")[:1], rtol=1e-6)


@pytest.mark.parametrize(("name", "game", "players"), [
    ("party8", "scum_party", 5), ("party8", "scum_party", 13), ("party8", "scum_party", 50),
    ("scandal2_table", "scandal", 4), ("scandal2_table", "scandal", 6),
])  # fmt: skip
def test_the_projection_is_padding_then_cutting_back(name: str, game: str, players: int) -> None:
    """A differential check: the precomputed gather gives exactly ``unpad(pad(x))`` on a batch
    of arbitrary values (any entry, not only what play reaches)."""
    from cardsuite.agents.learned.layout import pad_observation, unpad_observation

    agent = make_agent(f"pretrained:{name}", game, seed=0)
    env = get_game(game).make(num_players=players)
    env.reset(seed=0)
    table = table_info(env, game, env.agent_selection)
    agent.reset(table)
    view = agent.snapshot
    assert isinstance(view, ProjectedSnapshot) and view.own is not None
    x = np.random.default_rng(players).normal(size=(7, table.obs_spec.size)).astype(np.float32)
    want = unpad_observation(pad_observation(x, table.obs_spec, game), view.own, game)
    assert np.array_equal(view.project(x), want)
    assert np.array_equal(view.project(x[0]), want[0])


def test_actions_past_its_own_are_chosen_only_when_none_of_its_own_is_legal() -> None:
    """A 13-15 seat table has 225 actions (four decks, P1), party8's network 113: the rest get
    `FAR_BELOW`; greedy play picks one of them only where nothing else is legal, and then
    the lowest legal id."""
    agent = make_agent("pretrained:party8", "scum_party", seed=0)
    env = get_game("scum_party").make(num_players=15)
    env.reset(seed=0)
    table = table_info(env, "scum_party", env.agent_selection)
    agent.reset(table)
    assert table.num_actions == 225
    raw = np.asarray(env.observe(env.agent_selection)["observation"], np.float32)
    logits = agent.logits(raw * obs_scale(table.obs_spec))
    assert logits.shape == (225,) and np.all(logits[113:] == FAR_BELOW)
    assert np.all(logits[:113] > FAR_BELOW)
    mask = np.zeros(225, bool)
    mask[[5, 150, 200]] = True
    assert int(pick(logits, mask, True, np.random.default_rng(0))) == 5
    mask[5] = False
    assert int(pick(logits, mask, True, np.random.default_rng(0))) == 150


def test_search_over_scandal2_sits_at_four_players_with_its_critic() -> None:
    """The guided search's value leaves read the critic through the same projection."""
    spec = "search:pretrained:scandal2_table:budget=8"
    env = get_game("scandal").make(num_players=4)
    env.reset(seed=1)
    agent = make_agent(spec, "scandal", seed=0)
    seat = env.agent_selection
    agent.reset(table_info(env, "scandal", seat), 0)
    obs, _r, _t, _tr, info = env.last()
    action = agent.act(obs["observation"], obs["action_mask"], info)
    assert obs["action_mask"][action]
    inner = make_agent("pretrained:scandal2_table", "scandal", seed=0)
    table = table_info(env, "scandal", seat)
    inner.reset(table)
    x = np.asarray(obs["observation"], np.float32)[None] * obs_scale(table.obs_spec)
    value = inner.value(x)
    assert value.shape == (1,) and np.isfinite(value).all()


def test_the_batched_evaluator_seats_it_off_its_size() -> None:
    """`evaluate_sizes` (the trainers' duplicate evaluator) plays party8 at 20 players."""
    from cardsuite.train.tools.sizes import evaluate_sizes

    rows = evaluate_sizes("pretrained:party8", "scum_party", [20], deals=2, seed=11)
    assert rows[0]["players"] == 20 and rows[0]["deals"] == 2 and 0.0 <= rows[0]["beats"] <= 1.0


@pytest.mark.parametrize(("name", "game", "players", "size"), [
    ("party8", "scum_party", 20, 184), ("scandal2_table", "scandal", 4, 864),
])  # fmt: skip
def test_a_plain_table_agent_still_refuses_another_size_and_says_how_to_seat_it(
    tmp_path: Path, name: str, game: str, players: int, size: int
) -> None:
    """Without the layout a table-sized agent keeps its CheckpointError naming both sizes,
    and names the command that copies it any-table."""
    plain = make_agent(f"ppo:{_table_copy(name, tmp_path / 'p')}", game, seed=0)
    env = get_game(game).make(num_players=players)
    env.reset(seed=0)
    with pytest.raises(CheckpointError, match=rf"expects observations \({size},\).*"
                       r"python -m cardsuite\.agents\.learned\.any_table"):  # fmt: skip
        plain.reset(table_info(env, game, env.agent_selection))


def test_the_shipped_names_are_listed_at_every_size() -> None:
    """`PretrainedAgent.available` offers party8 at a 20-player party and scandal2_table at 4."""
    assert "party8" in PretrainedAgent.available("scum_party", {"num_players": 20})
    assert "scandal2_table" in PretrainedAgent.available("scandal", {"num_players": 4})
    assert "scum4" not in PretrainedAgent.available("scum", {"num_players": 6})


def test_ship_any_table_keeps_the_weights_and_marks_the_layout(tmp_path: Path) -> None:
    source = _table_copy("party8", tmp_path / "run" / "agent")
    out = ship(source, "party8", any_table=True, root=tmp_path / "pkg")
    assert filecmp.cmp(out / "weights.safetensors", source / "weights.safetensors", shallow=False)
    assert json.loads((out / "agent.json").read_text())["network"]["layout"] == "projected"
    with pytest.raises(CheckpointError, match=r"network\.layout"):
        ship(ROOT / "party_generic", "x", any_table=True, root=tmp_path / "pkg")
    with pytest.raises(CheckpointError, match=r"network\.layout"):
        ship(ROOT / "scum4", "y", any_table=True, root=tmp_path / "pkg")


@pytest.mark.parametrize(("change", "field"), [
    ({"game": "scum", "options": {"num_players": 4}}, "network.layout"),
    ({"options": {"num_players": 20, "reward": "points"}}, "obs_size"),
    ({"options": {"num_players": "many"}}, "options"),
])  # fmt: skip
def test_bad_metadata_names_its_field(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    arrays, meta = load_agent_numpy(ROOT / "party8")
    bad = dataclasses.replace(meta, **change)
    path = save_agent(tmp_path / "bad", arrays, bad)
    with pytest.raises(CheckpointError, match=f"field '{field}'"):
        TrainedAgent.load(path)


def test_mark_any_table_copies_a_run_agent_and_refuses_what_it_cannot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m cardsuite.agents.learned.any_table SOURCE TARGET``: the copy sits at 20 players,
    keeps every tensor (the critic too); an existing target, a size-generic or a Scum agent
    exit 2 naming why, and nothing is overwritten."""
    from cardsuite.agents.learned.any_table import main

    source = _table_copy("scandal2_table", tmp_path / "run" / "agent")
    assert main([str(source), str(tmp_path / "out")]) == 0
    before, _ = load_agent_numpy(source)
    after, meta = load_agent_numpy(tmp_path / "out")
    assert meta.network.layout == "projected" and sorted(after) == sorted(before)
    assert all(np.array_equal(after[k], before[k]) for k in before)
    agent = make_agent(f"ppo:{tmp_path / 'out'}", "scandal", seed=0)
    assert agent.has_value
    _play("scandal", 4, {f"player_{i}": agent for i in range(4)}, seed=1)
    stamp = (tmp_path / "out" / "agent.json").stat().st_mtime_ns
    for args, why in [
        ([source, tmp_path / "out"], "already exists"),
        ([ROOT / "party_generic", tmp_path / "g"], "network.layout"),
        ([ROOT / "scum4", tmp_path / "s"], "network.layout"),
    ]:
        with pytest.raises(SystemExit) as stop:
            main([str(x) for x in args])
        assert stop.value.code == 2 and why in capsys.readouterr().err
    assert (tmp_path / "out" / "agent.json").stat().st_mtime_ns == stamp
    assert not (tmp_path / "g").exists() and not (tmp_path / "s").exists()
