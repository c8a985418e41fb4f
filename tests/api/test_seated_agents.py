"""Agents read the table they sit at (issue 60): ``load_agent(spec, env=env)``, the named
errors of an agent at another table or seat, ``cardsuite.play`` and ``tournament(env, ...)``.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest

import cardsuite
from cardsuite.agents.arena.tournament import derive_seed
from cardsuite.agents.base import SeatedAgent, act_info, table_info
from cardsuite.errors import CheckpointError, ConfigError, TableMismatchError


def _first_decision(game: str, **options: Any) -> tuple[Any, dict[str, Any], str]:
    env = cardsuite.make(game, **options)
    env.reset(seed=0)
    return env, env.observe(env.agent_selection), env.agent_selection


@pytest.mark.parametrize("spec", ["heuristic", "ismcts:budget=4", "pretrained:scum4", "random"])
def test_an_agent_loaded_for_four_players_names_the_six_player_table(spec: str) -> None:
    """Before: an IndexError (heuristic, ismcts) or a numpy broadcast ValueError (scum4)."""
    _env, obs, seat = _first_decision("scum", num_players=6)
    agent = cardsuite.load_agent(spec, "scum", seat=seat)
    with pytest.raises(TableMismatchError) as err:
        agent.act(obs["observation"], obs["action_mask"], {"agent": seat})
    assert str(err.value) == (
        f"{agent.name} was seated at player_0 of scum, 4 players, observation size 118, 71 actions; "
        "asked to act on an observation of shape (140,) and a mask of shape (71,), another "
        "table's: load the agent for the table it sits at, cardsuite.load_agent(spec, env=env, "
        "seat=...), or play whole episodes with cardsuite.play(env, agents)"
    )
    assert isinstance(err.value, ConfigError)


def test_load_agent_with_env_takes_the_game_and_every_rule_option_from_it() -> None:
    env, obs, seat = _first_decision("scum", num_players=6, carousel=True, wild_queen=True)
    agent = cardsuite.load_agent("heuristic", env=env, seat=seat, seed=0)
    assert isinstance(agent, SeatedAgent)
    assert agent.table.game == "scum"
    assert agent.table.config == env.unwrapped.config
    assert agent.table.agent == seat
    action = agent.act(obs["observation"], obs["action_mask"], act_info(env, seat))
    assert obs["action_mask"][action] == 1
    same = cardsuite.load_agent("heuristic", "scum", env=env, seat=seat, num_players=6)
    assert same.table.config == agent.table.config  # agreeing with the env is allowed


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"game": "scandal"}, "game='scandal' contradicts the env, a scum table"),
        ({"num_players": 4}, "num_players=4 contradicts the env, whose num_players is 6"),
        ({"carousel": False}, "carousel=False contradicts the env, whose carousel is True"),
        (
            {"preset": "six_players"},
            "carousel=False \\(preset 'six_players'\\) contradicts the env",
        ),
        ({"carousle": True}, "unknown config key 'carousle'"),
    ],
)
def test_an_env_and_a_contradicting_game_or_option_is_a_config_error(
    given: dict[str, Any], message: str
) -> None:
    env = cardsuite.make("scum", num_players=6, carousel=True)
    with pytest.raises(ConfigError, match=message):
        cardsuite.load_agent("heuristic", env=env, **given)


def test_load_agent_needs_a_table_and_a_cardsuite_env() -> None:
    with pytest.raises(ConfigError, match="load_agent needs its table: env=ENV, or a game"):
        cardsuite.load_agent("heuristic")
    with pytest.raises(ConfigError, match=r"env: expected a cardsuite env .*, got object"):
        cardsuite.load_agent("heuristic", env=object())


def test_a_seat_is_a_name_or_an_index() -> None:
    env = cardsuite.make("scandal", num_players=3)
    assert cardsuite.load_agent("greedy", env=env, seat=2).table.agent == "player_2"
    assert cardsuite.load_agent("greedy", env=env, seat="player_2").table.agent == "player_2"
    for bad in (3, True, "player_3"):
        with pytest.raises(ConfigError, match=f"seat {bad!r} is not at this table"):
            cardsuite.load_agent("greedy", env=env, seat=bad)


def test_an_agent_asked_to_act_for_another_seat_names_both() -> None:
    env, obs, seat = _first_decision("scum")
    other = "player_1" if seat != "player_1" else "player_2"
    agent = cardsuite.load_agent("ismcts:budget=4", env=env, seat=seat)
    with pytest.raises(TableMismatchError, match=f"seated at {seat} of scum, 4 players.*"):
        agent.act(obs["observation"], obs["action_mask"], {"agent": other})
    with pytest.raises(TableMismatchError, match=f"seat={other!r}\\), or play whole episodes"):
        agent.act(obs["observation"], obs["action_mask"], {"agent": other})
    assert obs["action_mask"][agent.act(obs["observation"], obs["action_mask"], {})] == 1


def test_the_observation_dict_instead_of_its_array_is_named() -> None:
    env, obs, seat = _first_decision("scum")
    agent = cardsuite.load_agent("heuristic", env=env, seat=seat)
    with pytest.raises(TableMismatchError, match="the dict: pass obs\\['observation'\\]"):
        agent.act(obs, obs["action_mask"], {"agent": seat})


def test_a_table_sized_agent_refuses_another_table_by_name() -> None:
    env = cardsuite.make("scum", num_players=6)
    with pytest.raises(TableMismatchError) as err:
        cardsuite.load_agent("pretrained:scum4", env=env)
    assert isinstance(err.value, CheckpointError)  # what docs/agents.md promised before
    text = str(err.value)
    assert "expects observations (118,) and 71 actions" in text
    assert "player count: scum, 6 players, observation size 140, 71 actions)" in text
    assert "cardsuite agents --game scum" in text
    with pytest.raises(TableMismatchError, match="trained on 'scandal', not 'scum'"):
        cardsuite.load_agent("pretrained:scandal2", env=env)


def test_a_seated_agent_is_the_agent_it_wraps_for_everything_else() -> None:
    env, obs, seat = _first_decision("scum")
    agent = cardsuite.load_agent("pretrained:scum4", env=env, seat=seat)
    assert agent.name == "pretrained:scum4"
    assert agent.meta.num_actions == 71  # the wrapped PPOAgent's attribute
    action = agent.act(obs["observation"], obs["action_mask"], {"agent": seat})
    for twin in (copy.deepcopy(agent), pickle.loads(pickle.dumps(agent))):
        assert twin.act(obs["observation"], obs["action_mask"], {"agent": seat}) == action
        assert twin.table.agent == seat
    with pytest.raises(AttributeError, match="no_such_thing"):
        _ = agent.no_such_thing


def _tutorial_loop(env: Any, players: dict[str, Any], seed: int) -> dict[str, float]:
    """The hand-written loop ``cardsuite.play`` replaces, as the tutorial had it."""
    env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for name in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        returns[name] += reward
        if terminated or truncated:
            env.step(None)
            continue
        action = players[name].act(obs["observation"], obs["action_mask"], {"agent": name})
        env.step(action)
    return returns


@pytest.mark.parametrize(("game", "players"), [("scum", 4), ("scum_party", 6), ("scandal", 3)])
def test_play_returns_what_the_hand_written_loop_returns(game: str, players: int) -> None:
    env = cardsuite.make(game, num_players=players)
    seats = env.possible_agents
    specs = ["random" if i % 2 else "heuristic" for i in range(players)]
    returns = cardsuite.play(env, specs, seed=7)
    loaded = {
        s: cardsuite.load_agent(spec, env=env, seat=s, seed=derive_seed(7, 1, i))
        for i, (s, spec) in enumerate(zip(seats, specs, strict=True))
    }
    assert returns == _tutorial_loop(env, loaded, seed=7)
    assert list(returns) == seats
    assert cardsuite.play(env, dict(zip(seats, specs, strict=True)), seed=7) == returns


def test_play_sums_the_scum_points_of_a_series() -> None:
    env = cardsuite.make("scum", num_players=5)
    returns = cardsuite.play(env, ["heuristic"] * 5, seed=0)
    assert sorted(returns.values()) == [1.0, 2.0, 3.0, 4.0, 5.0]  # J8: n + 1 - k


class Recorder:
    """Plays the first legal action and records the seats it is reset at."""

    name = "recorder"

    def __init__(self) -> None:
        self.seats: list[str] = []

    def reset(self, table: Any, seed: int | None = None) -> None:
        self.seats.append(table.agent)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Any) -> int:
        assert info["agent"] == self.seats[-1]
        return int(np.flatnonzero(action_mask)[0])


def test_play_gives_a_repeated_agent_object_a_copy_at_each_further_seat() -> None:
    env = cardsuite.make("scum", num_players=4)
    agent = Recorder()
    returns = cardsuite.play(env, [agent, "heuristic", agent, agent], seed=1)
    assert agent.seats == ["player_0"]
    assert sorted(returns.values()) == [1.0, 2.0, 3.0, 4.0]


def test_play_reseats_a_loaded_agent_at_the_table_it_is_given() -> None:
    six = cardsuite.make("scum", num_players=6)
    heuristic = cardsuite.load_agent("heuristic", "scum")  # loaded for 4 players
    cardsuite.play(six, [heuristic] + ["random"] * 5, seed=0)
    assert heuristic.table == table_info(six, "scum", "player_0")
    scum4 = cardsuite.load_agent("pretrained:scum4", "scum")
    with pytest.raises(TableMismatchError, match="expects observations \\(118,\\)"):
        cardsuite.play(six, [scum4] + ["random"] * 5, seed=0)


@pytest.mark.parametrize(
    ("agents", "message"),
    [
        (["random"] * 3, "agents: 3 given for 4 seats \\(player_0, .*, player_3\\); give one per"),
        ("random", "agents: expected a sequence in seat order .* \\['random'\\] \\* 4"),
        (7, "agents: expected a sequence in seat order or a mapping seat -> agent, got int$"),
        ({"player_0": "random", "player_9": "random"}, "agents: unknown seat 'player_9'; seats"),
        ({"player_0": "random"}, "agents: no agent for player_1, player_2, player_3; seats"),
        (["random", "random", "random", 42], "agents\\['player_3'\\]: 42 is neither an agent"),
        (["random", "random", "random", "nobody"], "unknown agent 'nobody'"),
    ],
)
def test_play_names_a_wrong_set_of_agents(agents: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        cardsuite.play(cardsuite.make("scum"), agents)


def test_a_tournament_at_an_env_plays_its_game_and_rules() -> None:
    env = cardsuite.make("scum", num_players=5, carousel=True)
    at_env = cardsuite.tournament(env, ["heuristic", "random"], games=2, seed=3).to_dict()
    by_name = cardsuite.tournament(
        "scum", ["heuristic", "random"], games=2, seed=3, num_players=5, carousel=True
    ).to_dict()
    assert at_env.pop("options") == env.unwrapped.config.to_dict()
    assert by_name.pop("options") == {"num_players": 5, "carousel": True}
    assert at_env == by_name
    with pytest.raises(ConfigError, match="num_players=4 contradicts the env"):
        cardsuite.tournament(env, ["heuristic", "random"], games=1, num_players=4)
