"""Each game page follows PettingZoo's env page, and its summary box is true (issue 23).

The box's shapes are read back from the page and compared with the env of
the default rules; the picture it shows exists (drawn by
``python docs/img/game_pictures.py`` from ``render_mode="rgb_array"``).
"""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib.image
import pytest

import cardsuite

ROOT = Path(__file__).resolve().parents[2]
PAGES = {"scum": "docs/scum.md", "scum_party": "docs/scum_party.md", "scandal": "docs/scandal.md"}


def _box(text: str) -> dict[str, str]:
    start = text.index("<!-- summary-box")
    rows = re.findall(r"^\| ([^|]+?) \| (.+) \|$", text[start : text.index("\n\n", start)], re.M)
    return {key: value for key, value in rows}


@pytest.mark.parametrize("game", sorted(PAGES))
def test_the_summary_box_states_the_envs_shapes(game: str) -> None:
    box = _box((ROOT / PAGES[game]).read_text(encoding="utf-8"))
    env = cardsuite.make(game)
    env.reset(seed=0)
    agent = env.agent_selection
    space = env.observation_space(agent)
    assert f"`Discrete({env.action_space(agent).n})`" in box["Action shape"]
    assert f"`({space['observation'].shape[0]},)`" in box["Observation shape"]
    assert f"`({space['action_mask'].shape[0]},)`" in box["Observation shape"]
    assert f"`({env.state().shape[0]},)`" in box["State shape"]
    assert f"(default {len(env.possible_agents)})" in box["Agents"]
    assert f"`{cardsuite.api.gymnasium_ids()[game]}`" in box["Registered ids"]
    assert f"`cardsuite/{game}-v0`" in box["Registered ids"]
    engine = cardsuite.games.get_game(game).batched
    assert engine is not None
    assert f"`{engine.replace(':', '.')}`" in box["Batched engine"]


@pytest.mark.parametrize("game", sorted(PAGES))
def test_the_page_has_a_picture_usage_rewards_and_version_history(game: str) -> None:
    text = (ROOT / PAGES[game]).read_text(encoding="utf-8")
    for heading in ("## Usage", "## Rewards", "## Version history"):
        assert f"\n{heading}\n" in text, f"{PAGES[game]} lacks {heading}"
    pictures = re.findall(r"!\[[^\]]*\]\((img/[^)]+\.png)\)", text)
    assert pictures == [f"img/{game}_table.png"]
    image = matplotlib.image.imread(ROOT / "docs" / pictures[0])
    assert image.ndim == 3 and image.shape[0] >= 300 and image.shape[1] >= 500
