"""One record per game holds the game's own parts; each layer above keeps its own per-game table.

The records of ``scum_env.games`` and ``scandal_env.games`` name the game's own
parts as ``"module[:attribute]"`` strings (`cardsuite.games.PARTS`); the agents
layer's parts (heuristics, views, searches, OpenSpiel) are
`cardsuite.agents.parts.PARTS`, the training layer's rewards and warm starts
`cardsuite.train.core.games.TRAINING` (issue 56). These tests check that every
registered game has a row in each table, resolve every part, and check that the
heuristic agent, the greedy agent, the text view, the rgb drawing, the batched
trainers and RLlib's batched env all build the part the tables name: so RLlib
trains against the same real batched heuristics as ``cardsuite ppo`` and ``dmc``.
"""

from __future__ import annotations

import importlib.util
import inspect
from dataclasses import fields

import numpy as np
import pytest

from cardsuite.agents.parts import DESCRIPTIONS, agent_parts, part
from cardsuite.errors import ConfigError
from cardsuite.games import OPTIONAL_PARTS, PARTS, Game, game_of_env, games, get_game

GAMES = ("scum", "scum_party", "scandal")


def test_every_game_names_every_part() -> None:
    from cardsuite.agents import parts

    assert sorted(games()) == sorted(GAMES) == sorted(parts.PARTS)
    for name in GAMES:
        record = get_game(name)
        missing = [part for part in PARTS if not record.has(part)]
        assert set(missing) <= set(OPTIONAL_PARTS), f"{name} names no {missing}"
        assert record.title and agent_parts(name).heuristic_params
    # only Scum has a one-seat batched vector env for MaskablePPO (`vec_env: batched`)
    assert [g for g in GAMES if get_game(g).has("sb3_vec_env")] == ["scum"]


def test_the_records_vec_env_is_what_maskable_ppo_builds_on() -> None:
    pytest.importorskip("stable_baselines3")
    from cardsuite.batched.vector_env import BatchedVectorEnv
    from cardsuite.train.sb3.batched import BatchedSelfPlayEnv
    from cardsuite.train.sb3.single_seat import fixed_seats

    front = get_game("scum").part("sb3_vec_env")
    assert issubclass(front, BatchedVectorEnv)
    env = BatchedSelfPlayEnv(2, learner=0, table=fixed_seats({"random": 1.0}), num_players=4)
    assert type(env.engine.inner) is type(front(2, learner=0, num_players=4).engine)


@pytest.mark.parametrize("name", GAMES)
def test_each_part_is_what_its_consumers_call(name: str) -> None:
    record = get_game(name)
    engine = record.part("engine")
    for function in ("legal_mask", "apply", "why_illegal", "clone"):
        assert callable(getattr(engine, function)), f"{name} engine lacks {function}"
    batched = record.part("batched")
    assert inspect.isclass(batched) and callable(batched.observe_as)
    assert callable(part(name, "batched_heuristic").from_engine)
    rgb = record.part("rgb")
    assert callable(rgb.render_rgb) and callable(rgb.table_model)
    for what in ("heuristic", "view", "greedy"):
        assert callable(part(name, what)), f"{name} {what}"
    search = part(name, "search")
    assert callable(search.build) and search.cutoff >= 0 and search.max_hand >= 0
    if importlib.util.find_spec("pyspiel") is not None:
        assert part(name, "openspiel").GAME_TYPE.short_name == f"cardsuite_{name}"


def test_asking_for_an_unknown_or_missing_part_is_a_named_error() -> None:
    bare = Game("bare", "scum_env.scum_v0", "scum_env.config:ScumConfig")
    assert not bare.has("batched")
    with pytest.raises(ConfigError, match=r"game 'bare' has no batched"):
        bare.batched_class()
    with pytest.raises(ConfigError, match=r"unknown game part 'heuristic'"):
        get_game("scum").part("heuristic")  # an agents-layer part, not the game's own
    with pytest.raises(ConfigError, match=r"no heuristic for game 'bare'; games: scandal"):
        agent_parts("bare", "heuristic")
    with pytest.raises(ConfigError, match=r"unknown agent part 'heuristics'"):
        part("scum", "heuristics")


def test_every_record_field_is_a_part_or_a_known_setting() -> None:
    # A new part is added to PARTS (with its contract), never as a loose field.
    settings = {"name", "module", "config", "players_key", "default_players", "title"}
    assert {f.name for f in fields(Game)} == settings | set(PARTS)
    from cardsuite.agents.parts import AgentParts

    assert {f.name for f in fields(AgentParts)} == set(DESCRIPTIONS) | {"heuristic_params"}


def test_no_game_package_names_a_layer_above_it() -> None:
    for name in GAMES:
        record = get_game(name)
        for field in PARTS:
            spec = getattr(record, field)
            assert spec is None or spec.split(".")[0] in ("scum_env", "scandal_env"), spec


@pytest.mark.parametrize("name", GAMES)
def test_the_env_knows_its_record(name: str) -> None:
    env = get_game(name).make()
    assert game_of_env(env) is get_game(name)
    env.reset(seed=0)
    picture = get_game(name).make(render_mode="rgb_array")
    picture.reset(seed=0)
    assert picture.render().shape[2] == 3  # drawn by the record's rgb part


def test_heuristic_knobs_are_the_heuristics_own() -> None:
    from cardsuite.agents.baselines.scum import ScumParams

    climb = tuple(f.name for f in fields(ScumParams))
    assert agent_parts("scum").heuristic_params == climb
    assert agent_parts("scum_party").heuristic_params == climb
    from cardsuite.agents.baselines.scandal import ScandalPolicy

    knobs = [p for p in inspect.signature(ScandalPolicy).parameters if p != "config"]
    assert list(agent_parts("scandal").heuristic_params) == knobs


@pytest.mark.parametrize("name", GAMES)
def test_agents_build_the_parts_their_table_names(name: str) -> None:
    from cardsuite.agents.base import table_info
    from cardsuite.agents.baselines.greedy import GreedyAgent
    from cardsuite.agents.baselines.heuristic import HeuristicAgent, make_policy
    from cardsuite.agents.play.views import legend, table_view
    from cardsuite.agents.search.reference import search_game

    record = get_game(name)
    env = record.make()
    env.reset(seed=3)
    agent = env.agent_selection
    table = table_info(env, name, agent)
    policy = make_policy(table)
    assert type(policy) is type(part(name, "heuristic")(table.config, table.obs_spec))
    greedy = GreedyAgent(name)
    greedy.reset(table)
    built = part(name, "greedy")(table.config, table.obs_spec)
    assert type(greedy._policy) is type(built)
    obs = env.observe(agent)
    assert table_view(table, obs["observation"]) == part(name, "view")(
        table, obs["observation"], None
    )
    assert legend(env) == getattr(record.part("rgb"), "LEGEND", "")
    assert type(search_game(name, table.config, {})) is type(
        part(name, "search").build(table.config, {})
    )
    h = HeuristicAgent(name)
    h.reset(table)
    action = h.act(obs["observation"], obs["action_mask"], {})
    assert obs["action_mask"][action]


def test_a_game_without_a_part_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    from cardsuite.agents.baselines.greedy import GreedyAgent
    from cardsuite.agents.baselines.heuristic import HeuristicAgent
    from cardsuite.agents.search.reference import ISMCTSAgent

    table = dict(games())
    table["bare"] = Game("bare", "scum_env.scum_v0", "scum_env.config:ScumConfig")
    monkeypatch.setattr("cardsuite.games.games", lambda: table)
    for cls, what in ((HeuristicAgent, "heuristic"), (GreedyAgent, "greedy agent"),
                      (ISMCTSAgent, "ISMCTS")):  # fmt: skip
        with pytest.raises(ConfigError, match=rf"no {what} for game 'bare'; games: scandal"):
            cls("bare")


@pytest.mark.parametrize("name", GAMES)
def test_trainers_and_rllib_play_against_the_tables_batched_heuristic(name: str) -> None:
    pytest.importorskip("torch")
    from cardsuite.train.core.games import TRAINING, train_game

    assert sorted(TRAINING) == sorted(GAMES)
    record = get_game(name)
    twin = part(name, "batched_heuristic")
    tg = train_game(name)
    assert tg.record is record and tg.defaults == dict(TRAINING[name].options)
    assert TRAINING[name].reward and TRAINING[name].warm_start_steps > 0
    eng = tg.make_engine(4, tg.config(record.default_players, {}))
    assert type(eng) is record.batched_class()
    assert type(tg.heuristic(eng)) is twin
    assert type(tg.baselines(["heuristic"], eng, 0)["heuristic"]) is twin
    eng.reset(seed=0)
    seat = int(np.asarray(eng.to_act())[0])
    assert np.asarray(eng.observe_as(seat)).shape == (4, eng.obs_dim)

    from cardsuite.train.rllib.batched_env import BatchedRLlibEnv

    env = BatchedRLlibEnv({"game": name, "num_envs": 4, "baselines": ["heuristic", "random"]})
    members = {m.name: m.policy for m in env.league.members}
    assert type(members["heuristic"]) is twin  # the real heuristic, as ppo and dmc use
    assert type(members["heuristic"]) is type(tg.heuristic(env.engine))
