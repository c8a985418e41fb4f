"""The shipped reference agents: ``pretrained:NAME`` loads without torch and plays legally."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.agents.learned.cards import read_card
from cardsuite.agents.learned.pretrained import CATALOGUE, ROOT, PretrainedAgent, agent_dir
from cardsuite.agents.learned.safe_io import load_agent_numpy
from cardsuite.agents.registry import make_agent
from cardsuite.errors import CheckpointError, ConfigError

pytestmark = pytest.mark.skipif(
    not (ROOT / "scum4" / "agent.json").is_file(), reason="no shipped scum4 agent"
)


def test_every_catalogue_entry_is_a_valid_small_safe_agent() -> None:
    """One line per agent in code; its command (no placeholder left in) is its model card's."""
    for name, (game, line) in CATALOGUE.items():
        _arrays, meta = load_agent_numpy(agent_dir(name))
        card = read_card(agent_dir(name))
        assert meta.game == game and "\n" not in line and len(line) <= 70
        assert re.search(r"cardsuite (ppo|dmc) --config configs/", card.command)
        for command in (card.command, *card.ship):
            assert not re.search(r"\b[A-Z]+_[A-Z_]+\b", command), f"{name}: a placeholder left in"
        size = sum(p.stat().st_size for p in agent_dir(name).iterdir())
        # the largest: scandal2, the size-generic Scandal actor (1594 inputs, 256x2, 338
        # actions) with its critic for the search's value leaves, float16: 2.1 MB
        assert size < 2_500_000


def test_pretrained_scum4_plays_a_duplicate_match() -> None:
    res = run_tournament("scum", ["pretrained:scum4", "random"], games=4, duplicate=True, seed=2)
    assert res.agents[0].name == "pretrained:scum4" and res.agents[0].illegal_actions == 0
    assert res.head_to_head[0][1] >= 0.5


def test_available_matches_the_table() -> None:
    assert PretrainedAgent.available("scum", {"num_players": 4}) == ["scum4"]
    assert PretrainedAgent.available("scum", {"num_players": 6}) == [
        n for n in CATALOGUE if n == "scum6"
    ]
    # size-generic agents (scandal4, party20, party50, party_generic) record no player
    # count, and any-table ones (party8, scandal2_table: network.layout projected) sit at every
    # count: Scandal and Scum Party list all their agents at every size (issue 21, item 2)
    for n in (2, 3, 6):
        assert PretrainedAgent.available("scandal", {"num_players": n}) == [
            "scandal2",
            "scandal2_table",
            "scandal4",
        ]
    for n in (5, 8, 9, 50):
        assert PretrainedAgent.available("scum_party", {"num_players": n}) == [
            "party8", "party20", "party50", "party_generic"]  # fmt: skip
    # the other options still have to match (all four were trained with reward: points)
    assert PretrainedAgent.available("scum_party", {"num_players": 9, "reward": "rank"}) == []


def test_unknown_names_are_refused() -> None:
    with pytest.raises(ConfigError, match="no pretrained agent 'chess'"):
        make_agent("pretrained:chess", "scum")


def test_loading_and_playing_needs_no_torch() -> None:
    code = (
        "import sys; import numpy as np\n"
        "from cardsuite.agents.registry import make_agent\n"
        "from cardsuite.agents.arena.tournament import run_tournament\n"
        "run_tournament('scum', ['pretrained:scum4', 'heuristic'], games=1, duplicate=True)\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)


def test_ship_keeps_only_the_actor_and_plays_like_the_source(tmp_path: Path) -> None:
    """``ship`` (how shipped agents are made) drops the critic; float16 keeps the logits."""
    import numpy as np

    from cardsuite.agents.learned.netspec import actor_logits
    from cardsuite.agents.learned.pretrained import ship
    from cardsuite.train.ppo.config import PPOConfig
    from cardsuite.train.ppo.trainer import train

    run = tmp_path / "run"
    train(PPOConfig(num_games=16, rollout_steps=8, total_steps=200, hidden=16, layers=1,
               eval_deals=4, eval_every=0, snapshot_every=0, checkpoint_every=0,
               tensorboard=False, quiet=True, threads=1, run_dir=str(run)))  # fmt: skip
    src, meta = load_agent_numpy(run / "agent")
    out = ship(run / "agent", "tiny", half=True, root=tmp_path / "shipped")
    arrays, shipped = load_agent_numpy(out)
    assert set(arrays) == {k for k in src if k.startswith("actor.")}
    assert all(v.dtype == np.float16 for v in arrays.values())
    assert shipped.game == meta.game and shipped.options == meta.options
    obs = np.random.default_rng(0).uniform(-1, 1, (64, meta.obs_size)).astype(np.float32)
    np.testing.assert_allclose(actor_logits(arrays, shipped.network, obs),
                               actor_logits(src, meta.network, obs), atol=2e-2)  # fmt: skip
    with pytest.raises(CheckpointError, match="already exists"):
        ship(run / "agent", "tiny", root=tmp_path / "shipped")


def test_pretrained_scandal2_plays_legally_and_beats_random() -> None:
    res = run_tournament("scandal", ["pretrained:scandal2", "random"], games=6, duplicate=True,
                         seed=3, players=2)  # fmt: skip
    assert res.agents[0].illegal_actions == 0
    assert res.head_to_head[0][1] >= 0.5


#: sha256 (first 16 hex digits) of each shipped agent's 300 greedy actions on the fixed
#: observations of `_fixed_rows`, recorded with the code before the training core
#: (commit a481cb1): the shipped agents play exactly as they did. ``party8`` was
#: re-shipped on 2026-12-03 (the preset with card-counting inputs) and on 2026-12-05 (the
#: preset with Monte-Carlo advantages); its digest is the newest agent's, recorded when it
#: was shipped. ``scandal2_table`` is the network shipped as ``scandal2`` until
#: 2026-12-05 (the same digest); ``scandal2`` since is the size-generic preset's seed 0,
#: its digest recorded when it was shipped. ``scandal4`` was re-shipped on 2026-12-05 from
#: its catalogue command (the former weights were not reproducible); its digest is the
#: re-shipped agent's, recorded when it was shipped.
GOLDEN = {
    "scum4": ("scum", {"num_players": 4}, "96adec56af10da61"),
    "scum6": ("scum", {"num_players": 6}, "6f89202b31e360e5"),
    "party8": ("scum_party", {"num_players": 8}, "7ae302d7f4e1ed24"),
    "scandal2_table": ("scandal", {"num_players": 2}, "e2b535ebf97e0f39"),
    "scandal2": ("scandal", {"num_players": 2}, "9c20f86eb2499052"),
    "scandal4": ("scandal", {"num_players": 4}, "ff537d89c0d5c9ea"),
}


def _fixed_rows(table: Any) -> tuple[Any, Any]:
    """300 seeded observations within the spec's bounds and masks with a legal action."""
    import numpy as np

    rng = np.random.default_rng(123)
    low, high = table.obs_spec.bounds()
    low = np.clip(np.nan_to_num(low, neginf=-5), -5, 60)
    high = np.clip(np.nan_to_num(high, posinf=60), -5, 60)
    obs, masks = [], []
    for _ in range(300):
        obs.append(rng.uniform(low, high).astype(np.float32))
        mask = (rng.random(table.num_actions) < 0.3).astype(np.int8)
        mask[rng.integers(table.num_actions)] = 1
        masks.append(mask)
    return np.stack(obs), np.stack(masks)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_shipped_agents_play_the_same_actions_as_before_the_core(name: str) -> None:
    """Row by row (the arena's ``act``) and as a batch (the core's evaluator), the same moves."""
    import hashlib

    import numpy as np

    from cardsuite.agents.base import table_info
    from cardsuite.agents.learned.netspec import obs_scale
    from cardsuite.games import get_game
    from cardsuite.train.core.evaluate import GreedyPolicy

    game, _options, digest = GOLDEN[name]
    agent = make_agent(f"pretrained:{name}", game, seed=0)
    g = get_game(game)
    env = g.make(
        **{k: v for k, v in agent.meta.options.items() if k in g.config_class().field_names()}
    )
    env.reset(seed=0)
    table = table_info(env, game, env.agents[0])
    agent.reset(table)
    obs, masks = _fixed_rows(table)
    rows = np.array([agent.act(o, m, {}) for o, m in zip(obs, masks)], dtype=np.int64)
    assert hashlib.sha256(rows.tobytes()).hexdigest()[:16] == digest
    batch = GreedyPolicy(agent.snapshot, obs_scale(table.obs_spec))(obs, masks)
    assert batch.tolist() == rows.tolist()


def test_shipping_cli_refuses_a_taken_name_with_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`python -m cardsuite.agents.learned.pretrained RUN/agent NAME` never overwrites a shipped agent
    and never ends in a traceback: exit code 2 and one line naming the folder."""
    from cardsuite.agents.learned.pretrained import main

    before = (agent_dir("scum4") / "weights.safetensors").read_bytes()
    assert main([str(agent_dir("scum6")), "scum4"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "already exists" in err and "scum4" in err
    assert (agent_dir("scum4") / "weights.safetensors").read_bytes() == before
    assert main([str(tmp_path / "missing"), "scum4"]) == 2
    assert "is not a directory" in capsys.readouterr().err
