"""ISMCTS: tree bookkeeping, legality, determinism, and search on scripted positions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardsuite.agents.base import table_info
from cardsuite.agents.search.reference import ISMCTSAgent, Node
from cardsuite.games import get_game
from scum_env.config import ScumConfig
from scum_env.rules import scum_rules

RULES = scum_rules(ScumConfig(num_players=4))
SLOT = {name: i for i, name in enumerate(RULES.cards.names)}
OTHERS = [["4", "5", "6", "6"], ["8", "9", "10"], ["9", "10", "11", "11"]]


def scum_position(hands: list[list[str]], lead: tuple[int, str] | None = None) -> Any:
    env = get_game("scum").make(num_players=4)
    env.reset(seed=0, options={"roles": [0, 1, 2, 3], "hands": hands})
    if lead is not None:
        env.step(RULES.play_action(lead[0], SLOT[lead[1]]))
    return env


def search_choice(env: Any, agent: ISMCTSAgent, game: str = "scum") -> tuple[int, Node]:
    name = env.agent_selection
    agent.reset(table_info(env, game, name), seed=1)
    obs = env.observe(name)
    base = env.unwrapped
    ctx = {"agent": name, "determinize": lambda rng: base.determinize(name, rng)}
    action = agent.act(obs["observation"], obs["action_mask"], ctx)
    root = agent.search(ctx["determinize"])
    return action, root


def test_tree_counts_every_iteration() -> None:
    env = scum_position([["3", "3", "7", "12", "P"], *OTHERS])
    _action, root = search_choice(env, ISMCTSAgent("scum", budget=40, max_hand=0))
    assert root.visits == 40
    assert sum(child.visits for child in root.children.values()) == 40
    assert all(child.player == 0 for child in root.children.values())
    # 1x3, 2x3, 7, 12, P: each expanded once, then chosen by UCB1 with availability
    assert len(root.children) == 5
    # a root move is legal in every determinization: available from its creation on
    assert max(child.avail for child in root.children.values()) == 40
    assert sorted(child.avail for child in root.children.values())[:4] == [36, 37, 38, 39]
    assert all(child.avail >= child.visits for child in root.children.values())


RACE = [["2", "2", "9", "S"], ["4", "P"], ["10"], ["9", "10", "11", "11"]]


def test_search_plays_the_president_that_goes_out() -> None:
    """{4, P} after a single 9, the next player holds one card: the President ends the
    round at once (J7) and the 4 goes out first; a pass lets that player go out first."""
    env = scum_position(RACE, lead=(1, "9"))
    action, root = search_choice(env, ISMCTSAgent("scum", budget=30, max_hand=0))
    assert action == RULES.play_action(1, SLOT["P"])
    best = root.children[action]
    assert best.total / best.visits == pytest.approx(1.0)  # always first out: reward 1


def test_random_rollouts_also_find_the_forced_win() -> None:
    env = scum_position(RACE, lead=(1, "9"))
    action, _ = search_choice(env, ISMCTSAgent("scum", budget=60, rollout="random", max_hand=0))
    assert action == RULES.play_action(1, SLOT["P"])


def test_search_goes_out_at_once() -> None:
    env = scum_position([["2", "2", "9", "S"], ["4"], *OTHERS[1:]], lead=(1, "S"))
    agent = ISMCTSAgent("scum", budget=5)
    name = env.agent_selection
    agent.reset(table_info(env, "scum", name), seed=0)
    obs = env.observe(name)
    legal = np.flatnonzero(obs["action_mask"])
    assert legal.tolist() == [0, RULES.play_action(1, SLOT["4"])]
    ctx = {"agent": name, "determinize": lambda rng: env.unwrapped.determinize(name, rng)}
    assert agent.act(obs["observation"], obs["action_mask"], ctx) == RULES.play_action(1, SLOT["4"])


def test_without_determinize_it_plays_the_heuristic() -> None:
    env = scum_position([["3", "3", "7", "12", "P"], *OTHERS])
    agent = ISMCTSAgent("scum", budget=5)
    agent.reset(table_info(env, "scum", "player_0"), seed=0)
    obs = env.observe("player_0")
    assert agent.act(obs["observation"], obs["action_mask"], {}) == RULES.play_action(2, SLOT["3"])


def test_max_hand_searches_only_small_hands() -> None:
    env = scum_position([["3", "3", "7", "12", "P"], *OTHERS])
    agent = ISMCTSAgent("scum", budget=5, max_hand=3)
    name = env.agent_selection
    agent.reset(table_info(env, "scum", name), seed=0)
    obs = env.observe(name)
    ctx = {"agent": name, "determinize": lambda rng: env.unwrapped.determinize(name, rng)}
    assert agent.act(obs["observation"], obs["action_mask"], ctx) == RULES.play_action(2, SLOT["3"])


def test_scandal_search_is_legal_and_seeded() -> None:
    env = get_game("scandal").make(num_players=2)
    env.reset(seed=4)
    name = env.agent_selection
    obs = env.observe(name)
    ctx = {"agent": name, "determinize": lambda rng: env.unwrapped.determinize(name, rng)}
    picks = []
    for _ in range(2):
        agent = ISMCTSAgent("scandal", budget=12, cutoff=10)
        agent.reset(table_info(env, "scandal", name), seed=9)
        picks.append(agent.act(obs["observation"], obs["action_mask"], ctx))
    assert picks[0] == picks[1] and obs["action_mask"][picks[0]] == 1


def test_bad_settings_are_named() -> None:
    with pytest.raises(Exception, match="rollout"):
        ISMCTSAgent("scum", rollout="smart")
    with pytest.raises(Exception, match="max_hand"):
        ISMCTSAgent("scum", max_hand=-1)
