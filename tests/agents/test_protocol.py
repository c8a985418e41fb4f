"""Every baseline agent plays full games of every game through ``env()``.

Each agent takes every seat, must never choose an illegal action (``env()``
would end the episode with the illegal-action penalty) and must repeat the
same actions for the same seeds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from cardsuite.agents.base import Agent, table_info
from cardsuite.agents.baselines.greedy import GreedyAgent
from cardsuite.agents.baselines.heuristic import HeuristicAgent
from cardsuite.agents.search.reference import ISMCTSAgent
from cardsuite.games import get_game
from scum_env.config import ScumConfig
from scum_env.rules import scum_rules

TABLES: list[tuple[str, dict[str, Any]]] = [
    ("scum", {"num_players": 4}),
    ("scum", {"num_players": 5, "carousel": True, "color_clash": True}),
    ("scum", {"num_players": 7, "wild_queen": True, "trade_rules": "spanish"}),
    ("scum", {"num_players": 4, "episode": "game", "target_score": 8}),
    ("scum_party", {"num_players": 8, "num_hands": 1}),
    ("scandal", {"num_players": 2}),
    ("scandal", {"num_players": 4}),
]

MAKERS: dict[str, Callable[[str, int], Agent]] = {
    "greedy": lambda game, seed: GreedyAgent(game, seed=seed),
    "heuristic": lambda game, seed: HeuristicAgent(game, seed=seed),
    "ismcts": lambda game, seed: ISMCTSAgent(game, seed=seed, budget=3, cutoff=8, max_hand=0),
}


def play_episode(
    game: str, options: dict[str, Any], agents: list[Agent], seed: int, reset: dict | None = None
) -> tuple[list[int], dict[str, float], dict[str, dict[str, Any]]]:
    """Play one episode of ``env()``; returns the actions, returns and final infos."""
    env = get_game(game).make(**options)
    env.reset(seed=seed, options=reset)
    base = env.unwrapped
    for i, name in enumerate(env.possible_agents):
        agents[i].reset(table_info(env, game, name), seed=seed * 31 + i)
    actions: list[int] = []
    returns: dict[str, float] = {}
    infos: dict[str, dict[str, Any]] = {}
    for name in env.agent_iter():
        obs, _reward, term, trunc, info = env.last()
        if term or trunc:
            returns[name] = float(env._cumulative_rewards[name])
            infos[name] = dict(info)
            env.step(None)
            continue
        seat = int(name.rsplit("_", 1)[1])
        ctx = {"agent": name, "determinize": lambda rng, a=name: base.determinize(a, rng)}
        action = agents[seat].act(obs["observation"], obs["action_mask"], ctx)
        assert obs["action_mask"][action] == 1, f"{name} chose illegal action {action}"
        actions.append(int(action))
        env.step(action)
    return actions, returns, infos


@pytest.mark.parametrize("kind", sorted(MAKERS))
@pytest.mark.parametrize(
    ("game", "options"),
    TABLES,
    ids=lambda t: str(t) if isinstance(t, str) else "-".join(f"{k}={v}" for k, v in t.items()),
)
def test_agent_plays_legal_deterministic_games(kind: str, game: str, options: dict) -> None:
    n = options["num_players"]
    runs = []
    for _ in range(2):
        agents = [MAKERS[kind](game, 7 + i) for i in range(n)]
        actions, returns, infos = play_episode(game, options, agents, seed=3)
        assert len(returns) == n
        assert not any(info.get("illegal_action") for info in infos.values())
        runs.append((actions, returns))
    assert runs[0] == runs[1]
    assert len(runs[0][0]) > n  # a real game was played


def test_scum_give_back_decisions_are_legal() -> None:
    """A series with the trades (J5): three give-back decisions at 5 players (2 + 1)."""
    give_base = scum_rules(ScumConfig(num_players=5)).give_base
    for kind in ("greedy", "heuristic", "ismcts"):
        agents = [MAKERS[kind]("scum", i) for i in range(5)]
        actions, returns, _ = play_episode(
            "scum", {"num_players": 5}, agents, seed=11, reset={"trade": True}
        )
        assert sorted(returns.values()) == [1.0, 2.0, 3.0, 4.0, 5.0]
        assert sum(a >= give_base for a in actions) == 3


def test_agents_name_and_errors() -> None:
    assert GreedyAgent("scum").name == "greedy"
    assert HeuristicAgent("scandal").name == "heuristic"
    assert ISMCTSAgent("scum_party").name == "ismcts-reference"
    with pytest.raises(Exception, match="no heuristic for game"):
        HeuristicAgent("chess")
    with pytest.raises(Exception, match="budget"):
        ISMCTSAgent("scum", budget=0)
    env = get_game("scum").make(num_players=4)
    env.reset(seed=0)
    with pytest.raises(Exception, match="seated at a 'scum' table"):
        HeuristicAgent("scandal").reset(table_info(env, "scum", "player_0"))


def test_seeded_reset_reproduces_ismcts_choice() -> None:
    env = get_game("scum").make(num_players=4)
    env.reset(seed=5)
    name = env.agent_selection
    obs = env.observe(name)
    base = env.unwrapped
    ctx = {"agent": name, "determinize": lambda rng: base.determinize(name, rng)}
    choices = []
    for _ in range(2):
        agent = ISMCTSAgent("scum", budget=20, max_hand=0)
        agent.reset(table_info(env, "scum", name), seed=123)
        choices.append(agent.act(obs["observation"], obs["action_mask"], ctx))
    assert choices[0] == choices[1]
    assert np.asarray(obs["action_mask"])[choices[0]] == 1
