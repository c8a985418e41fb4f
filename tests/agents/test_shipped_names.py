"""A shipped name always plays the same weights (issue 60, item 4).

`PINNED` is the record: never change a line of it. A new network ships under a new
name (add its line); a retired name keeps its line, its folder and its card, whose
``retired`` note it carries. Before the rule, names changed networks: on 2026-12-05
``party20`` and ``party50`` moved from the one size-generic Party network (since then
``party_generic``) to the per-size presets' seed 0, and ``scandal2`` from the 2-player
table network (since then ``scandal2_table``) to the size-generic one.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from cardsuite.agents.learned import pretrained
from cardsuite.agents.learned.cards import read_card
from cardsuite.agents.learned.files import sha256_file
from cardsuite.agents.learned.pretrained import CATALOGUE, SHARED, PretrainedAgent, agent_dir
from cardsuite.agents.learned.strength import recommend, size_table

#: name -> (SHA-256 of its weights.safetensors, the day the name began to play them)
PINNED: dict[str, tuple[str, date]] = {
    "scum4": ("eb5348a94fd1ba66efb911fae216715ff9696f4dd9a32ee66b5d83def094d83d", date(2026, 12, 1)),
    "scum6": ("c2dcc88577e64037186822fd6fa1f5de9043158c0d95354f09f7dab3af9e1f2f", date(2026, 12, 1)),
    "party8": ("28518c17f7c076038ebff60cc79cda1ff5982fa0ee3f80e713ab1443ddb880cb", date(2026, 12, 5)),
    "scandal2": ("c662cf3c5c7f6de3403e9ffe928463deb0cc056a32d60cce04a270cc2af51e90", date(2026, 12, 5)),
    "scandal2_table": ("43ed622267e5ebdcc6aec2ed915e9c8cbf9a622f5dc2819cfcff419f753e1d0e", date(2026, 12, 5)),
    "party20": ("8fc76e4355ddf2ff17b8b1063e1f43e733629238357f0919a6f34abe39c8caee", date(2026, 12, 5)),
    "party50": ("fc916fd356f09cd3717f05f1481f0d131544225f94a87c3e675a4580e21b54a4", date(2026, 12, 5)),
    "party_generic": ("a0517c7ef9e0e9783f169adee21c030f48f50dd564fd1d04712e5274286afc6d", date(2026, 12, 5)),
    "scandal4": ("99a7dd89b381434f5894f0c352085c18a39349f5dfc23beceb006e3aa508c2c2", date(2026, 12, 5)),
}  # fmt: skip


def test_every_shipped_name_plays_its_pinned_weights() -> None:
    """Fails when a name's weights change (ship a new name instead), when a name is removed
    (retire it instead) or when a name ships without a pin (add its line)."""
    assert set(CATALOGUE) == set(PINNED)
    for name, (digest, since) in PINNED.items():
        assert sha256_file(agent_dir(name) / "weights.safetensors") == digest, name
        card = read_card(agent_dir(name))
        assert (card.weights_sha256, card.since) == (digest, since), name


def test_a_network_has_one_name() -> None:
    """Two names play one network only through `SHARED`; a re-ship under a new name of
    weights that another name plays is refused here."""
    own = [digest for name, (digest, _) in PINNED.items() if name not in SHARED]
    assert len(own) == len(set(own))


def test_a_retired_name_still_loads_with_its_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A retired name plays as before and warns with its card's note; it is never
    recommended, and the tables by size say why."""
    scum4 = read_card(agent_dir("scum4"))
    folder = shutil.copytree(agent_dir("scum4"), tmp_path / "old4")
    card = (folder / "README.md").read_text(encoding="utf-8")
    card = card.replace("name: scum4", "name: old4", 1).replace(
        "since: 2026-12-01", "since: 2026-12-01\nretired: seat pretrained:scum4 instead", 1
    )
    (folder / "README.md").write_text(card, encoding="utf-8")
    monkeypatch.setattr(pretrained, "ROOT", tmp_path)
    monkeypatch.setitem(CATALOGUE, "old4", CATALOGUE["scum4"])
    with pytest.warns(UserWarning, match=r"pretrained:old4 is retired: seat pretrained:scum4"):
        agent = PretrainedAgent.load("old4", "scum")
    assert agent.name == "pretrained:old4"
    old = read_card(folder)
    assert recommend([old, scum4], 4) is scum4 and recommend([old], 4) is None
    assert "* pretrained:old4 is retired: seat pretrained:scum4 instead" in size_table([old])


def test_every_shipped_agent_plays_with_numpy_alone() -> None:
    """What the README's generated list of names says: each loads and acts without torch."""
    code = """
import sys
from cardsuite.agents.base import table_info
from cardsuite.agents.learned.cards import shipped_cards
from cardsuite.agents.registry import make_agent
from cardsuite.games import get_game

for card in shipped_cards():
    game = get_game(card.game)
    env = game.make(**{game.players_key: card.headline.players})
    env.reset(seed=0)
    seat = env.agent_selection
    agent = make_agent(f"pretrained:{card.name}", card.game, seed=0)
    agent.reset(table_info(env, card.game, seat))
    obs = env.observe(seat)
    action = agent.act(obs["observation"], obs["action_mask"], {"agent": seat})
    assert obs["action_mask"][action] == 1, card.name
assert "torch" not in sys.modules, "torch was imported"
"""
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)
