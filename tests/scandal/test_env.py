"""PettingZoo conformance and env behaviour of scandal_v0."""

from __future__ import annotations

import json
import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from cardsuite.errors import IllegalActionError, PresetError
from scandal_env import engine as E
from scandal_env import scandal_v0

CONFIGS: list[dict[str, Any]] = [
    {"num_players": 2},
    {"num_players": 3, "max_turns": 40},
    {"num_players": 6, "max_turns": 30},
    {"num_players": 2, "episode": "game", "target_score": 60, "max_turns": 30},
]


@pytest.mark.parametrize(
    "config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items())
)
def test_api_and_seed(config: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(scandal_v0.env(**config), num_cycles=300)
        seed_test(lambda: scandal_v0.env(**config), num_cycles=100)


def test_doc_page_has_the_tables() -> None:
    doc = scandal_v0.__doc__ or ""
    assert "| `hand` |" in doc and "| `draw_discard` |" in doc and "| `max_turns` |" in doc


def test_preset_deal_through_reset_and_rewards() -> None:
    env = scandal_v0.raw_env()
    env.reset(
        seed=0,
        options={
            "hands": [
                ["Watergate", "Richard Nixon", "Gerald Ford", "The Watergate Hotel"],
                ["Ronald Reagan", "Ted Kennedy", "Bill Clinton"],
            ],
            "discard": ["Donna Rice"],
            "dealer": 1,
        },
    )
    lay = env.rules.layout
    deck = env.rules.deck
    assert env.agent_selection == "player_0"
    env.step(lay.DRAW_STOCK)
    env.step(lay.MELD_START + deck.scandal_names.index("Watergate"))
    for name in ("Richard Nixon", "Gerald Ford", "The Watergate Hotel"):
        env.step(lay.MELD_ADD + deck.name_to_id[name])
    env.step(lay.MELD_FINISH)
    last = int(np.flatnonzero(env.game.hands[0])[0])  # type: ignore[union-attr]
    env.step(lay.DISCARD + last)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {"player_0": 0.4, "player_1": -0.4}
    assert env.infos["player_0"]["hand_end"] == "out" and env.infos["player_0"]["winner"]


def test_illegal_action_raise_and_penalize() -> None:
    raw = scandal_v0.raw_env()
    raw.reset(seed=1)
    discard = raw.rules.layout.DISCARD
    with pytest.raises(IllegalActionError, match=r"discard .*the turn is in its draw phase"):
        raw.step(discard)
    env = scandal_v0.env()
    env.reset(seed=1)
    agent = env.agent_selection
    env.step(discard)
    assert env.rewards[agent] == -1.0 and all(env.terminations.values())
    assert "draw phase" in env.infos[agent]["illegal_action"]["reason"]


def test_bad_preset_and_state_resume() -> None:
    env = scandal_v0.raw_env()
    with pytest.raises(PresetError, match="unknown card"):
        env.reset(seed=0, options={"hands": [["Nobody"], ["Gary Hart"]]})
    env.reset(seed=4)
    for _ in range(7):
        env.step(int(np.flatnonzero(env.legal_mask())[0]))
    assert env.game is not None
    text = E.to_json(env.game)
    other = scandal_v0.raw_env()
    other.reset(options={"state": text})
    assert other.agent_selection == env.agent_selection
    assert (
        other.observe(env.agent_selection)["observation"]
        == env.observe(env.agent_selection)["observation"]
    ).all()
    assert json.loads(text)["config"]["num_players"] == 2


def test_game_episode_rewards_sum_to_final_scores() -> None:
    env = scandal_v0.raw_env(episode="game", target_score=150, max_turns=40, max_hands=5)
    env.reset(seed=3)
    total = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(env.legal_mask())
        env.step(int(legal[rng.integers(legal.size)]))
    assert env.game is not None
    for p, agent in enumerate(env.possible_agents):
        assert total[agent] == pytest.approx(env.game.scores[p] / 100)


def test_render_and_state() -> None:
    env = scandal_v0.env(render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert isinstance(text, str) and "discard top" in text
    assert env.state().shape == env.state_space.shape


def test_docs_page_matches_the_code() -> None:
    from pathlib import Path

    from scandal_env.config import ScandalConfig
    from scandal_env.encoding import obs_spec

    text = (Path(__file__).resolve().parents[2] / "docs" / "scandal.md").read_text()
    game = E.make_rules(ScandalConfig())
    assert game.layout.table() in text
    assert obs_spec(game).table() in text
    assert ScandalConfig.doc_table() in text
    for ruling in ("S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9"):
        assert ruling in text
