"""Model cards: every shipped agent's ``README.md`` parses, matches its weights and is listed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cardsuite.agents.learned.cards import facts, parse_card, read_card, shipped_cards, tables
from cardsuite.agents.learned.files import sha256_file
from cardsuite.agents.learned.meta import AgentMeta
from cardsuite.agents.learned.netspec import NetworkSpec
from cardsuite.agents.learned.pretrained import CATALOGUE, ROOT, add_critic
from cardsuite.agents.learned.safe_io import load_agent_numpy, read_meta, save_agent
from cardsuite.agents.learned.strength import UNSEEN_SEED, share
from cardsuite.errors import CheckpointError

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_every_card_parses_names_its_folder_and_matches_its_weights(name: str) -> None:
    card = read_card(ROOT / name)
    meta = read_meta(ROOT / name)
    game, summary = CATALOGUE[name]
    assert (card.name, card.game, card.summary) == (name, game, summary) and meta.game == game
    digest = sha256_file(ROOT / name / "weights.safetensors")
    assert card.weights_sha256 == digest
    assert card.layout == meta.network.layout
    if card.layout != "generic":  # a table-sized network trained at its options' table
        assert card.trained_at == (meta.options["num_players"],)
    assert card.sizes[0] <= min(card.trained_at) <= max(card.trained_at) <= card.sizes[1]
    # the headline is against the heuristic at a size it trained at
    assert card.headline.against == "heuristic" and card.headline.players in card.trained_at
    assert all(0 <= r.won <= 100 and 0 < r.ci < 20 for r in card.evaluation)
    assert (
        card.command.startswith(("cardsuite ", "git checkout")) and "configs/train/" in card.command
    )
    assert "## Known weaknesses" in card.body


def test_each_headline_is_its_share_of_unseen_deals_at_its_table() -> None:
    """The first row (docs/results.md's headline) is the one number the tables by size show
    at that size: unseen deals against the heuristic."""
    for card in shipped_cards():
        head = card.headline
        assert (head.against, head.seed) == ("heuristic", UNSEEN_SEED), card.name
        assert share(card, head.players) is head, card.name


def test_the_generated_parts_are_up_to_date() -> None:
    """The cards' facts and the list in docs/agents.md are generated from the front matter
    (``python -m cardsuite.docs --write`` rewrites them)."""
    blocks = tables()
    assert {page for page, _, _ in blocks} == {
        "docs/agents.md", "docs/results.md", "README.md",
        *(f"agents/learned/models/{n}/README.md" for n in CATALOGUE)}  # fmt: skip
    for page, marker, generate in blocks:
        text = (REPO / page).read_text(encoding="utf-8")
        assert f"<!-- {marker} -->\n{generate()}\n<!-- /{marker} -->" in text, page


FRONT = """---
name: tiny
game: scum
summary: a tiny agent
layout: table
trained_at: [4]
sizes: [4, 4]
command: cardsuite dmc --config configs/train/dmc_scum4.yaml
weights_sha256: "00"
since: 2026-12-01
evaluation:
  - {against: heuristic, players: 4, won: 50, ci: 5.0, deals: 10, seed: 1}
---
# tiny
"""


@pytest.mark.parametrize(
    "change, named",
    [
        (("---\n", ""), "front matter"),
        (("layout: table", "layout: table\ncolour: red"), "'colour' is not a known field"),
        (("won: 50", "won: high"), "'won' has the wrong type"),
        (("won: 50", "won: true"), "'won' has the wrong type"),
        (("deals: 10, ", ""), "evaluation[0]: field 'deals' is missing"),
        (("sizes: [4, 4]", "sizes: [6, 4]"), "'sizes'"),
        (("trained_at: [4]", "trained_at: []"), "'trained_at'"),
        (("layout: table", "layout: round"), "'layout'"),
        (
            ("summary: a tiny agent", "summary: !!python/object/apply:os.system [echo]"),
            "not valid YAML",
        ),
        (("evaluation:\n  - {against", "evaluation: []\nx:\n  - {against"), "not a known"),
        (("since: 2026-12-01", "since: soon"), "'since' has the wrong type"),
        (("since: 2026-12-01\n", ""), "field 'since' is missing"),
        (("since: 2026-12-01", "since: 2026-12-01\nretired: [yes]"), "'retired' has the wrong"),
    ],
)
def test_a_bad_card_is_a_named_checkpoint_error(change: tuple[str, str], named: str) -> None:
    with pytest.raises(CheckpointError, match=named.replace("[", r"\[").replace("]", r"\]")):
        parse_card(FRONT.replace(*change, 1), "card tiny")


def test_a_good_card_parses_and_renders() -> None:
    card = parse_card(FRONT, "card tiny")
    assert card.headline.text() == "50% ± 5.0 of 10 deals against heuristic at 4 players"
    assert "| heuristic | 4 | 50% ± 5.0 | 10 | 1 |  |" in facts(card)
    assert "played by `pretrained:tiny` since 2026-12-01" in facts(card)
    assert card.retired == "" and "Retired" not in facts(card)
    retired = parse_card(
        FRONT.replace("since: 2026-12-01", "since: 2026-12-01\nretired: seat x"), "c"
    )
    assert retired.retired == "seat x" and facts(retired).endswith("**Retired**: seat x")


def _tiny_agent(path: Path, critic: bool) -> Path:
    rng = np.random.default_rng(0)
    tensors = {"actor.0.weight": rng.normal(size=(2, 3)), "actor.0.bias": np.zeros(2)}
    if critic:
        tensors |= {"critic.0.weight": rng.normal(size=(1, 3)), "critic.0.bias": np.zeros(1)}
    meta = AgentMeta("scum", {}, 3, 2, NetworkSpec("tanh", ("actor.0",)))
    return save_agent(path, tensors, meta)


def test_a_card_stays_beside_the_weights_when_a_critic_is_added(tmp_path: Path) -> None:
    shipped = _tiny_agent(tmp_path / "pkg" / "tiny", critic=False)
    (shipped / "README.md").write_text(FRONT, encoding="utf-8")
    load_agent_numpy(shipped)  # a card beside the weights loads; any other file is refused
    add_critic(_tiny_agent(tmp_path / "fit", critic=True), "tiny", root=tmp_path / "pkg")
    assert (shipped / "README.md").read_text(encoding="utf-8") == FRONT
    assert "critic.0.weight" in load_agent_numpy(shipped)[0]
